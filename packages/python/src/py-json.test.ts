import { describe, expect, it } from 'vitest';
import { PyException } from './py-exception';
import {
  PyJsonSyntaxError,
  parsePyJson,
  pyJsonDumps,
  tryPyJsonDumps,
} from './py-json';
import {
  PyDict,
  PyEllipsis,
  PySet,
  PyTuple,
  freezePyValue,
  isFrozenPyList,
  type PyValue,
} from './py-value';

describe('pyJsonDumps', () => {
  it('should use Python separators, float repr and int keys', () => {
    const value = new PyDict([
      ['b', 10000.0],
      [3426812n, 'x'],
      ['c', [1n, 1e-6, true, null]],
    ]);
    expect(pyJsonDumps(value)).toBe(
      '{"b": 10000.0, "3426812": "x", "c": [1, 1e-06, true, null]}',
    );
  });

  it('should escape like json.dumps with ensure_ascii', () => {
    // Expected strings printed by CPython's json.dumps.
    const cases: [string, string][] = [
      ["a'b", `"a'b"`],
      ['a"b', '"a\\"b"'],
      ['\n\t\\', '"\\n\\t\\\\"'],
      ['\u0000\u007f', '"\\u0000\\u007f"'],
      ['é', '"\\u00e9"'],
      ['😀', '"\\ud83d\\ude00"'],
      ['\u0085', '"\\u0085"'],
    ];
    for (const [input, expected] of cases)
      expect(pyJsonDumps(input)).toBe(expected);
    expect(pyJsonDumps('é', { ensureAscii: false })).toBe('"é"');
  });

  it('should sort keys by code point and honour separators', () => {
    const value = new PyDict([
      ['b', 1n],
      ['a', new PyTuple([2n])],
    ]);
    expect(pyJsonDumps(value, { sortKeys: true, separators: [',', ':'] })).toBe(
      '{"a":[2],"b":1}',
    );
  });

  it('should raise TypeError for values JSON cannot encode', () => {
    const call = () => pyJsonDumps(new PyDict([['x', new PySet(['a'])]]));
    expect(call).toThrow(PyException);
    expect(call).toThrow('Object of type set is not JSON serializable');
    expect(() => pyJsonDumps([PyEllipsis])).toThrow(
      'Object of type ellipsis is not JSON serializable',
    );
    expect(() => pyJsonDumps(new PyDict([[new PyTuple([1n]), 1n]]))).toThrow(
      'keys must be str, int, float, bool or None, not tuple',
    );
  });

  it('should give undefined from tryPyJsonDumps where json.dumps raises, the text elsewhere', () => {
    const dict = new PyDict([
      ['a', 1.5],
      ['b', ['x', null]],
    ]);
    expect(tryPyJsonDumps(dict)).toBe(pyJsonDumps(dict));
    expect(tryPyJsonDumps(dict, { separators: [',', ':'] })).toBe(
      '{"a":1.5,"b":["x",null]}',
    );
    const bottom: PyValue[] = [new PySet(['a'])];
    let deep: PyValue[] = bottom;
    for (let i = 0; i < 40; i++) deep = [deep];
    expect(tryPyJsonDumps(deep)).toBeUndefined();
    expect(
      tryPyJsonDumps(new PyDict([['e', PyEllipsis]]), { sortKeys: true }),
    ).toBeUndefined();
    expect(
      tryPyJsonDumps(new PyDict([[new PyTuple([1n]), 1n]])),
    ).toBeUndefined();
    const cycle: PyValue[] = [];
    cycle.push(cycle);
    expect(tryPyJsonDumps(cycle)).toBeUndefined();
    // The quiet encoder leaves nothing behind either.
    bottom[0] = 'a';
    expect(tryPyJsonDumps(deep)).toBe(`${'['.repeat(41)}"a"${']'.repeat(41)}`);
    expect(() => pyJsonDumps([PyEllipsis])).toThrow(PyException);
  });

  it('should encode normally after a call that raised deep inside a value', () => {
    // The default options share one encoder; a call that raises must not leave
    // its containers behind for the next (they would look like a cycle).
    const bottom: PyValue[] = [new PySet(['a'])];
    let deep: PyValue[] = bottom;
    for (let i = 0; i < 40; i++) deep = [deep];
    expect(() => pyJsonDumps(deep)).toThrow(
      'Object of type set is not JSON serializable',
    );
    bottom[0] = 'a';
    expect(pyJsonDumps(deep)).toBe(`${'['.repeat(41)}"a"${']'.repeat(41)}`);
  });

  it('should detect circular references', () => {
    const list: unknown[] = [];
    list.push(list);
    expect(() => pyJsonDumps(list as never)).toThrow(
      'Circular reference detected',
    );
    // A cycle that closes below a deep, acyclic prefix.
    const dict = new PyDict();
    let deep: unknown = dict;
    for (let i = 0; i < 100; i++) deep = [deep];
    dict.set('self', deep as never);
    expect(() => pyJsonDumps(dict)).toThrow('Circular reference detected');
  });

  it('should escape lone surrogates and control characters unit by unit', () => {
    // Expected strings printed by CPython's json.dumps.
    expect(pyJsonDumps('a\ud800b\udc00')).toBe('"a\\ud800b\\udc00"');
    expect(pyJsonDumps('x\u0001é\b\f"', { ensureAscii: false })).toBe(
      '"x\\u0001é\\b\\f\\""',
    );
  });

  it('should render a frozen list the same as a live one, under every option', () => {
    const live = [1.5, 1e-7, 10n, 'é', [2.0, null], new PyTuple([true])];
    const frozen = freezePyValue([
      1.5,
      1e-7,
      10n,
      'é',
      [2.0, null],
      new PyTuple([true]),
    ]);
    expect(isFrozenPyList(frozen)).toBe(true);
    const options = [
      {},
      { ensureAscii: false },
      { separators: [',', ':'] as const },
    ];
    for (const option of options) {
      // Twice: the second call may come from the cache.
      expect(pyJsonDumps(frozen, option)).toBe(pyJsonDumps(live, option));
      expect(pyJsonDumps(frozen, option)).toBe(pyJsonDumps(live, option));
    }
    expect(() => (frozen as unknown[]).push(1n)).toThrow(TypeError);
  });

  it('should not freeze lists that hold mutable values', () => {
    const dictInside = [new PyDict([['a', 1n]])];
    const numbers = [1n];
    freezePyValue(
      new PyDict([
        ['x', dictInside],
        ['y', numbers],
      ]),
    );
    expect(isFrozenPyList(dictInside)).toBe(false);
    expect(Object.isFrozen(dictInside)).toBe(false);
    expect(isFrozenPyList(numbers)).toBe(true);
  });
});

describe('parsePyJson', () => {
  it('should refuse integers of more than 4,300 digits, as json.loads does', () => {
    // Regression (fuzz): such an int reached formatCall and threw from an episode step.
    expect(
      parsePyJson(`[${'9'.repeat(4300)}, -${'9'.repeat(4300)}]`),
    ).toHaveLength(2);
    expect(() => parsePyJson(`{"a": ${'9'.repeat(4301)}}`)).toThrow(
      PyJsonSyntaxError,
    );
    expect(() => parsePyJson(`-${'1'.repeat(5000)}`)).toThrow(
      'Exceeds the limit (4300 digits) for integer string conversion: value has 5000 digits',
    );
    // Floats of any length are fine (they round).
    expect(parsePyJson(`${'9'.repeat(5000)}.0`)).toBe(Infinity);
  });

  it('should keep ints and floats apart', () => {
    const value = parsePyJson(
      '{"a": 10000.0, "b": 10000, "c": 1e3, "d": -0.5}',
    ) as PyDict;
    expect(value.get('a')).toBe(10000);
    expect(typeof value.get('a')).toBe('number');
    expect(value.get('b')).toBe(10000n);
    expect(value.get('c')).toBe(1000);
    expect(value.get('d')).toBe(-0.5);
  });

  it('should keep document order, including integer-like keys', () => {
    const value = parsePyJson('{"z": 1, "10": 2, "2": 3}') as PyDict;
    expect([...value.keys()]).toEqual(['z', '10', '2']);
  });

  it('should round-trip through pyJsonDumps', () => {
    const text =
      '{"name": "x\\u00e9\\ud83d\\ude00", "list": [1, 2.5, null, true, {"k": []}]}';
    expect(pyJsonDumps(parsePyJson(text))).toBe(text);
  });

  it('should accept NaN and Infinity like Python', () => {
    expect(parsePyJson('[NaN, Infinity, -Infinity]')).toEqual([
      NaN,
      Infinity,
      -Infinity,
    ]);
  });

  it('should reject malformed text with a position', () => {
    expect(() => parsePyJson('{"a": }')).toThrow(/position 6/);
    expect(() => parsePyJson('[1, 2')).toThrow(/expected/);
    expect(() => parsePyJson('1 2')).toThrow(/extra data/);
  });
});

import { describe, expect, it } from 'vitest';
import { pyJsonDumps } from './py-json';
import { pyRepr } from './py-repr';
import {
  PyDict,
  PySet,
  PyTuple,
  freezePyTree,
  pyDeepCopy,
  type PyKey,
} from './py-value';

describe('PyDict', () => {
  it('should keep the first key object of equal keys, as CPython does', () => {
    // CPython: d = {True: 'a'}; d[1] = 'b'; d[1.0] = 'c' → {True: 'c'}
    const dict = new PyDict([[true, 'a']]);
    dict.set(1n, 'b');
    dict.set(1.0, 'c');
    expect(pyRepr(dict)).toBe("{True: 'c'}");
    expect([...dict.keys()]).toEqual([true]);
  });

  it('should give back None, float and tuple keys from iteration, repr and json.dumps', () => {
    const dict = new PyDict([
      [null, 1n],
      [2.0, 2n],
      [new PyTuple(['a', 1n]), 3n],
      ['s', 4n],
    ]);
    expect(pyRepr(dict)).toBe("{None: 1, 2.0: 2, ('a', 1): 3, 's': 4}");
    expect([...dict.entries()].map(([key]) => key)).toEqual([
      null,
      2.0,
      new PyTuple(['a', 1n]),
      's',
    ]);
    expect(
      pyJsonDumps(
        new PyDict([
          [null, 1n],
          [2.0, 2n],
          [false, 3n],
        ]),
      ),
    ).toBe('{"null": 1, "2.0": 2, "false": 3}');
  });

  it('should forget a deleted key object, so a new equal key takes its place at the end', () => {
    // CPython: d = {True: 1, 'x': 2}; del d[1]; d[1] = 3 → {'x': 2, 1: 3}
    const dict = new PyDict([
      [true, 1n],
      ['x', 2n],
    ]);
    dict.delete(1n);
    dict.set(1n, 3n);
    expect(pyRepr(dict)).toBe("{'x': 2, 1: 3}");
    dict.clear();
    dict.set(1n, 4n);
    expect(pyRepr(dict)).toBe('{1: 4}');
  });

  it('should behave the same below and above its index threshold', () => {
    for (const size of [3, 8, 9, 40]) {
      const dict = new PyDict();
      for (let i = 0; i < size; i++) dict.set(BigInt(i), `v${i}`);
      dict.set(1.0, 'one'); // 1.0 == 1: updates in place
      expect(dict.size).toBe(size);
      expect(dict.get(1n)).toBe('one');
      expect(dict.delete(0n)).toBe(true);
      expect(dict.delete(0n)).toBe(false);
      dict.set(0n, 'zero');
      expect([...dict.keys()]).toEqual([
        ...Array.from({ length: size - 1 }, (_, i) => BigInt(i + 1)),
        0n,
      ]);
      expect(dict.get(BigInt(size - 1))).toBe(`v${size - 1}`);
      const copy = pyDeepCopy(dict);
      copy.set('new', 1n);
      expect(copy.size).toBe(size + 1);
      expect(dict.has('new')).toBe(false);
      expect(copy.get(0n)).toBe('zero');
    }
  });

  it('should find a NaN key by identity of value, as a Map does', () => {
    const dict = new PyDict([
      [NaN, 1n],
      ['a', 2n],
    ]);
    expect(dict.get(NaN)).toBe(1n);
    expect(pyRepr(dict)).toBe("{nan: 1, 'a': 2}");
  });

  it('should visit entries added during iteration, like a Map', () => {
    const dict = new PyDict([['a', 1n]]);
    const seen: PyKey[] = [];
    for (const [key] of dict) {
      seen.push(key);
      if (key === 'a') dict.set('b', 2n);
    }
    expect(seen).toEqual(['a', 'b']);
  });

  it('should keep key objects and aliasing through a deep copy', () => {
    const shared = [1n];
    const dict = new PyDict([
      [true, shared],
      ['y', shared],
    ]);
    const copy = pyDeepCopy(dict);
    expect(pyRepr(copy)).toBe("{True: [1], 'y': [1]}");
    expect(copy.get(true)).toBe(copy.get('y'));
    expect(copy.get(true)).not.toBe(shared);
  });

  it('should keep empty dicts independent: the first insertion gives a dict arrays of its own', () => {
    const a = new PyDict();
    const b = new PyDict();
    const c = PyDict.fromObject({});
    a.set('x', 1n);
    expect([b.size, c.size, [...b], [...c]]).toEqual([0, 0, [], []]);
    b.set('y', 2n);
    a.clear();
    expect([...a]).toEqual([]);
    expect([...b]).toEqual([['y', 2n]]);
    const copy = pyDeepCopy(a) as PyDict;
    copy.set('z', 3n);
    a.set('w', 4n);
    expect([[...a], [...b], [...copy], [...new PyDict()]]).toEqual([
      [['w', 4n]],
      [['y', 2n]],
      [['z', 3n]],
      [],
    ]);
  });
});

describe('freezePyTree', () => {
  it('should make its dicts read-only and its deep copies independent and mutable', () => {
    const config = freezePyTree(
      new PyDict([
        [
          'root',
          new PyDict([
            ['files', ['a', 'b']],
            ['n', 1n],
          ]),
        ],
      ]),
    );
    expect(() => config.set('x', 1n)).toThrow(TypeError);
    expect(() => (config.get('root') as PyDict).delete('n')).toThrow(TypeError);
    expect(() => config.clear()).toThrow(TypeError);
    const copy = pyDeepCopy(config);
    (copy.get('root') as PyDict).set('n', 2n);
    ((copy.get('root') as PyDict).get('files') as unknown[]).push('c');
    expect(pyRepr(config)).toBe("{'root': {'files': ['a', 'b'], 'n': 1}}");
    expect(pyRepr(copy)).toBe("{'root': {'files': ['a', 'b', 'c'], 'n': 2}}");
    // A part copies the same way.
    expect(pyRepr(pyDeepCopy(config.get('root')!))).toBe(
      "{'files': ['a', 'b'], 'n': 1}",
    );
  });

  it('should keep aliasing in copies of data that shares a container', () => {
    const shared = [1n];
    const data = freezePyTree(
      new PyDict([
        ['a', new PyDict([['x', shared]])],
        ['b', shared],
      ]),
    );
    const copy = pyDeepCopy(data);
    expect((copy.get('a') as PyDict).get('x')).toBe(copy.get('b'));
    const withSet = freezePyTree(
      new PyDict([
        ['s', new PySet([1n])],
        ['l', [1n]],
      ]),
    );
    const copied = pyDeepCopy(withSet);
    expect(copied.get('s')).not.toBe(withSet.get('s'));
    expect(pyRepr(copied)).toBe(pyRepr(withSet));
  });
});

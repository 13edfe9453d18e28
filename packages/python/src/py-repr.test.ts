import { describe, expect, it } from 'vitest';
import { PyDict, PyEllipsis, PySet, PyTuple } from './py-value';
import { floatRepr, pyRepr, pyStr, stringRepr } from './py-repr';

// Expected values printed by CPython 3.11 (`repr(x)`).
const floatCases: [number, string][] = [
  [0.1, '0.1'],
  [1e16, '1e+16'],
  [1e15, '1000000000000000.0'],
  [1.5e16, '1.5e+16'],
  [1e-5, '1e-05'],
  [0.0001, '0.0001'],
  [0.00012345, '0.00012345'],
  [123456789012345.6, '123456789012345.6'],
  [22000.0, '22000.0'],
  [1e-6, '1e-06'],
  [113.56230000000001, '113.56230000000001'],
  [5.283440000000001, '5.283440000000001'],
  [-0.0, '-0.0'],
  [2.5e-310, '2.5e-310'],
  [1.7976931348623157e308, '1.7976931348623157e+308'],
  [100.0, '100.0'],
  [1e22, '1e+22'],
  // eslint-disable-next-line no-loss-of-precision -- the rounding is the point.
  [12345678901234567890.0, '1.2345678901234567e+19'],
  [0.30000000000000004, '0.30000000000000004'],
  [-1.25e-7, '-1.25e-07'],
  [NaN, 'nan'],
  [Infinity, 'inf'],
  [-Infinity, '-inf'],
];

const stringCases: [string, string][] = [
  ["a'b", `"a'b"`],
  ['a"b', `'a"b'`],
  [`a'b"c`, `'a\\'b"c'`],
  ['\n\t\\', "'\\n\\t\\\\'"],
  ['\u0000\u007f', "'\\x00\\x7f'"],
  ['é', "'é'"],
  ['\u2028', "'\\u2028'"],
  ['😀', "'😀'"],
  ['\u200b', "'\\u200b'"],
  [' ', "' '"],
  ['\u00a0', "'\\xa0'"],
  ['\u0085', "'\\x85'"],
];

describe('floatRepr', () => {
  it.each(floatCases)('should print %s as CPython does', (value, expected) => {
    expect(floatRepr(value)).toBe(expected);
  });

  it('should print the same text again from its memo, 0.0 and -0.0 kept apart', () => {
    const values = [
      0.1, -0.0, 0.0, 1e22, 123.456, -0.0, 5e-324, 0.1, 1e22, 0.0,
    ];
    const first = values.map(floatRepr);
    expect(values.map(floatRepr)).toEqual(first);
    expect(first).toEqual([
      '0.1',
      '-0.0',
      '0.0',
      '1e+22',
      '123.456',
      '-0.0',
      '5e-324',
      '0.1',
      '1e+22',
      '0.0',
    ]);
  });
});

describe('stringRepr', () => {
  it.each(stringCases)(
    'should quote and escape %j as CPython does',
    (value, expected) => {
      expect(stringRepr(value)).toBe(expected);
    },
  );
});

describe('pyRepr', () => {
  it('should print containers with Python syntax', () => {
    const dict = new PyDict([
      ['a', 1n],
      [2n, [true, null, 1.0]],
    ]);
    expect(pyRepr(dict)).toBe("{'a': 1, 2: [True, None, 1.0]}");
    expect(pyRepr(new PyTuple([1n]))).toBe('(1,)');
    expect(pyRepr(new PyTuple([]))).toBe('()');
    expect(pyRepr(new PySet())).toBe('set()');
    expect(pyRepr(new PySet(['x']))).toBe("{'x'}");
    expect(pyRepr([PyEllipsis, 'a'])).toBe("[Ellipsis, 'a']");
  });

  it('should leave strings unquoted only in str()', () => {
    expect(pyStr('a')).toBe('a');
    expect(pyStr(['a'])).toBe("['a']");
    expect(pyStr(null)).toBe('None');
  });
});

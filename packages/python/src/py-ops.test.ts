import { describe, expect, it } from 'vitest';
import { PyException } from './py-exception';
import {
  pyAdd,
  pyFloat,
  pyFloorDiv,
  pyGetItem,
  pyInt,
  pyLen,
  pyLower,
  pyLt,
  pyMod,
  pyMul,
  pyNeg,
  pyPow,
  pySplitLines,
  pySplitWhitespace,
  pyTrueDiv,
} from './py-ops';
import { PyTuple, type PyValue } from './py-value';

function raised(run: () => unknown): string {
  try {
    run();
  } catch (error) {
    if (PyException.isInstance(error))
      return `${error.pyType}: ${error.message}`;
    throw error;
  }
  throw new Error('expected a Python exception');
}

describe('Python operators', () => {
  it('should keep int arithmetic in ints and promote with floats', () => {
    expect(pyAdd(1n, 2n)).toBe(3n);
    expect(pyAdd(1n, 2.5)).toBe(3.5);
    expect(pyAdd(true, 1n)).toBe(2n);
    expect(pyTrueDiv(7n, 2n)).toBe(3.5);
    expect(pyFloorDiv(-7n, 2n)).toBe(-4n);
    expect(pyMod(-7n, 3n)).toBe(2n);
    expect(pyMod(-7.5, 2n)).toBe(0.5);
    expect(pyMul('ab', 2n)).toBe('abab');
    expect(pyMul(new PyTuple([1n, 2n]), 2n)).toEqual(
      new PyTuple([1n, 2n, 1n, 2n]),
    );
    expect(pyMul(true, new PyTuple([1n]))).toEqual(new PyTuple([1n]));
    expect(pyPow(2n, 10n)).toBe(1024n);
  });

  // Messages printed by CPython 3.11.
  it.each<[string, () => PyValue | boolean | string | bigint | number]>([
    [
      'TypeError: can only concatenate str (not "int") to str',
      () => pyAdd('a', 1n),
    ],
    [
      "TypeError: unsupported operand type(s) for +: 'int' and 'str'",
      () => pyAdd(1n, 'a'),
    ],
    [
      'TypeError: can only concatenate list (not "int") to list',
      () => pyAdd([1n], 1n),
    ],
    ['ZeroDivisionError: division by zero', () => pyTrueDiv(1n, 0n)],
    ['ZeroDivisionError: float division by zero', () => pyTrueDiv(1.0, 0n)],
    [
      "TypeError: can't multiply sequence by non-int of type 'float'",
      () => pyMul('a', 2.0),
    ],
    [
      "TypeError: can't multiply sequence by non-int of type 'float'",
      () => pyMul(new PyTuple([1n]), 2.0),
    ],
    [
      "TypeError: can't multiply sequence by non-int of type 'float'",
      () => pyMul(2.5, new PyTuple([1n])),
    ],
    [
      "TypeError: can't multiply sequence by non-int of type 'tuple'",
      () => pyMul([1n], new PyTuple([1n])),
    ],
    [
      "ValueError: could not convert string to float: 'abc'",
      () => pyFloat('abc'),
    ],
    [
      "ValueError: invalid literal for int() with base 10: '1.5'",
      () => pyInt('1.5'),
    ],
    [
      "TypeError: float() argument must be a string or a real number, not 'list'",
      () => pyFloat([1n]),
    ],
    [
      'TypeError: list indices must be integers or slices, not str',
      () => pyGetItem([1n], 'a'),
    ],
    [
      "TypeError: string indices must be integers, not 'str'",
      () => pyGetItem('ab', 'a'),
    ],
    ["TypeError: 'int' object is not subscriptable", () => pyGetItem(5n, 0n)],
    ['IndexError: list index out of range', () => pyGetItem([1n], 5n)],
    [
      "AttributeError: 'int' object has no attribute 'lower'",
      () => pyLower(5n),
    ],
    [
      "TypeError: '<' not supported between instances of 'str' and 'int'",
      () => pyLt('a', 1n),
    ],
    ["TypeError: object of type 'int' has no len()", () => pyLen(5n)],
    ["TypeError: bad operand type for unary -: 'str'", () => pyNeg('a')],
    [
      'ZeroDivisionError: 0.0 cannot be raised to a negative power',
      () => pyPow(0n, -1n),
    ],
  ])('should raise %s', (expected, run) => {
    expect(raised(run)).toBe(expected);
  });

  it('should split like str.splitlines() and str.split()', () => {
    expect(pySplitLines('a\nb\r\nc\u000bd\u0085e\u2028f\n')).toEqual([
      'a',
      'b',
      'c',
      'd',
      'e',
      'f',
    ]);
    expect(pySplitWhitespace(' a\tb\u001cc  ')).toEqual(['a', 'b', 'c']);
  });
});

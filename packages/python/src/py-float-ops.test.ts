import { describe, expect, it } from 'vitest';
import { PyComplex } from './py-complex';
import { PyException } from './py-exception';
import { pyJsonDumps } from './py-json';
import {
  pyAdd,
  pyFloat,
  pyIntTrueDiv,
  pyMul,
  pyPow,
  pySub,
  pyTrueDiv,
} from './py-ops';
import { pyRepr } from './py-repr';
import { PyDict } from './py-value';

// Expected values printed by CPython 3.11.

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

const huge = 10n ** 400n;

describe('int true division', () => {
  it.each([
    [2n ** 53n + 1n, 1n, '9007199254740992.0'],
    [10n ** 30n + 1n, 10n ** 10n, '1e+20'],
    [1n, 3n, '0.3333333333333333'],
    [2n ** 1100n, 3n ** 600n, '7.24840412057269e+44'],
    [1n, 2n ** 1074n, '5e-324'],
    [3n, 2n ** 1075n, '1e-323'],
    [1n, 2n ** 1076n, '0.0'],
    [2n ** 53n + 1n, 2n ** 1127n, '5e-324'],
    [0n, -5n, '-0.0'],
    [huge, 10n ** 399n, '10.0'],
    [-1n, 3n * 2n ** 1070n, '-2.5e-323'],
  ])('should round %s / %s correctly', (a, b, expected) => {
    expect(pyRepr(pyIntTrueDiv(a, b))).toBe(expected);
    expect(pyRepr(pyTrueDiv(a, b))).toBe(expected);
  });

  it('should raise when the quotient does not fit a float', () => {
    expect(raised(() => pyTrueDiv(2n ** 1100n, 3n))).toBe(
      'OverflowError: integer division result too large for a float',
    );
  });
});

describe('int to float conversion in mixed arithmetic', () => {
  it('should raise OverflowError for ints beyond the float range', () => {
    const message = 'OverflowError: int too large to convert to float';
    expect(raised(() => pyAdd(huge, 0.5))).toBe(message);
    expect(raised(() => pySub(0.5, huge))).toBe(message);
    expect(raised(() => pyMul(huge, 0.01))).toBe(message);
    expect(raised(() => pyTrueDiv(huge, 2.0))).toBe(message);
    expect(raised(() => pyFloat(huge))).toBe(message);
    expect(pyAdd(huge, 1n)).toBe(huge + 1n);
  });
});

describe('pyPow', () => {
  it('should follow float_pow special cases', () => {
    const cases: [unknown, unknown, string][] = [
      [2, 0.5, '1.4142135623730951'],
      [1, Infinity, '1.0'],
      [-1n, -Infinity, '1.0'],
      [-2, Infinity, 'inf'],
      [-Infinity, 3n, '-inf'],
      [-Infinity, -3n, '-0.0'],
      [-Infinity, 2n, 'inf'],
      [-0, 3n, '-0.0'],
      [2n, -2n, '0.25'],
      [-2n, -3n, '-0.125'],
    ];
    for (const [a, b, expected] of cases) {
      expect(pyRepr(pyPow(a as never, b as never))).toBe(expected);
    }
  });

  it('should give a complex number for a negative base and a fractional exponent', () => {
    expect(pyRepr(pyPow(-2, 0.5))).toBe(
      '(8.659560562354934e-17+1.4142135623730951j)',
    );
    expect(pyRepr(pyPow(-8n, 1 / 3))).toBe(
      '(1.0000000000000002+1.7320508075688772j)',
    );
    expect(raised(() => pyPow(-1e308, 1.5))).toBe(
      'OverflowError: complex exponentiation',
    );
    expect(raised(() => pyPow(0, -1n))).toBe(
      'ZeroDivisionError: 0.0 cannot be raised to a negative power',
    );
  });
});

describe('PyComplex', () => {
  it('should print like CPython', () => {
    expect(new PyComplex(-0, 1).pyRepr()).toBe('(-0+1j)');
    expect(new PyComplex(0, -1).pyRepr()).toBe('-1j');
    expect(new PyComplex(1e16, 1e-5).pyRepr()).toBe('(1e+16+1e-05j)');
    expect(new PyComplex(Infinity, NaN).pyRepr()).toBe('(inf+nanj)');
    expect(new PyComplex(-1.5, -0).pyRepr()).toBe('(-1.5-0j)');
    expect(new PyComplex(2, 0).pyEquals(2n)).toBe(true);
  });
});

describe('int string conversion limit', () => {
  it('should refuse more than 4300 digits in repr and json.dumps', () => {
    const message =
      'ValueError: Exceeds the limit (4300 digits) for integer string conversion; use sys.set_int_max_str_digits() to increase the limit';
    expect(pyRepr(10n ** 4300n - 1n)).toHaveLength(4300);
    expect(raised(() => pyRepr(10n ** 4300n))).toBe(message);
    expect(raised(() => pyRepr(-(10n ** 4300n)))).toBe(message);
    expect(
      raised(() => pyJsonDumps(PyDict.fromObject({ result: 10n ** 5000n }))),
    ).toBe(message);
  });
});

describe('float pow rounding', () => {
  it('should round like the C library where V8 is one unit off', () => {
    expect(pyRepr(pyPow(2n, -0.5))).toBe('0.7071067811865476');
    expect(pyRepr(pyPow(2.5, 0.3333333333333333))).toBe('1.3572088082974532');
    expect(pyRepr(pyPow(-0.5, -0.5))).toBe(
      '(8.659560562354934e-17-1.4142135623730951j)',
    );
    expect(pyRepr(pyPow(4.0, 0.5))).toBe('2.0');
    expect(pyRepr(pyPow(2.25, 1.5))).toBe('3.375');
    expect(pyRepr(pyPow(0.5, 1074n))).toBe('5e-324');
    expect(pyRepr(pyPow(10.0, -2n))).toBe('0.01');
    // V8's Math.sin gives 0.7396331848736504 for this phase.
    expect(pyRepr(pyPow(-1n, -21.265000988444307))).toBe(
      '(-0.6730102167379487+0.7396331848736503j)',
    );
  });
});

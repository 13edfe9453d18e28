import { PyException, PyObject, pyTypeName, type PyValue } from '@seal/python';

/**
 * Just enough of Python's `decimal` module for BFCL's `MathAPI.square_root`:
 * `getcontext().prec = precision; Decimal(number).sqrt()` and the `repr` of
 * the result. Arithmetic follows the General Decimal Arithmetic
 * specification that CPython's `decimal` implements: `Decimal(float)` is the
 * exact binary value, and `sqrt` rounds half to even to the context
 * precision, keeping the ideal exponent `floor(exp / 2)` when the root is
 * exact.
 */

/** CPython's `decimal.MAX_PREC` on 64-bit builds. */
const maxPrec = 999_999_999_999_999_999n;
/** Inexact roots beyond this many digits are refused as a MemoryError (CPython's allocation fails too). */
const maxWorkingDigits = 100_000;

/** A finite decimal `(-1)^sign * coefficient * 10^exponent`, or an infinity. */
export type DecimalValue =
  | {
      readonly kind: 'finite';
      readonly sign: 0 | 1;
      readonly coefficient: bigint;
      readonly exponent: number;
    }
  | { readonly kind: 'infinity'; readonly sign: 0 | 1 };

/** The `decimal` module's current context: only the precision matters here. */
export class DecimalContext extends PyObject {
  readonly pyTypeName = 'Context';
  /** `getcontext().prec`. */
  prec = 28;

  pyRepr(): string {
    return `Context(prec=${this.prec}, rounding=ROUND_HALF_EVEN, Emin=-999999, Emax=999999, capitals=1, clamp=0, flags=[], traps=[InvalidOperation, DivisionByZero, Overflow])`;
  }

  /** `getcontext().prec = value`, with CPython's errors. */
  setPrec(value: PyValue): void {
    if (typeof value !== 'bigint' && typeof value !== 'boolean') {
      throw PyException.typeError(
        `'${pyTypeName(value)}' object cannot be interpreted as an integer`,
      );
    }
    const prec = typeof value === 'boolean' ? BigInt(value) : value;
    if (prec > 2n ** 63n - 1n || prec < -(2n ** 63n)) {
      throw new PyException({
        pyType: 'OverflowError',
        message: 'Python int too large to convert to C ssize_t',
      });
    }
    if (prec < 1n || prec > maxPrec)
      throw PyException.valueError('valid range for prec is [1, MAX_PREC]');
    this.prec = Number(prec);
  }
}

function digitCount(n: bigint): number {
  return n === 0n ? 1 : n.toString().length;
}

/** `Decimal(value)` for an int, bool or float: exact. */
export function decimalFrom(value: bigint | boolean | number): DecimalValue {
  if (typeof value === 'boolean')
    return {
      kind: 'finite',
      sign: 0,
      coefficient: value ? 1n : 0n,
      exponent: 0,
    };
  if (typeof value === 'bigint') {
    return {
      kind: 'finite',
      sign: value < 0n ? 1 : 0,
      coefficient: value < 0n ? -value : value,
      exponent: 0,
    };
  }
  const sign = value < 0 || Object.is(value, -0) ? 1 : 0;
  if (!Number.isFinite(value)) {
    if (Number.isNaN(value)) throw new Error('Decimal(nan) is not needed here');
    return { kind: 'infinity', sign };
  }
  if (value === 0)
    return { kind: 'finite', sign, coefficient: 0n, exponent: 0 };
  // value = numerator / 2^k in lowest terms = numerator * 5^k / 10^k.
  const view = new DataView(new ArrayBuffer(8));
  view.setFloat64(0, Math.abs(value));
  const bits = view.getBigUint64(0);
  const biased = Number((bits >> 52n) & 0x7ffn);
  const fraction = bits & ((1n << 52n) - 1n);
  let man = biased === 0 ? fraction : fraction | (1n << 52n);
  let exp = (biased === 0 ? 1 : biased) - 1075;
  while ((man & 1n) === 0n) {
    man >>= 1n;
    exp += 1;
  }
  if (exp >= 0)
    return {
      kind: 'finite',
      sign,
      coefficient: man << BigInt(exp),
      exponent: 0,
    };
  return {
    kind: 'finite',
    sign,
    coefficient: man * 5n ** BigInt(-exp),
    exponent: exp,
  };
}

function isqrt(n: bigint): bigint {
  if (n < 2n) return n;
  let x = 1n << BigInt(Math.ceil(n.toString(2).length / 2));
  for (;;) {
    const y = (x + n / x) >> 1n;
    if (y >= x) return x;
    x = y;
  }
}

/** `Decimal.sqrt()` in a context of `prec` digits (the argument is not negative). */
export function decimalSqrt(value: DecimalValue, prec: number): DecimalValue {
  if (value.kind === 'infinity') return value;
  const { coefficient, exponent } = value;
  const ideal = Math.floor(exponent / 2);
  // sqrt(-0) is -0, at the ideal exponent.
  if (coefficient === 0n)
    return {
      kind: 'finite',
      sign: value.sign,
      coefficient: 0n,
      exponent: ideal,
    };
  // An exact root that fits is the answer at any precision (CPython's
  // libmpdec finds it even with a precision far too large to allocate).
  const radicand = exponent % 2 === 0 ? coefficient : coefficient * 10n;
  const exactRoot = isqrt(radicand);
  if (exactRoot * exactRoot === radicand && digitCount(exactRoot) <= prec) {
    return { kind: 'finite', sign: 0, coefficient: exactRoot, exponent: ideal };
  }
  if (prec > maxWorkingDigits)
    throw new PyException({ pyType: 'MemoryError', message: '' });
  // Choose r so that M = coefficient * 10^(exponent - 2r) has a root of
  // prec + 1 or more digits; a cut remainder makes the root inexact.
  const adjusted = exponent + digitCount(coefficient) - 1;
  const r = Math.floor((adjusted + 1) / 2) - prec - 2;
  const scale = exponent - 2 * r;
  let m: bigint;
  let remainder = false;
  if (scale >= 0) {
    m = coefficient * 10n ** BigInt(scale);
  } else {
    const divisor = 10n ** BigInt(-scale);
    m = coefficient / divisor;
    remainder = m * divisor !== coefficient;
  }
  const root = isqrt(m);
  const rootExact = !remainder && root * root === m;
  // Round the root (times 10^r) to prec digits, half to even; an inexact
  // root lies strictly above `root`, so a 5 followed by nothing rounds up.
  const rootDigits = digitCount(root);
  let drop = Math.max(rootDigits - prec, 0);
  let kept = root / 10n ** BigInt(drop);
  const rest = root - kept * 10n ** BigInt(drop);
  if (drop > 0) {
    const half = 5n * 10n ** BigInt(drop - 1);
    if (rest > half || (rest === half && (!rootExact || (kept & 1n) === 1n)))
      kept += 1n;
    if (digitCount(kept) > prec) {
      kept /= 10n;
      drop += 1;
    }
  }
  const resultExponent = r + drop;
  if (rootExact && rest === 0n) {
    // Exact: use the ideal exponent when the coefficient then fits.
    const atIdeal =
      resultExponent >= ideal
        ? kept * 10n ** BigInt(resultExponent - ideal)
        : kept / 10n ** BigInt(ideal - resultExponent);
    if (digitCount(atIdeal) <= prec)
      return { kind: 'finite', sign: 0, coefficient: atIdeal, exponent: ideal };
  }
  return {
    kind: 'finite',
    sign: 0,
    coefficient: kept,
    exponent: resultExponent,
  };
}

/** `str(Decimal)`: the specification's to-scientific-string. */
export function decimalToString(value: DecimalValue): string {
  const sign = value.sign ? '-' : '';
  if (value.kind === 'infinity') return `${sign}Infinity`;
  const digits = value.coefficient.toString();
  const exponent = value.exponent;
  const adjusted = exponent + digits.length - 1;
  if (exponent <= 0 && adjusted >= -6) {
    if (exponent === 0) return sign + digits;
    const point = digits.length + exponent;
    if (point > 0)
      return `${sign}${digits.slice(0, point)}.${digits.slice(point)}`;
    return `${sign}0.${'0'.repeat(-point)}${digits}`;
  }
  const mantissa =
    digits.length > 1 ? `${digits[0]}.${digits.slice(1)}` : digits;
  return `${sign}${mantissa}E${adjusted >= 0 ? '+' : '-'}${Math.abs(adjusted)}`;
}

/** A Python `decimal.Decimal`. */
export class PyDecimal extends PyObject {
  readonly pyTypeName = 'Decimal';
  readonly value: DecimalValue;

  constructor(value: DecimalValue) {
    super();
    this.value = value;
  }

  pyRepr(): string {
    return `Decimal('${decimalToString(this.value)}')`;
  }

  override pyStr(): string {
    return decimalToString(this.value);
  }

  override pyEquals(other: PyValue): boolean {
    const mine = this.value;
    if (other instanceof PyDecimal) {
      const theirs = other.value;
      if (mine.kind === 'infinity' || theirs.kind === 'infinity') {
        return mine.kind === theirs.kind && mine.sign === theirs.sign;
      }
      return compareFinite(mine, theirs) === 0;
    }
    if (typeof other === 'bigint' || typeof other === 'boolean') {
      return (
        mine.kind === 'finite' &&
        compareFinite(mine, decimalFrom(other) as FiniteDecimal) === 0
      );
    }
    if (typeof other === 'number') {
      if (Number.isNaN(other)) return false;
      const theirs = decimalFrom(other);
      if (mine.kind === 'infinity' || theirs.kind === 'infinity') {
        return mine.kind === theirs.kind && mine.sign === theirs.sign;
      }
      return compareFinite(mine, theirs) === 0;
    }
    return false;
  }
}

type FiniteDecimal = Extract<DecimalValue, { kind: 'finite' }>;

function compareFinite(a: FiniteDecimal, b: FiniteDecimal): number {
  const exponent = Math.min(a.exponent, b.exponent);
  const x =
    (a.sign ? -a.coefficient : a.coefficient) *
    10n ** BigInt(a.exponent - exponent);
  const y =
    (b.sign ? -b.coefficient : b.coefficient) *
    10n ** BigInt(b.exponent - exponent);
  return x < y ? -1 : x > y ? 1 : 0;
}

import { pyCompare, pyEquals } from './py-compare';
import { PyComplex } from './py-complex';
import {
  correctlyRoundedCos,
  correctlyRoundedPow,
  correctlyRoundedSin,
} from './py-libm';
import { PyException } from './py-exception';
import { floatRepr, pyRepr, pyStr } from './py-repr';
import {
  PyDict,
  PySet,
  PyTuple,
  pyTypeName,
  type PyKey,
  type PyValue,
} from './py-value';

/**
 * Python operators with CPython's type rules and error messages, for porting
 * Python code whose arguments may be of any type (model output is untrusted):
 * `int` op `int` stays `int`, anything with a `float` becomes `float`, `bool`
 * counts as `int`, and mismatched types raise the same `TypeError` text.
 */

type Numeric = bigint | number;

function numeric(value: PyValue): Numeric | undefined {
  if (typeof value === 'bigint' || typeof value === 'number') return value;
  if (typeof value === 'boolean') return value ? 1n : 0n;
  return undefined;
}

function unsupported(operator: string, a: PyValue, b: PyValue): PyException {
  return PyException.typeError(
    `unsupported operand type(s) for ${operator}: '${pyTypeName(a)}' and '${pyTypeName(b)}'`,
  );
}

/**
 * `float(int)` as CPython converts an int operand: correctly rounded, and
 * `OverflowError` when it does not fit a double.
 */
export function pyIntToFloat(value: bigint): number {
  const result = Number(value);
  if (!Number.isFinite(result)) {
    throw new PyException({
      pyType: 'OverflowError',
      message: 'int too large to convert to float',
    });
  }
  return result;
}

function toFloat(value: Numeric): number {
  return typeof value === 'bigint' ? pyIntToFloat(value) : value;
}

function binaryNumeric(
  a: PyValue,
  b: PyValue,
  onInts: (x: bigint, y: bigint) => PyValue,
  onFloats: (x: number, y: number) => PyValue,
): PyValue | undefined {
  const x = numeric(a);
  const y = numeric(b);
  if (x === undefined || y === undefined) return undefined;
  if (typeof x === 'bigint' && typeof y === 'bigint') return onInts(x, y);
  return onFloats(toFloat(x), toFloat(y));
}

function bitLength(value: bigint): number {
  return value === 0n ? 0 : value.toString(2).length;
}

/** `x * 2**exponent` without intermediate overflow or underflow (exact when the result is normal). */
function scaleByPowerOfTwo(x: number, exponent: number): number {
  let result = x;
  let n = exponent;
  while (n > 1000) {
    result *= 2 ** 1000;
    n -= 1000;
  }
  while (n < -1000) {
    result *= 2 ** -1000;
    n += 1000;
  }
  return result * 2 ** n;
}

/**
 * `numerator / denominator` for ints, correctly rounded to a double (ties to
 * even, subnormals included) as CPython's `long_true_divide` does;
 * `OverflowError` when the quotient does not fit.
 */
export function pyIntTrueDiv(numerator: bigint, denominator: bigint): number {
  if (denominator === 0n) throw PyException.zeroDivision('division by zero');
  const negative = numerator < 0n !== denominator < 0n;
  const num = numerator < 0n ? -numerator : numerator;
  const den = denominator < 0n ? -denominator : denominator;
  if (num === 0n) return negative ? -0 : 0;
  // Scale to a quotient of about 64 bits; a sticky low bit keeps the
  // rounding of the final 53 bits exact.
  const shift = 64 - (bitLength(num) - bitLength(den));
  const scaledNum = shift >= 0 ? num << BigInt(shift) : num;
  const scaledDen = shift >= 0 ? den : den << BigInt(-shift);
  let quotient = scaledNum / scaledDen;
  if (quotient * scaledDen !== scaledNum) quotient |= 1n;
  const exponent = bitLength(quotient) - 1 - shift;
  let result: number;
  if (exponent >= -1022) {
    result = scaleByPowerOfTwo(Number(quotient), -shift);
  } else {
    // Subnormal: round once, at the fixed quantum 2**-1074.
    const scaled = num << 1074n;
    let units = scaled / den;
    const remainder2 = (scaled - units * den) * 2n;
    if (remainder2 > den || (remainder2 === den && (units & 1n) === 1n))
      units += 1n;
    result = scaleByPowerOfTwo(Number(units), -1074);
  }
  if (!Number.isFinite(result)) {
    throw new PyException({
      pyType: 'OverflowError',
      message: 'integer division result too large for a float',
    });
  }
  return negative ? -result : result;
}

/** `a + b`. */
export function pyAdd(a: PyValue, b: PyValue): PyValue {
  const result = binaryNumeric(
    a,
    b,
    (x, y) => x + y,
    (x, y) => x + y,
  );
  if (result !== undefined) return result;
  if (typeof a === 'string') {
    if (typeof b === 'string') return a + b;
    throw PyException.typeError(
      `can only concatenate str (not "${pyTypeName(b)}") to str`,
    );
  }
  if (Array.isArray(a)) {
    if (Array.isArray(b)) return [...a, ...b];
    throw PyException.typeError(
      `can only concatenate list (not "${pyTypeName(b)}") to list`,
    );
  }
  if (a instanceof PyTuple) {
    if (b instanceof PyTuple) return new PyTuple([...a.items, ...b.items]);
    throw PyException.typeError(
      `can only concatenate tuple (not "${pyTypeName(b)}") to tuple`,
    );
  }
  throw unsupported('+', a, b);
}

/** `a - b`. */
export function pySub(a: PyValue, b: PyValue): PyValue {
  const result = binaryNumeric(
    a,
    b,
    (x, y) => x - y,
    (x, y) => x - y,
  );
  if (result !== undefined) return result;
  if (a instanceof PySet && b instanceof PySet) {
    return new PySet([...a].filter((item) => !b.has(item)));
  }
  throw unsupported('-', a, b);
}

/** `a * b`, including sequence repetition. */
export function pyMul(a: PyValue, b: PyValue): PyValue {
  const result = binaryNumeric(
    a,
    b,
    (x, y) => x * y,
    (x, y) => x * y,
  );
  if (result !== undefined) return result;
  const repeat = (sequence: PyValue, count: PyValue): PyValue | undefined => {
    const n =
      typeof count === 'bigint'
        ? count
        : typeof count === 'boolean'
          ? BigInt(count)
          : undefined;
    if (n === undefined) return undefined;
    const times = n < 0n ? 0 : Number(n);
    if (typeof sequence === 'string') return sequence.repeat(times);
    if (Array.isArray(sequence))
      return Array.from({ length: times }, () => sequence).flat(1);
    if (sequence instanceof PyTuple) {
      return new PyTuple(
        Array.from({ length: times }, () => sequence.items).flat(1),
      );
    }
    return undefined;
  };
  const repeated = repeat(a, b) ?? repeat(b, a);
  if (repeated !== undefined) return repeated;
  const isSequence = (value: PyValue): boolean =>
    typeof value === 'string' ||
    Array.isArray(value) ||
    value instanceof PyTuple;
  if (isSequence(a) || isSequence(b)) {
    const other = isSequence(a) ? b : a;
    throw PyException.typeError(
      `can't multiply sequence by non-int of type '${pyTypeName(other)}'`,
    );
  }
  throw unsupported('*', a, b);
}

/** `a / b` (true division, always a float). */
export function pyTrueDiv(a: PyValue, b: PyValue): PyValue {
  const x = numeric(a);
  const y = numeric(b);
  if (x === undefined || y === undefined) throw unsupported('/', a, b);
  if (typeof x === 'bigint' && typeof y === 'bigint') return pyIntTrueDiv(x, y);
  const fx = toFloat(x);
  const fy = toFloat(y);
  if (fy === 0) throw PyException.zeroDivision('float division by zero');
  return fx / fy;
}

/** `a // b`. */
export function pyFloorDiv(a: PyValue, b: PyValue): PyValue {
  const x = numeric(a);
  const y = numeric(b);
  if (x === undefined || y === undefined) throw unsupported('//', a, b);
  if (typeof x === 'bigint' && typeof y === 'bigint') {
    if (y === 0n)
      throw PyException.zeroDivision('integer division or modulo by zero');
    const q = x / y;
    return x % y !== 0n && x < 0n !== y < 0n ? q - 1n : q;
  }
  const fx = toFloat(x);
  const fy = toFloat(y);
  if (fy === 0) throw PyException.zeroDivision('float floor division by zero');
  return Math.floor(fx / fy);
}

/** `a % b` (the result takes the sign of `b`). */
export function pyMod(a: PyValue, b: PyValue): PyValue {
  const x = numeric(a);
  const y = numeric(b);
  if (x === undefined || y === undefined) throw unsupported('%', a, b);
  if (typeof x === 'bigint' && typeof y === 'bigint') {
    if (y === 0n)
      throw PyException.zeroDivision('integer division or modulo by zero');
    const r = x % y;
    return r !== 0n && r < 0n !== y < 0n ? r + y : r;
  }
  const fx = toFloat(x);
  const fy = toFloat(y);
  if (fy === 0) throw PyException.zeroDivision('float modulo');
  const r = fx % fy;
  return r !== 0 && r < 0 !== fy < 0 ? r + fy : r;
}

/** `a ** b`: int powers stay exact; otherwise CPython's `float_pow`. */
export function pyPow(a: PyValue, b: PyValue): PyValue {
  const x = numeric(a);
  const y = numeric(b);
  if (x === undefined || y === undefined)
    throw unsupported('** or pow()', a, b);
  if (typeof x === 'bigint' && typeof y === 'bigint' && y >= 0n) {
    const magnitude = x < 0n ? -x : x;
    // CPython computes any size; refuse only what could not be held at all.
    if (magnitude > 1n && BigInt(bitLength(magnitude) - 1) * y > 1n << 26n) {
      throw new PyException({ pyType: 'MemoryError', message: '' });
    }
    return x ** y;
  }
  // A negative int exponent also goes through float_pow, like CPython.
  return floatPow(toFloat(x), toFloat(y));
}

function isOddInteger(value: number): boolean {
  return Math.abs(value) % 2 === 1;
}

const outOfRange = "(34, 'Numerical result out of range')";

/** CPython's `float_pow`: its special cases first, then C `pow` (correctly rounded, as glibc's). */
function floatPow(base: number, exponent: number): PyValue {
  if (exponent === 0) return 1;
  if (Number.isNaN(base)) return base;
  if (Number.isNaN(exponent)) return base === 1 ? 1 : exponent;
  if (!Number.isFinite(exponent)) {
    const magnitude = Math.abs(base);
    if (magnitude === 1) return 1;
    return exponent > 0 === magnitude > 1 ? Math.abs(exponent) : 0;
  }
  if (!Number.isFinite(base)) {
    const odd = isOddInteger(exponent);
    if (exponent > 0) return odd ? base : Math.abs(base);
    return odd ? (base < 0 ? -0 : 0) : 0;
  }
  if (base === 0) {
    if (exponent < 0)
      throw PyException.zeroDivision(
        '0.0 cannot be raised to a negative power',
      );
    return isOddInteger(exponent) ? base : 0;
  }
  let magnitude = base;
  let negate = false;
  if (base < 0) {
    // A negative base with a fractional exponent gives a complex number.
    if (exponent !== Math.floor(exponent))
      return complexPowOfReal(base, exponent);
    magnitude = -base;
    negate = isOddInteger(exponent);
  }
  if (magnitude === 1) return negate ? -1 : 1;
  const result = correctlyRoundedPow(magnitude, exponent);
  if (!Number.isFinite(result))
    throw new PyException({ pyType: 'OverflowError', message: outOfRange });
  return negate ? -result : result;
}

/** `complex(base) ** complex(exponent)` for a negative real base (CPython's `_Py_c_pow`). */
function complexPowOfReal(base: number, exponent: number): PyComplex {
  const length = correctlyRoundedPow(Math.abs(base), exponent);
  const phase = Math.atan2(0, base) * exponent;
  const real = length * correctlyRoundedCos(phase);
  const imag = length * correctlyRoundedSin(phase);
  if (!Number.isFinite(real) || !Number.isFinite(imag)) {
    throw new PyException({
      pyType: 'OverflowError',
      message: 'complex exponentiation',
    });
  }
  return new PyComplex(real, imag);
}

/** `-a`. */
export function pyNeg(a: PyValue): PyValue {
  const x = numeric(a);
  if (x === undefined)
    throw PyException.typeError(
      `bad operand type for unary -: '${pyTypeName(a)}'`,
    );
  return typeof x === 'bigint' ? -x : -x;
}

/** `abs(a)`. */
export function pyAbs(a: PyValue): PyValue {
  const x = numeric(a);
  if (x === undefined)
    throw PyException.typeError(
      `bad operand type for abs(): '${pyTypeName(a)}'`,
    );
  return typeof x === 'bigint' ? (x < 0n ? -x : x) : Math.abs(x);
}

/** `a < b`. */
export function pyLt(a: PyValue, b: PyValue): boolean {
  return pyCompare(a, b, '<') < 0;
}
/** `a <= b`. */
export function pyLe(a: PyValue, b: PyValue): boolean {
  return pyCompare(a, b, '<=') <= 0;
}
/** `a > b`. */
export function pyGt(a: PyValue, b: PyValue): boolean {
  return pyCompare(a, b, '>') > 0;
}
/** `a >= b`. */
export function pyGe(a: PyValue, b: PyValue): boolean {
  return pyCompare(a, b, '>=') >= 0;
}

/** `float(value)` with CPython's conversions and errors. */
export function pyFloat(value: PyValue): number {
  if (typeof value === 'number') return value;
  if (typeof value === 'bigint') return pyIntToFloat(value);
  if (typeof value === 'boolean') return value ? 1 : 0;
  if (typeof value === 'string') {
    const text = value
      .trim()
      .replace(/_/g, (m, offset: number, s: string) =>
        /\d/.test(s[offset - 1] ?? '') && /\d/.test(s[offset + 1] ?? '')
          ? ''
          : m,
      );
    const lowered = text.toLowerCase();
    if (/^[+-]?(inf|infinity)$/.test(lowered))
      return lowered.startsWith('-') ? -Infinity : Infinity;
    if (/^[+-]?nan$/.test(lowered)) return NaN;
    if (/^[+-]?(\d+\.?\d*|\.\d+)(e[+-]?\d+)?$/i.test(text)) return Number(text);
    throw PyException.valueError(
      `could not convert string to float: ${pyRepr(value)}`,
    );
  }
  throw PyException.typeError(
    `float() argument must be a string or a real number, not '${pyTypeName(value)}'`,
  );
}

/** `int(value)` with CPython's conversions and errors (base 10 for strings). */
export function pyInt(value: PyValue): bigint {
  if (typeof value === 'bigint') return value;
  if (typeof value === 'boolean') return value ? 1n : 0n;
  if (typeof value === 'number') {
    if (Number.isNaN(value))
      throw PyException.valueError('cannot convert float NaN to integer');
    if (!Number.isFinite(value)) {
      throw new PyException({
        pyType: 'OverflowError',
        message: 'cannot convert float infinity to integer',
      });
    }
    return BigInt(Math.trunc(value));
  }
  if (typeof value === 'string') {
    const text = value.trim();
    if (/^[+-]?\d(?:_?\d)*$/.test(text)) return BigInt(text.replace(/_/g, ''));
    throw PyException.valueError(
      `invalid literal for int() with base 10: ${pyRepr(value)}`,
    );
  }
  throw PyException.typeError(
    `int() argument must be a string, a bytes-like object or a real number, not '${pyTypeName(value)}'`,
  );
}

/** `len(value)`. */
export function pyLen(value: PyValue): bigint {
  if (typeof value === 'string') return BigInt([...value].length);
  if (Array.isArray(value)) return BigInt(value.length);
  if (value instanceof PyTuple) return BigInt(value.length);
  if (value instanceof PyDict || value instanceof PySet)
    return BigInt(value.size);
  throw PyException.typeError(
    `object of type '${pyTypeName(value)}' has no len()`,
  );
}

/** `container[key]` for dicts, lists, tuples and strings. */
export function pyGetItem(container: PyValue, key: PyValue): PyValue {
  if (container instanceof PyDict) {
    if (Array.isArray(key) || key instanceof PyDict || key instanceof PySet) {
      throw PyException.typeError(`unhashable type: '${pyTypeName(key)}'`);
    }
    const value = container.get(key as PyKey);
    if (value === undefined) throw PyException.keyError(key);
    return value;
  }
  const sequence = Array.isArray(container)
    ? container
    : container instanceof PyTuple
      ? container.items
      : undefined;
  if (sequence !== undefined || typeof container === 'string') {
    const kind =
      typeof container === 'string' ? 'string' : pyTypeName(container);
    if (typeof key !== 'bigint' && typeof key !== 'boolean') {
      throw PyException.typeError(
        kind === 'string'
          ? `string indices must be integers, not '${pyTypeName(key)}'`
          : `${kind} indices must be integers or slices, not ${pyTypeName(key)}`,
      );
    }
    const items = typeof container === 'string' ? [...container] : sequence!;
    let index = Number(key);
    if (index < 0) index += items.length;
    if (index < 0 || index >= items.length) {
      throw PyException.indexError(`${kind} index out of range`);
    }
    return items[index]!;
  }
  throw PyException.typeError(
    `'${pyTypeName(container)}' object is not subscriptable`,
  );
}

/** `dict.get(key, default)`; raises for unhashable keys like Python. */
export function pyDictGet(
  dict: PyDict,
  key: PyValue,
  fallback: PyValue = null,
): PyValue {
  if (Array.isArray(key) || key instanceof PyDict || key instanceof PySet) {
    throw PyException.typeError(`unhashable type: '${pyTypeName(key)}'`);
  }
  const value = dict.get(key as PyKey);
  return value === undefined ? fallback : value;
}

/** `AttributeError: 'T' object has no attribute 'name'`. */
export function noAttribute(value: PyValue, name: string): PyException {
  return PyException.attributeError(
    `'${pyTypeName(value)}' object has no attribute '${name}'`,
  );
}

/** Requires a `str` for a str method call, else raises the AttributeError Python would. */
export function expectStr(value: PyValue, method: string): string {
  if (typeof value !== 'string') throw noAttribute(value, method);
  return value;
}

/** `str.lower()` with Python's full Unicode lowercasing. */
export function pyLower(value: PyValue): string {
  return expectStr(value, 'lower').toLowerCase();
}

/** `str.upper()`. */
export function pyUpper(value: PyValue): string {
  return expectStr(value, 'upper').toUpperCase();
}

/** `str.split()` with no arguments: runs of whitespace, no empty strings. */
export function pySplitWhitespace(value: string): string[] {
  return (
    value
      // eslint-disable-next-line no-control-regex -- Python's whitespace set includes \x1c-\x1f.
      .split(/[\s\u001c-\u001f\u0085]+/u)
      .filter((part) => part.length > 0)
  );
}

/** `str.splitlines()`: every line boundary Python recognises, no trailing empty line. */
export function pySplitLines(value: string): string[] {
  const lines = value.split(
    // eslint-disable-next-line no-control-regex -- Python's line boundaries include \x1c-\x1e.
    /\r\n|[\n\r\v\f\u001c\u001d\u001e\u0085\u2028\u2029]/u,
  );
  if (lines.length > 0 && lines[lines.length - 1] === '') lines.pop();
  return lines;
}

/** The text of an f-string replacement field `{value}` (= `format(value, '')`). */
export function pyFormatValue(value: PyValue): string {
  if (typeof value === 'number') return floatRepr(value);
  return pyStr(value);
}

/** `list.index(value)` semantics: the first equal element or -1. */
export function pyIndexOf(list: readonly PyValue[], value: PyValue): number {
  return list.findIndex((item) => pyEquals(item, value));
}

/** `list.remove(value)`: removes the first equal element or raises ValueError. */
export function pyListRemove(list: PyValue[], value: PyValue): void {
  const index = pyIndexOf(list, value);
  if (index < 0) throw PyException.valueError('list.remove(x): x not in list');
  list.splice(index, 1);
}

/** Iterates a Python iterable (list, tuple, str, dict keys, set) or raises TypeError. */
export function pyIter(value: PyValue): PyValue[] {
  if (Array.isArray(value)) return value;
  if (value instanceof PyTuple) return [...value.items];
  if (typeof value === 'string') return [...value];
  if (value instanceof PyDict) return [...value.keys()];
  if (value instanceof PySet) return [...value];
  throw PyException.typeError(`'${pyTypeName(value)}' object is not iterable`);
}

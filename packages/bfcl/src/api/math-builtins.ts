import {
  PyException,
  pyAdd,
  pyIntTrueDiv,
  pyIntToFloat,
  pyIter,
  pyRoundToInt,
  pyTypeName,
  type PyValue,
} from '@seal/python';

/**
 * Python builtins that `MathAPI` relies on, with CPython 3.11's results and
 * errors: `sum`, `min`/`max`, `round` and `math.sqrt`.
 */

/**
 * `sum(iterable)`. In CPython 3.11 it adds left to right from the int `0`
 * (its fast paths give the same values as `+`; the compensated float
 * summation only arrived in 3.12).
 */
export function pySum(iterable: PyValue): PyValue {
  let total: PyValue = 0n;
  for (const item of pyIter(iterable)) total = pyAdd(total, item);
  return total;
}

/** `min(iterable)` / `max(iterable)`: the first item that no later item beats under `better`. */
export function pyExtreme(
  iterable: PyValue,
  better: (item: PyValue, current: PyValue) => boolean,
): PyValue {
  const items = pyIter(iterable);
  if (items.length === 0)
    throw PyException.valueError('min() arg is an empty sequence');
  let current = items[0] as PyValue;
  for (const item of items.slice(1)) if (better(item, current)) current = item;
  return current;
}

/** `math.sqrt(x)` for a real number. */
export function mathSqrt(value: PyValue): number {
  let x: number;
  if (typeof value === 'number') x = value;
  else if (typeof value === 'bigint') x = pyIntToFloat(value);
  else if (typeof value === 'boolean') x = value ? 1 : 0;
  else
    throw PyException.typeError(
      `must be real number, not ${pyTypeName(value)}`,
    );
  if (x < 0) throw PyException.valueError('math domain error');
  return Math.sqrt(x);
}

function isIndex(value: PyValue): value is bigint | boolean {
  return typeof value === 'bigint' || typeof value === 'boolean';
}

function notAnInteger(value: PyValue): PyException {
  return PyException.typeError(
    `'${pyTypeName(value)}' object cannot be interpreted as an integer`,
  );
}

/** `n` rounded to a multiple of `unit`, ties to even (`divmod_near`). */
function roundToMultiple(n: bigint, unit: bigint): bigint {
  let quotient = n / unit;
  let remainder = n - quotient * unit;
  if (remainder < 0n) {
    quotient -= 1n;
    remainder += unit;
  }
  const twice = remainder * 2n;
  if (twice > unit || (twice === unit && (quotient & 1n) === 1n))
    quotient += 1n;
  return quotient * unit;
}

/** The exact value of a finite float as `numerator / 2^shift`. */
function floatAsRatio(x: number): { numerator: bigint; shift: number } {
  const view = new DataView(new ArrayBuffer(8));
  view.setFloat64(0, Math.abs(x));
  const bits = view.getBigUint64(0);
  const biased = Number((bits >> 52n) & 0x7ffn);
  const fraction = bits & ((1n << 52n) - 1n);
  const man = biased === 0 ? fraction : fraction | (1n << 52n);
  const exp = (biased === 0 ? 1 : biased) - 1075;
  const signed = x < 0 ? -man : man;
  return exp >= 0
    ? { numerator: signed << BigInt(exp), shift: 0 }
    : { numerator: signed, shift: -exp };
}

/**
 * `round(x, ndigits)` for a finite float: the exact binary value rounded
 * half to even at `ndigits` decimals, then the nearest float (CPython's
 * `double_round` via dtoa).
 */
function floatRound(x: number, ndigits: number): number {
  const { numerator, shift } = floatAsRatio(x);
  let scaledNumerator = numerator;
  let denominator = 1n << BigInt(shift);
  if (ndigits >= 0) scaledNumerator *= 10n ** BigInt(ndigits);
  else denominator *= 10n ** BigInt(-ndigits);
  const units = roundToMultiple(scaledNumerator, denominator) / denominator;
  if (units === 0n) return x < 0 || Object.is(x, -0) ? -0 : 0;
  const result =
    ndigits >= 0
      ? pyIntTrueDiv(units, 10n ** BigInt(ndigits))
      : Number(units * 10n ** BigInt(-ndigits));
  if (!Number.isFinite(result)) {
    throw new PyException({
      pyType: 'OverflowError',
      message: 'rounded value too large to represent',
    });
  }
  return result;
}

/** `round(number, ndigits)` with CPython's dispatch (`__round__`) and errors. */
export function pyRoundBuiltin(number: PyValue, ndigits: PyValue): PyValue {
  if (typeof number === 'bigint' || typeof number === 'boolean') {
    const n = typeof number === 'boolean' ? (number ? 1n : 0n) : number;
    if (ndigits === null) return n;
    if (!isIndex(ndigits)) throw notAnInteger(ndigits);
    const digits = typeof ndigits === 'boolean' ? (ndigits ? 1n : 0n) : ndigits;
    if (digits >= 0n) return n;
    // A unit beyond twice |n| rounds it to 0 (a tie goes to the even 0).
    if (-digits > BigInt(n.toString().length + 1)) return 0n;
    return roundToMultiple(n, 10n ** -digits);
  }
  if (typeof number === 'number') {
    if (ndigits === null) return pyRoundToInt(number);
    if (!isIndex(ndigits)) throw notAnInteger(ndigits);
    if (!Number.isFinite(number)) return number;
    const digits = typeof ndigits === 'boolean' ? (ndigits ? 1n : 0n) : ndigits;
    // Beyond these bounds a float rounds to itself or to a signed zero.
    if (digits > 323n) return number;
    if (digits < -308n) return number < 0 || Object.is(number, -0) ? -0 : 0;
    return floatRound(number, Number(digits));
  }
  throw PyException.typeError(
    `type ${pyTypeName(number)} doesn't define __round__ method`,
  );
}

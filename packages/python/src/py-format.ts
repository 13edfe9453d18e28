import { PyException } from './py-exception';

/**
 * `format(value, '.{digits}f')` / `'%.{digits}f' % value`: correctly rounded
 * from the exact binary value, with exact ties going to the even digit, as
 * CPython does (JS `toFixed` sends ties away from zero).
 */
export function formatFixed(value: number, digits: number): string {
  if (Number.isNaN(value)) return 'nan';
  if (!Number.isFinite(value)) return value > 0 ? 'inf' : '-inf';
  if (digits < 0 || digits > 90)
    throw new RangeError(`digits out of range: ${digits}`);
  const negative = value < 0 || Object.is(value, -0);
  const magnitude = Math.abs(value);
  let text: string;
  if (magnitude >= 1e21) {
    text =
      BigInt(magnitude).toString() +
      (digits > 0 ? `.${'0'.repeat(digits)}` : '');
  } else {
    text = magnitude.toFixed(digits);
    // A tie is possible only when the exact expansion stops at digit+1 with a 5.
    const extended = magnitude.toFixed(Math.min(100, digits + 60));
    const cut = extended.indexOf('.') + digits + (digits > 0 ? 1 : 0);
    const rest = extended.slice(digits > 0 ? cut : extended.indexOf('.') + 1);
    if (/^50*$/.test(rest)) {
      // toFixed rounded the tie up; go to even instead.
      const truncated =
        digits > 0
          ? extended.slice(0, cut)
          : extended.slice(0, extended.indexOf('.'));
      const lastDigit = Number(truncated[truncated.length - 1]);
      text = lastDigit % 2 === 0 ? truncated : text;
    }
  }
  return negative ? `-${text}` : text;
}

/** `round(value, digits)` for a float: the float nearest the correctly rounded decimal. */
export function pyRound(value: number, digits: number): number {
  if (!Number.isFinite(value)) return value;
  if (digits >= 0) {
    if (digits > 300) return value;
    return Number(formatFixed(value, Math.min(digits, 90)));
  }
  const scale = 10 ** -digits;
  const scaled = value / scale;
  const rounded = roundHalfEven(scaled);
  return rounded * scale;
}

/** `round(value)` with no digits: an `int`, ties to even. */
export function pyRoundToInt(value: number): bigint {
  if (!Number.isFinite(value)) {
    throw Number.isNaN(value)
      ? PyException.valueError('cannot convert float NaN to integer')
      : new PyException({
          pyType: 'OverflowError',
          message: 'cannot convert float infinity to integer',
        });
  }
  return BigInt(roundHalfEven(value));
}

function roundHalfEven(value: number): number {
  const floor = Math.floor(value);
  const diff = value - floor;
  if (diff > 0.5) return floor + 1;
  if (diff < 0.5) return floor;
  return floor % 2 === 0 ? floor : floor + 1;
}

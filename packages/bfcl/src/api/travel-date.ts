import { PyException, pyRepr, pyTypeName, type PyValue } from '@seal/python';

/**
 * The two pieces of Python date and digit handling that `TravelAPI` relies
 * on: `datetime.strptime(value, '%Y-%m-%d')` and `str.isdigit()` followed by
 * `int()`. Both accept more than ASCII: Python's `\d` and `int()` take every
 * Unicode decimal digit (category Nd), and `isdigit()` also takes
 * superscripts and circled digits, which `int()` then rejects.
 */

const decimalDigit = /^\p{Nd}$/u;

/**
 * Code point ranges that `str.isdigit()` accepts beyond the decimal digits
 * (Unicode Numeric_Type=Digit: superscripts, subscripts, circled digits...),
 * as listed by CPython 3.11 (Unicode 14).
 */
const nonDecimalDigitRanges: readonly (readonly [number, number])[] = [
  [0x00b2, 0x00b3],
  [0x00b9, 0x00b9],
  [0x1369, 0x1371],
  [0x19da, 0x19da],
  [0x2070, 0x2070],
  [0x2074, 0x2079],
  [0x2080, 0x2089],
  [0x2460, 0x2468],
  [0x2474, 0x247c],
  [0x2488, 0x2490],
  [0x24ea, 0x24ea],
  [0x24f5, 0x24fd],
  [0x24ff, 0x24ff],
  [0x2776, 0x277e],
  [0x2780, 0x2788],
  [0x278a, 0x2792],
  [0x10a40, 0x10a43],
  [0x10e60, 0x10e68],
  [0x11052, 0x1105a],
  [0x1f100, 0x1f10a],
];

/** ASCII's only decimal digits are 0-9; the regex is for the rest of Unicode. */
function isDecimalChar(ch: string): boolean {
  const code = ch.charCodeAt(0);
  if (code < 0x80) return code >= 0x30 && code <= 0x39;
  return decimalDigit.test(ch);
}

/**
 * The value of one Unicode decimal digit. Unicode encodes every decimal digit
 * set as a run of ten code points from 0 to 9, so the value is the offset
 * from the start of the contiguous run of Nd code points, modulo 10.
 */
function decimalValue(ch: string): number {
  const code = ch.charCodeAt(0);
  if (code >= 0x30 && code <= 0x39) return code - 0x30;
  let start = ch.codePointAt(0)!;
  while (start > 0 && isDecimalChar(String.fromCodePoint(start - 1))) start--;
  return (ch.codePointAt(0)! - start) % 10;
}

/** `str.isdigit()`: non-empty and every character a digit. */
export function pyIsDigit(value: string): boolean {
  if (value.length === 0) return false;
  for (const ch of value) {
    if (isDecimalChar(ch)) continue;
    const cp = ch.codePointAt(0)!;
    if (!nonDecimalDigitRanges.some(([lo, hi]) => cp >= lo && cp <= hi))
      return false;
  }
  return true;
}

/**
 * `int(value)` for a string that {@link pyIsDigit} accepted: the decimal
 * value when every character is a decimal digit, else the `ValueError`
 * CPython raises (`int('²')`).
 */
export function pyIntOfDigits(value: string): bigint {
  let result = 0n;
  for (const ch of value) {
    if (!isDecimalChar(ch)) {
      throw PyException.valueError(
        `invalid literal for int() with base 10: ${pyRepr(value)}`,
      );
    }
    result = result * 10n + BigInt(decimalValue(ch));
  }
  return result;
}

/** A calendar date. */
export type TravelDate = {
  /** Year, 1 to 9999. */
  readonly year: number;
  /** Month, 1 to 12. */
  readonly month: number;
  /** Day of the month, from 1. */
  readonly day: number;
};

// CPython's `_strptime` regex for '%Y-%m-%d'. `\d` is Unicode there, but the
// bracketed classes are ASCII; `%d` also accepts a space-padded day.
const ymdPattern =
  /^(\p{Nd}{4})-(1[0-2]|0[1-9]|[1-9])-(3[01]|[12]\p{Nd}|0[1-9]|[1-9]| [1-9])$/u;

function digitsValue(text: string): number {
  let value = 0;
  for (const ch of text)
    value = value * 10 + (ch === ' ' ? 0 : decimalValue(ch));
  return value;
}

function daysInMonth(year: number, month: number): number {
  if (month === 2) {
    const leap = (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
    return leap ? 29 : 28;
  }
  return [4, 6, 9, 11].includes(month) ? 30 : 31;
}

/**
 * `datetime.strptime(value, '%Y-%m-%d')`. Returns `undefined` where Python
 * raises `ValueError` (no match, trailing text, year 0, a day past the end
 * of the month), and throws the `TypeError` Python raises for a non-string.
 */
export function strptimeYearMonthDay(value: PyValue): TravelDate | undefined {
  if (typeof value !== 'string') {
    // CPython's argument-clinic message names None by value, not by type.
    const got = value === null ? 'None' : pyTypeName(value);
    throw PyException.typeError(
      `strptime() argument 1 must be str, not ${got}`,
    );
  }
  const match = ymdPattern.exec(value);
  if (!match) return undefined;
  const year = digitsValue(match[1]!);
  const month = Number(match[2]);
  const day = digitsValue(match[3]!);
  if (year < 1 || day > daysInMonth(year, month)) return undefined;
  return { year, month, day };
}

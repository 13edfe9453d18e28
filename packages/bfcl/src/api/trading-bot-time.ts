import {
  PyException,
  pyTypeName,
  stringRepr,
  type PyValue,
} from '@seal/python';

/**
 * The slice of Python's `datetime` that `TradingBot` needs: `strptime` for
 * the three formats it parses, naive datetime ordering, and the transaction
 * timestamps it draws.
 */

/**
 * A naive `datetime` as a comparable tuple:
 * `[year, month, day, hour, minute, second, microsecond]`.
 * Python orders naive datetimes field by field, which is tuple order.
 */
export type NaiveDateTime = readonly [
  number,
  number,
  number,
  number,
  number,
  number,
  number,
];

/** `datetime.min`. */
export const datetimeMin: NaiveDateTime = [1, 1, 1, 0, 0, 0, 0];
/** `datetime.max`. */
export const datetimeMax: NaiveDateTime = [9999, 12, 31, 23, 59, 59, 999_999];

/** Orders two naive datetimes (negative, zero or positive). */
export function compareDateTimes(a: NaiveDateTime, b: NaiveDateTime): number {
  for (let i = 0; i < a.length; i++) {
    if (a[i] !== b[i]) return a[i]! - b[i]!;
  }
  return 0;
}

/** The `strptime` formats `TradingBot` uses. */
export type TradingBotTimeFormat =
  '%I:%M %p' | '%Y-%m-%d' | '%Y-%m-%d %H:%M:%S';

// Python's `\d` on str matches every Unicode decimal digit and `int()` reads
// them; `\s` is `str.isspace()`, which differs from JS `\s` (Python adds
// U+001C..U+001F and U+0085, JS adds U+FEFF).
const digit = '\\p{Nd}';
const space =
  '[\\t\\n\\v\\f\\r\\x1c-\\x20\\x85\\xa0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000]';

// The patterns of CPython 3.11's `_strptime.TimeRE` for these directives, in
// the same alternation order (the first alternative that lets the whole
// pattern match wins, in both regex engines).
const directivePatterns: Readonly<Record<string, string>> = {
  Y: `(?<Y>${digit}${digit}${digit}${digit})`,
  m: '(?<m>1[0-2]|0[1-9]|[1-9])',
  d: `(?<d>3[0-1]|[1-2]${digit}|0[1-9]|[1-9]| [1-9])`,
  H: `(?<H>2[0-3]|[0-1]${digit}|${digit})`,
  I: '(?<I>1[0-2]|0[1-9]|[1-9])',
  M: `(?<M>[0-5]${digit}|${digit})`,
  S: `(?<S>6[0-1]|[0-5]${digit}|${digit})`,
  p: '(?<p>am|pm)',
};

const compiled = new Map<string, RegExp>();

/** `_strptime`'s pattern: literals escaped, whitespace runs become `\s+`, directives expanded. */
function formatRegex(format: TradingBotTimeFormat): RegExp {
  let regex = compiled.get(format);
  if (regex === undefined) {
    let source = '';
    for (let i = 0; i < format.length; i++) {
      const char = format[i]!;
      if (char === '%') {
        source += directivePatterns[format[++i]!]!;
      } else if (char === ' ') {
        while (format[i + 1] === ' ') i++;
        source += `${space}+`;
      } else {
        // Unicode-mode regexes reject needless escapes such as `\-`.
        source += char.replace(/[.^$*+?()[\]{}|\\/]/g, '\\$&');
      }
    }
    // `_strptime` compiles with IGNORECASE (for AM/PM) and matches at the start.
    regex = new RegExp(`^(?:${source})`, 'iu');
    compiled.set(format, regex);
  }
  return regex;
}

/** `int()` of a run of Unicode decimal digits. */
function digitsValue(text: string): number {
  let value = 0;
  for (const char of text) value = value * 10 + digitValue(char);
  return value;
}

// Unicode lays out each decimal digit set as a contiguous run of ten
// (adjacent sets form longer runs), so a digit's value is its offset from the
// start of its run, modulo ten.
function digitValue(char: string): number {
  const code = char.codePointAt(0)!;
  if (code >= 0x30 && code <= 0x39) return code - 0x30;
  let start = code;
  while (/\p{Nd}/u.test(String.fromCodePoint(start - 1))) start--;
  return (code - start) % 10;
}

function isLeapYear(year: number): boolean {
  return year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
}

function daysInMonth(year: number, month: number): number {
  if (month === 2) return isLeapYear(year) ? 29 : 28;
  return [4, 6, 9, 11].includes(month) ? 30 : 31;
}

/**
 * `datetime.strptime(value, format)` with CPython 3.11's matching, field
 * conversion and error messages. Unparsed fields default to 1900-01-01 00:00.
 */
export function pyStrptime(
  value: PyValue,
  format: TradingBotTimeFormat,
): NaiveDateTime {
  if (typeof value !== 'string') {
    // The C argument parser names None as `None`, other objects by type.
    const typeName = value === null ? 'None' : pyTypeName(value);
    throw PyException.typeError(
      `strptime() argument 1 must be str, not ${typeName}`,
    );
  }
  const found = formatRegex(format).exec(value);
  if (!found) {
    throw PyException.valueError(
      `time data ${stringRepr(value)} does not match format ${stringRepr(format)}`,
    );
  }
  if (found[0].length !== value.length) {
    throw PyException.valueError(
      `unconverted data remains: ${value.slice(found[0].length)}`,
    );
  }
  const groups = found.groups ?? {};
  const field = (name: string, fallback: number): number => {
    const text = groups[name];
    return text === undefined ? fallback : digitsValue(text.trim());
  };
  const year = field('Y', 1900);
  const month = field('m', 1);
  const day = field('d', 1);
  let hour = field('H', 0);
  if (groups['I'] !== undefined) {
    hour = field('I', 0);
    const ampm = (groups['p'] ?? '').toLowerCase();
    if (ampm === 'pm') {
      if (hour !== 12) hour += 12;
    } else if (hour === 12) {
      hour = 0;
    }
  }
  const minute = field('M', 0);
  const second = field('S', 0);
  // `_strptime` builds a `date` first (year, then day range), and the
  // datetime constructor checks the time fields afterwards.
  if (year < 1) throw PyException.valueError(`year ${year} is out of range`);
  if (day > daysInMonth(year, month))
    throw PyException.valueError('day is out of range for month');
  if (second > 59) throw PyException.valueError('second must be in 0..59');
  return [year, month, day, hour, minute, second, 0];
}

/**
 * `_generate_transaction_timestamp`'s output for a draw of `offsetSeconds`
 * past `CURRENT_TIME` (2024-09-01 10:30). Python converts through the local
 * time zone and back, which cancels out (no zone changes offset that day), so
 * the naive wall time is computed in UTC here, independent of the machine.
 */
export function transactionTimestamp(offsetSeconds: bigint): string {
  const date = new Date(
    Date.UTC(2024, 8, 1, 10, 30) + Number(offsetSeconds) * 1000,
  );
  const pad = (n: number): string => String(n).padStart(2, '0');
  return (
    `${String(date.getUTCFullYear()).padStart(4, '0')}-${pad(date.getUTCMonth() + 1)}-${pad(date.getUTCDate())} ` +
    `${pad(date.getUTCHours())}:${pad(date.getUTCMinutes())}:${pad(date.getUTCSeconds())}`
  );
}

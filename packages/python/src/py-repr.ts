import { PyException } from './py-exception';
import { PyDict, PySet, PyTuple, type PyValue } from './py-value';

const maxIntDigits = 4300;
const intDigitsLimit = 10n ** BigInt(maxIntDigits);

/**
 * `str(n)` of a Python int. CPython (3.11+) refuses to convert ints of more
 * than 4,300 digits to text, with a `ValueError`; `repr`, `str`, f-strings
 * and `json.dumps` all go through this.
 */
export function intRepr(value: bigint): string {
  if (value >= intDigitsLimit || value <= -intDigitsLimit) {
    throw PyException.valueError(
      `Exceeds the limit (${maxIntDigits} digits) for integer string conversion; use sys.set_int_max_str_digits() to increase the limit`,
    );
  }
  return value.toString();
}

/**
 * `repr(x)` of a Python float: the shortest digits that round-trip (as in
 * JS), laid out by Python's rules: fixed notation for exponents -4..15,
 * otherwise `d.ddde±XX`; integral values keep `.0`.
 */
export function floatRepr(value: number): string {
  if (Number.isNaN(value)) return 'nan';
  if (value === Infinity) return 'inf';
  if (value === -Infinity) return '-inf';
  // Zero first: the memo's Map cannot tell 0 from -0.
  if (value === 0) return Object.is(value, -0) ? '-0.0' : '0.0';
  let repr = floatReprs.get(value);
  if (repr === undefined) {
    repr = computeFloatRepr(value);
    if (floatReprs.size >= maxFloatReprs) floatReprs.clear();
    floatReprs.set(value, repr);
  }
  return repr;
}

/**
 * Reprs of floats, which results repeat (prices, balances, readings):
 * the shortest round-trip digits cost far more than a lookup. Bounded:
 * cleared when full.
 */
const floatReprs = new Map<number, string>();
const maxFloatReprs = 8192;

/** {@link floatRepr} of a finite, non-zero float. */
function computeFloatRepr(value: number): string {
  const magnitude = Math.abs(value);
  if (magnitude >= 1e-4 && magnitude < 1e16) {
    // Both languages print the shortest round-trip digits in fixed notation
    // here (JS up to 1e21); only the integral `.0` differs.
    const text = String(value);
    return text.includes('.') ? text : `${text}.0`;
  }
  const sign = value < 0 ? '-' : '';
  const [mantissa, exponentText] = Math.abs(value)
    .toExponential()
    .split('e') as [string, string];
  const exponent = Number(exponentText);
  const digits = mantissa.replace('.', '');
  if (exponent >= -4 && exponent < 16) {
    if (exponent >= 0) {
      const integerPart = digits
        .slice(0, exponent + 1)
        .padEnd(exponent + 1, '0');
      const fraction = digits.slice(exponent + 1);
      return `${sign}${integerPart}.${fraction === '' ? '0' : fraction}`;
    }
    return `${sign}0.${'0'.repeat(-exponent - 1)}${digits}`;
  }
  const head = digits.length > 1 ? `${digits[0]}.${digits.slice(1)}` : digits;
  const expSign = exponent < 0 ? '-' : '+';
  return `${sign}${head}e${expSign}${String(Math.abs(exponent)).padStart(2, '0')}`;
}

// Characters Python's str.isprintable() rejects: "Other" and "Separator"
// categories, except the ASCII space.
const nonPrintable = /[\p{C}\p{Z}]/u;

// Characters a repr may have to escape: anything but printable ASCII, and
// the quote and backslash. A global regex skips the plain runs between them.
const reprAttention = /[^\x20-\x26\x28-\x5b\x5d-\x7e]/g;

/**
 * Reprs of short strings, which results repeat a lot (tickers, names, keys).
 * Bounded: cleared when full.
 */
const shortReprs = new Map<string, string>();
const shortReprLength = 32;
const maxShortReprs = 8192;

/** `repr(s)` of a Python str, with CPython's quote choice and escapes. */
export function stringRepr(value: string): string {
  if (value.length > shortReprLength) return computeStringRepr(value);
  let repr = shortReprs.get(value);
  if (repr === undefined) {
    repr = computeStringRepr(value);
    if (shortReprs.size >= maxShortReprs) shortReprs.clear();
    shortReprs.set(value, repr);
  }
  return repr;
}

function computeStringRepr(value: string): string {
  reprAttention.lastIndex = 0;
  let match = reprAttention.exec(value);
  if (match === null) return `'${value}'`;
  const quote = value.includes("'") && !value.includes('"') ? '"' : "'";
  let out = quote;
  let last = 0;
  do {
    const index = match.index;
    const code = value.codePointAt(index)!;
    const width = code > 0xffff ? 2 : 1;
    const escaped = escapeReprCharacter(
      value.slice(index, index + width),
      code,
      quote,
    );
    if (escaped !== undefined) {
      out += value.slice(last, index) + escaped;
      last = index + width;
    }
    reprAttention.lastIndex = index + width;
    match = reprAttention.exec(value);
  } while (match !== null);
  return out + value.slice(last) + quote;
}

/** The escape CPython's repr writes for one character, or undefined to keep it. */
function escapeReprCharacter(
  char: string,
  code: number,
  quote: string,
): string | undefined {
  if (char === quote || char === '\\') return `\\${char}`;
  if (char === '\n') return '\\n';
  if (char === '\r') return '\\r';
  if (char === '\t') return '\\t';
  if (code < 0x20 || code === 0x7f) return `\\x${hex(code, 2)}`;
  if (code < 0x7f) return undefined;
  if (!nonPrintable.test(char)) return undefined;
  if (code <= 0xff) return `\\x${hex(code, 2)}`;
  if (code <= 0xffff) return `\\u${hex(code, 4)}`;
  return `\\U${hex(code, 8)}`;
}

function hex(code: number, width: number): string {
  return code.toString(16).padStart(width, '0');
}

/** `repr(value)` with CPython's formatting. */
export function pyRepr(value: PyValue): string {
  if (value === null) return 'None';
  switch (typeof value) {
    case 'boolean':
      return value ? 'True' : 'False';
    case 'bigint':
      return intRepr(value);
    case 'number':
      return floatRepr(value);
    case 'string':
      return stringRepr(value);
  }
  if (Array.isArray(value)) return `[${reprItems(value)}]`;
  if (value instanceof PyTuple) {
    const inner = reprItems(value.items);
    return value.length === 1 ? `(${inner},)` : `(${inner})`;
  }
  if (value instanceof PyDict) {
    const keys = PyDict.internalKeys(value);
    const values = PyDict.internalValues(value);
    let out = '{';
    for (let i = 0; i < keys.length; i++) {
      if (i > 0) out += ', ';
      out += `${pyRepr(PyDict.originalKey(value, keys[i]!))}: ${pyRepr(values[i]!)}`;
    }
    return `${out}}`;
  }
  if (value instanceof PySet) {
    if (value.size === 0) return 'set()';
    return `{${[...value].map(pyRepr).join(', ')}}`;
  }
  return value.pyRepr();
}

function reprItems(items: readonly PyValue[]): string {
  if (items.length === 0) return '';
  let out = pyRepr(items[0]!);
  for (let i = 1; i < items.length; i++) out += `, ${pyRepr(items[i]!)}`;
  return out;
}

/** `str(value)`: strings unchanged, everything else as CPython prints it. */
export function pyStr(value: PyValue): string {
  if (typeof value === 'string') return value;
  if (value !== null && typeof value === 'object' && !Array.isArray(value)) {
    if (!(
      value instanceof PyTuple ||
      value instanceof PyDict ||
      value instanceof PySet
    )) {
      return value.pyStr();
    }
  }
  return pyRepr(value);
}

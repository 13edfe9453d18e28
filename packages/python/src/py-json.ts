import { PyException } from './py-exception';
import { floatRepr, intRepr } from './py-repr';
import {
  PyDict,
  PyTuple,
  isFrozenPyList,
  pyTypeName,
  type PyKey,
  type PyValue,
} from './py-value';

/** Options of {@link pyJsonDumps}, named after `json.dumps`'s keywords. */
export type PyJsonDumpsOptions = {
  /** Escape non-ASCII as `\uXXXX` (Python's default: true). */
  ensureAscii?: boolean;
  /** Sort object keys (default false: insertion order). */
  sortKeys?: boolean;
  /** `[itemSeparator, keySeparator]`; Python's default is `[', ', ': ']`. */
  separators?: readonly [string, string];
};

/**
 * `json.dumps(value)` with CPython's output: `", "`/`": "` separators,
 * Python float repr, int keys written as strings, non-ASCII escaped. Raises a
 * {@link PyException} `TypeError` for values JSON cannot encode, as Python
 * does ({@link tryPyJsonDumps} returns `undefined` instead, for callers that
 * fall back to `str()` like BFCL's executor).
 */
export function pyJsonDumps(
  value: PyValue,
  options?: PyJsonDumpsOptions,
): string {
  return runEncoder(
    value,
    options === undefined ? defaultEncoder : encoderFor(options, false),
  );
}

/**
 * {@link pyJsonDumps}, or `undefined` where `json.dumps` would raise (a
 * value or key JSON cannot encode, a circular reference, an int too long to
 * print): for callers that fall back to something else then, as BFCL's
 * executor falls back to `str()`. A value JSON cannot encode builds no
 * exception here (capturing a stack trace costs far more than the encoding).
 */
export function tryPyJsonDumps(
  value: PyValue,
  options?: PyJsonDumpsOptions,
): string | undefined {
  try {
    return runEncoder(
      value,
      options === undefined ? quietDefaultEncoder : encoderFor(options, true),
    );
  } catch (error) {
    if (error === notSerializable || PyException.isInstance(error))
      return undefined;
    throw error;
  }
}

function runEncoder(value: PyValue, encoder: JsonEncoder): string {
  try {
    return encodeJson(value, encoder);
  } finally {
    // Balanced on return; after a raise it still holds the containers it was
    // in, which a shared default encoder must not keep. (Only then: setting
    // an array's length is a call into the runtime.)
    if (encoder.stack.length !== 0) encoder.stack.length = 0;
  }
}

/**
 * What a quiet encoder ({@link tryPyJsonDumps}) throws for a value JSON
 * cannot encode, instead of a new `TypeError`: one instance, built once.
 */
const notSerializable = new Error('not JSON serializable');

/** The settings of a call with explicit options (a fresh encoder: its stack is its own). */
function encoderFor(options: PyJsonDumpsOptions, quiet: boolean): JsonEncoder {
  const ensureAscii = options.ensureAscii ?? true;
  const [itemSeparator, keySeparator] = options.separators ?? defaultSeparators;
  return {
    encodeString: ensureAscii ? encodeStringAscii : encodeStringUnicode,
    sortKeys: options.sortKeys ?? false,
    itemSeparator,
    keySeparator,
    // Immutable lists render the same every time; BFCL's defaults are the
    // only settings worth a cache (its long-context padding goes through them).
    cache:
      ensureAscii && itemSeparator === ', ' && keySeparator === ': '
        ? defaultJsonCache
        : undefined,
    stack: [],
    quiet,
  };
}

const defaultSeparators = [', ', ': '] as const;

/** Rendered `json.dumps` text of frozen lists under the default options. */
const defaultJsonCache = new WeakMap<object, string>();

/**
 * The encoder of every {@link pyJsonDumps} call without options (Python's
 * defaults, and BFCL's only settings), shared rather than built per call.
 * Sharing is safe because encoding never re-enters `pyJsonDumps` (it calls
 * no user code: values it cannot encode raise) and JS runs one call at a
 * time; its stack is emptied when each call ends.
 */
const defaultEncoder: JsonEncoder = encoderFor({}, false);
/** The same for {@link tryPyJsonDumps}. */
const quietDefaultEncoder: JsonEncoder = encoderFor({}, true);

/** The settings of one {@link pyJsonDumps} call (a plain object: no closures per call). */
type JsonEncoder = {
  readonly encodeString: (value: string) => string;
  readonly sortKeys: boolean;
  readonly itemSeparator: string;
  readonly keySeparator: string;
  readonly cache: WeakMap<object, string> | undefined;
  /** Containers being encoded, innermost last (Python's `markers`). */
  readonly stack: unknown[];
  /** Throw `notSerializable` rather than a `TypeError` for a value JSON cannot encode. */
  readonly quiet: boolean;
};

/** Below this depth a cycle is impossible to miss later, so the stack is only scanned past it. */
const cycleScanDepth = 32;

function encodeJson(v: PyValue, encoder: JsonEncoder): string {
  if (v === null) return 'null';
  switch (typeof v) {
    case 'boolean':
      return v ? 'true' : 'false';
    case 'bigint':
      return intRepr(v);
    case 'number':
      return encodeFloat(v);
    case 'string':
      return encoder.encodeString(v);
  }
  if (Array.isArray(v)) {
    if (v.length === 0) return '[]';
    const cached =
      encoder.cache === undefined || !isFrozenPyList(v)
        ? undefined
        : encoder.cache.get(v);
    if (cached !== undefined) return cached;
    enterContainer(v, encoder);
    let out = '[' + encodeJson(v[0]!, encoder);
    for (let i = 1; i < v.length; i++)
      out += encoder.itemSeparator + encodeJson(v[i]!, encoder);
    out += ']';
    encoder.stack.pop();
    if (encoder.cache !== undefined && isFrozenPyList(v))
      encoder.cache.set(v, out);
    return out;
  }
  if (v instanceof PyTuple) {
    const items = v.items;
    if (items.length === 0) return '[]';
    enterContainer(v, encoder);
    let out = '[' + encodeJson(items[0]!, encoder);
    for (let i = 1; i < items.length; i++)
      out += encoder.itemSeparator + encodeJson(items[i]!, encoder);
    out += ']';
    encoder.stack.pop();
    return out;
  }
  if (v instanceof PyDict) {
    if (v.size === 0) return '{}';
    enterContainer(v, encoder);
    let out = '{';
    let first = true;
    if (encoder.sortKeys) {
      const entries: [string, PyValue][] = [];
      const keys = PyDict.internalKeys(v);
      const values = PyDict.internalValues(v);
      for (let i = 0; i < keys.length; i++)
        entries.push([encodeKey(PyDict.originalKey(v, keys[i]!)), values[i]!]);
      entries.sort(([a], [b]) => compareCodePoints(a, b));
      for (const [k, item] of entries) {
        if (!first) out += encoder.itemSeparator;
        first = false;
        out +=
          encoder.encodeString(k) +
          encoder.keySeparator +
          encodeJson(item, encoder);
      }
    } else {
      // Python encodes each key before its value, so a bad key raises first.
      const keys = PyDict.internalKeys(v);
      const values = PyDict.internalValues(v);
      for (let i = 0; i < keys.length; i++) {
        const item = values[i]!;
        if (!first) out += encoder.itemSeparator;
        first = false;
        const k = PyDict.originalKey(v, keys[i]!);
        const key = encoder.encodeString(
          typeof k === 'string' ? k : encodeKey(k),
        );
        out += key + encoder.keySeparator + encodeJson(item, encoder);
      }
    }
    out += '}';
    encoder.stack.pop();
    return out;
  }
  if (encoder.quiet) throw notSerializable;
  throw PyException.typeError(
    `Object of type ${pyTypeName(v)} is not JSON serializable`,
  );
}

function enterContainer(container: unknown, encoder: JsonEncoder): void {
  const stack = encoder.stack;
  // A cycle re-enters a container already on the stack; scanning only deep
  // stacks finds it all the same (one more lap), at no cost to shallow data.
  if (stack.length >= cycleScanDepth && stack.includes(container)) {
    throw PyException.valueError('Circular reference detected');
  }
  stack.push(container);
}

function encodeFloat(value: number): string {
  if (Number.isNaN(value)) return 'NaN';
  if (value === Infinity) return 'Infinity';
  if (value === -Infinity) return '-Infinity';
  return floatRepr(value);
}

function encodeKey(key: PyKey): string {
  if (typeof key === 'string') return key;
  if (key === null) return 'null';
  if (typeof key === 'boolean') return key ? 'true' : 'false';
  if (typeof key === 'bigint') return intRepr(key);
  if (typeof key === 'number') return encodeFloat(key);
  throw PyException.typeError(
    `keys must be str, int, float, bool or None, not ${pyTypeName(key)}`,
  );
}

/** JSON's two-character escapes, by UTF-16 code unit. */
const shortEscapes: readonly (string | undefined)[] = (() => {
  const table: (string | undefined)[] = [];
  table[0x22] = '\\"';
  table[0x5c] = '\\\\';
  table[0x0a] = '\\n';
  table[0x0d] = '\\r';
  table[0x09] = '\\t';
  table[0x08] = '\\b';
  table[0x0c] = '\\f';
  return table;
})();

function unicodeEscape(code: number): string {
  return `\\u${code.toString(16).padStart(4, '0')}`;
}

// What each encoder must escape. A global regex finds it much faster than a
// loop over character codes (long results are mostly plain text).
const asciiEscapes = /[^\x20\x21\x23-\x5b\x5d-\x7e]/g;
// eslint-disable-next-line no-control-regex -- control characters are what JSON escapes
const unicodeEscapes = /[\x00-\x1f"\\]/g;

/**
 * `ensure_ascii=True`: printable ASCII as is, the short escapes, everything
 * else as `\uXXXX` of each UTF-16 code unit (exactly the surrogate pairs
 * Python emits, lone surrogates included).
 */
function encodeStringAscii(value: string): string {
  if (value.length > longJsonLength) return escapeString(value, asciiEscapes);
  const cache =
    value.length > shortJsonLength ? longJsonStrings : shortJsonStrings;
  let json = cache.get(value);
  if (json === undefined) {
    json = escapeString(value, asciiEscapes);
    if (
      cache.size >=
      (cache === longJsonStrings ? maxLongJsonStrings : maxShortJsonStrings)
    )
      cache.clear();
    cache.set(value, json);
  }
  return json;
}

/**
 * `ensure_ascii` encodings of strings: result keys and values repeat a lot
 * (names, tickers), and so do long texts (file contents, templates, padding
 * read back call after call). Bounded: each map is cleared when full.
 */
const shortJsonStrings = new Map<string, string>();
const shortJsonLength = 32;
const maxShortJsonStrings = 8192;
const longJsonStrings = new Map<string, string>();
const longJsonLength = 16_384;
const maxLongJsonStrings = 256;

/** `ensure_ascii=False`: only quotes, backslashes and control characters are escaped. */
function encodeStringUnicode(value: string): string {
  return escapeString(value, unicodeEscapes);
}

function escapeString(value: string, escapes: RegExp): string {
  escapes.lastIndex = 0;
  let match = escapes.exec(value);
  if (match === null) return `"${value}"`;
  let out = '"';
  let last = 0;
  do {
    const index = match.index;
    const code = value.charCodeAt(index);
    out +=
      value.slice(last, index) + (shortEscapes[code] ?? unicodeEscape(code));
    last = index + 1;
    match = escapes.exec(value);
  } while (match !== null);
  return `${out}${value.slice(last)}"`;
}

/** Compares two strings by Unicode code point, as Python's `sorted` does. */
export function compareCodePoints(a: string, b: string): number {
  const length = Math.min(a.length, b.length);
  for (let i = 0; i < length; i++) {
    const x = a.codePointAt(i)!;
    const y = b.codePointAt(i)!;
    if (x !== y) return x < y ? -1 : 1;
    if (x > 0xffff) i++;
  }
  return a.length === b.length ? 0 : a.length < b.length ? -1 : 1;
}

/** A JSON syntax error from {@link parsePyJson}, with its position. */
export class PyJsonSyntaxError extends Error {
  readonly position: number;
  constructor(message: string, position: number) {
    super(`${message} at position ${position}`);
    this.name = 'PyJsonSyntaxError';
    this.position = position;
  }
}

/** CPython's default `sys.get_int_max_str_digits()`. */
const maxIntDigits = 4300;

/**
 * Parses JSON the way Python's `json.loads` does, keeping what JS drops:
 * integers become `bigint` (`int`) and numbers with a fraction or exponent
 * become `number` (`float`), so `10000.0` stays a float. Objects become
 * {@link PyDict}s in document order. Accepts `NaN`, `Infinity`, `-Infinity`.
 * Like Python, refuses integers of more than 4,300 digits.
 */
export function parsePyJson(text: string): PyValue {
  let pos = 0;
  const fail = (message: string): never => {
    throw new PyJsonSyntaxError(message, pos);
  };
  const skip = () => {
    while (pos < text.length) {
      const c = text.charCodeAt(pos);
      if (c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09) pos++;
      else break;
    }
  };
  const parseString = (): string => {
    pos++; // opening quote
    let out = '';
    let start = pos;
    for (;;) {
      if (pos >= text.length) fail('unterminated string');
      const c = text.charCodeAt(pos);
      if (c === 0x22) {
        out += text.slice(start, pos);
        pos++;
        return out;
      }
      if (c === 0x5c) {
        out += text.slice(start, pos);
        const e = text[pos + 1];
        pos += 2;
        switch (e) {
          case '"':
            out += '"';
            break;
          case '\\':
            out += '\\';
            break;
          case '/':
            out += '/';
            break;
          case 'b':
            out += '\b';
            break;
          case 'f':
            out += '\f';
            break;
          case 'n':
            out += '\n';
            break;
          case 'r':
            out += '\r';
            break;
          case 't':
            out += '\t';
            break;
          case 'u': {
            const hexText = text.slice(pos, pos + 4);
            if (!/^[0-9a-fA-F]{4}$/.test(hexText)) fail('invalid \\u escape');
            out += String.fromCharCode(parseInt(hexText, 16));
            pos += 4;
            break;
          }
          default:
            pos -= 1;
            fail('invalid escape');
        }
        start = pos;
        continue;
      }
      if (c < 0x20) fail('invalid control character in string');
      pos++;
    }
  };
  const numberPattern = /-?(?:0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?/y;
  const parseValue = (depth: number): PyValue => {
    if (depth > 10_000) fail('nesting too deep');
    skip();
    const c = text[pos];
    switch (c) {
      case '{': {
        pos++;
        const dict = new PyDict();
        skip();
        if (text[pos] === '}') {
          pos++;
          return dict;
        }
        for (;;) {
          skip();
          if (text[pos] !== '"') fail('expected a string key');
          const key = parseString();
          skip();
          if (text[pos] !== ':') fail("expected ':'");
          pos++;
          dict.set(key, parseValue(depth + 1));
          skip();
          if (text[pos] === ',') {
            pos++;
            continue;
          }
          if (text[pos] === '}') {
            pos++;
            return dict;
          }
          fail("expected ',' or '}'");
        }
      }
      case '[': {
        pos++;
        const list: PyValue[] = [];
        skip();
        if (text[pos] === ']') {
          pos++;
          return list;
        }
        for (;;) {
          list.push(parseValue(depth + 1));
          skip();
          if (text[pos] === ',') {
            pos++;
            continue;
          }
          if (text[pos] === ']') {
            pos++;
            return list;
          }
          fail("expected ',' or ']'");
        }
      }
      case '"':
        return parseString();
      case 't':
        return literal('true', true);
      case 'f':
        return literal('false', false);
      case 'n':
        return literal('null', null);
      case 'N':
        return literal('NaN', NaN);
      case 'I':
        return literal('Infinity', Infinity);
      default: {
        if (text.startsWith('-Infinity', pos))
          return literal('-Infinity', -Infinity);
        numberPattern.lastIndex = pos;
        const match = numberPattern.exec(text);
        if (!match) return fail('unexpected character');
        if (match[1] !== undefined || match[2] !== undefined) {
          pos += match[0].length;
          return Number(match[0]);
        }
        // CPython's int() refuses more than 4,300 digits, and so json.loads
        // does; the value could not be printed (str, repr, json.dumps) anyway.
        const digits = match[0].length - (match[0].startsWith('-') ? 1 : 0);
        if (digits > maxIntDigits) {
          fail(
            `Exceeds the limit (${maxIntDigits} digits) for integer string conversion: value has ${digits} digits`,
          );
        }
        pos += match[0].length;
        return BigInt(match[0]);
      }
    }
  };
  const literal = (word: string, value: PyValue): PyValue => {
    if (!text.startsWith(word, pos)) fail('unexpected token');
    pos += word.length;
    return value;
  };
  const value = parseValue(0);
  skip();
  if (pos !== text.length) fail('extra data');
  return value;
}

/**
 * Converts a plain JSON value (from `JSON.parse`) to a Python value. Lossy for
 * numbers: integral numbers become `int`. Prefer {@link parsePyJson} on text.
 */
export function fromJsonValue(value: unknown): PyValue {
  if (value === null || value === undefined) return null;
  switch (typeof value) {
    case 'boolean':
    case 'string':
      return value;
    case 'number':
      return Number.isInteger(value) && Number.isSafeInteger(value)
        ? BigInt(value)
        : value;
    case 'bigint':
      return value;
  }
  if (Array.isArray(value)) return value.map(fromJsonValue);
  if (typeof value === 'object') {
    const dict = new PyDict();
    for (const [k, v] of Object.entries(value as Record<string, unknown>)) {
      dict.set(k, fromJsonValue(v));
    }
    return dict;
  }
  throw new TypeError(`cannot convert ${typeof value} to a Python value`);
}

/**
 * Converts a Python value to plain JSON data (`int` → number when safe, else
 * string; dict keys → strings; tuples and sets → arrays). For display and
 * wire formats that do not need the int/float distinction.
 */
export function toJsonValue(value: PyValue): unknown {
  if (value === null) return null;
  switch (typeof value) {
    case 'boolean':
    case 'string':
      return value;
    case 'bigint':
      return value >= BigInt(Number.MIN_SAFE_INTEGER) &&
        value <= BigInt(Number.MAX_SAFE_INTEGER)
        ? Number(value)
        : value.toString();
    case 'number':
      return Number.isFinite(value) ? value : String(value);
  }
  if (Array.isArray(value)) return value.map(toJsonValue);
  if (value instanceof PyTuple) return value.items.map(toJsonValue);
  if (value instanceof PyDict) {
    const out: Record<string, unknown> = {};
    for (const [k, v] of value) out[encodeKeyLoose(k)] = toJsonValue(v);
    return out;
  }
  if (
    typeof (value as { [Symbol.iterator]?: unknown })[Symbol.iterator] ===
    'function'
  ) {
    return [...(value as Iterable<PyValue>)].map(toJsonValue);
  }
  return (value as { pyRepr(): string }).pyRepr();
}

function encodeKeyLoose(key: PyKey): string {
  if (key instanceof PyTuple) return key.items.map((k) => String(k)).join(',');
  return encodeKey(key);
}

/** `(key1, key2)` helper for building tuple keys. */
export function pyTuple(...items: PyValue[]): PyTuple {
  return new PyTuple(items);
}

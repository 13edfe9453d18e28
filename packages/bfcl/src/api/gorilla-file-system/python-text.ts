import { PyException, pyNeg, pyTypeName, type PyValue } from '@seal/python';

/**
 * `len(text.encode('utf-8'))`. A lone surrogate (Python strings may hold
 * them, e.g. from a `'\ud800'` literal) raises the `UnicodeEncodeError`
 * CPython raises, with its message.
 */
export function utf8Length(text: string): bigint {
  // By UTF-16 code unit, with no copy of the text; the first lone surrogate
  // hands over to the code-point walk below, which words the error.
  let bytes = 0;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code < 0x80) bytes += 1;
    else if (code < 0x800) bytes += 2;
    else if (code < 0xd800 || code > 0xdfff) bytes += 3;
    else if (code <= 0xdbff && isLowSurrogate(text.charCodeAt(i + 1))) {
      bytes += 4;
      i++;
    } else return surrogateError(text);
  }
  return BigInt(bytes);
}

/** `utf8Length` of a text holding a lone surrogate: throws CPython's `UnicodeEncodeError`. */
function surrogateError(text: string): never {
  const chars = [...text];
  for (let i = 0; i < chars.length; i++) {
    const code = chars[i]!.codePointAt(0)!;
    if (code >= 0xd800 && code <= 0xdfff) {
      // CPython reports the whole run of consecutive surrogates.
      let end = i + 1;
      while (end < chars.length && isSurrogate(chars[end]!)) end++;
      const message =
        end - i === 1
          ? `'utf-8' codec can't encode character '\\u${code.toString(16).padStart(4, '0')}' in position ${i}: surrogates not allowed`
          : `'utf-8' codec can't encode characters in position ${i}-${end - 1}: surrogates not allowed`;
      throw new PyException({ pyType: 'UnicodeEncodeError', message });
    }
  }
  throw new Error('surrogateError: the text holds no lone surrogate');
}

/** A low (trailing) surrogate code unit; NaN, past the end, is not. */
function isLowSurrogate(code: number): boolean {
  return code >= 0xdc00 && code <= 0xdfff;
}

function isSurrogate(char: string): boolean {
  const code = char.codePointAt(0)!;
  return code >= 0xd800 && code <= 0xdfff;
}

/**
 * `items[-count:]` for a Python list. The start index must be an int (or
 * bool); a float raises CPython's slice TypeError.
 */
export function sliceFromNegated<T>(items: readonly T[], count: PyValue): T[] {
  const start = pyNeg(count);
  if (typeof start !== 'bigint') {
    throw PyException.typeError(
      'slice indices must be integers or None or have an __index__ method',
    );
  }
  const length = BigInt(items.length);
  let index = start < 0n ? start + length : start;
  if (index < 0n) index = 0n;
  if (index > length) index = length;
  return items.slice(Number(index));
}

/** `'sep'.join(items)` over values that must all be `str`. */
export function joinStrings(
  separator: string,
  items: readonly PyValue[],
): string {
  items.forEach((item, index) => {
    if (typeof item !== 'string') {
      throw PyException.typeError(
        `sequence item ${index}: expected str instance, ${pyTypeName(item)} found`,
      );
    }
  });
  return items.join(separator);
}

/** `text.strip(chars)` / `rstrip(chars)` for a set of single characters. */
export function stripChars(
  text: string,
  chars: string,
  { left }: { left: boolean },
): string {
  let start = 0;
  let end = text.length;
  if (left) while (start < end && chars.includes(text[start]!)) start++;
  while (end > start && chars.includes(text[end - 1]!)) end--;
  return text.slice(start, end);
}

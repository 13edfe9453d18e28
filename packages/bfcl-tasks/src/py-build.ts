import { PyDict, formatCall, type PyValue } from '@seal/python';

/**
 * A plain value the generator writes states and arguments in: `bigint` is a
 * Python int, `number` a Python float, arrays are lists and plain objects are
 * dicts (in property order).
 */
export type PlainPy =
  | null
  | boolean
  | bigint
  | number
  | string
  | PyDict
  | readonly PlainPy[]
  | { readonly [key: string]: PlainPy };

/** Converts a {@link PlainPy} tree to Python values (plain objects become dicts). */
export function py(value: PlainPy): PyValue {
  if (value === null || typeof value !== 'object') return value;
  if (value instanceof PyDict) return value;
  if (Array.isArray(value)) return (value as readonly PlainPy[]).map(py);
  return new PyDict(
    Object.entries(value as { readonly [key: string]: PlainPy }).map(
      ([key, item]) => [key, py(item)],
    ),
  );
}

/** A dict with string keys from a plain object (see {@link py}). */
export function pyDictOf(value: { readonly [key: string]: PlainPy }): PyDict {
  return py(value) as PyDict;
}

/**
 * A ground-truth call string in BFCL's style, `name(k=repr(v), ...)`, with
 * keyword arguments in the given order. Entries whose value is `undefined`
 * are left out (the parameter keeps its default).
 */
export function callText(
  name: string,
  args: { readonly [key: string]: PlainPy | undefined } = {},
): string {
  const kwargs = Object.entries(args)
    .filter((entry): entry is [string, PlainPy] => entry[1] !== undefined)
    .map(([key, value]): [string, PyValue] => [key, py(value)]);
  return formatCall({ name, args: [], kwargs });
}

/** Python's `int` of a JS integer. */
export function int(value: number): bigint {
  return BigInt(value);
}

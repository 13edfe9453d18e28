import { PyException } from './py-exception';
import { compareCodePoints } from './py-json';
import {
  PyDict,
  PyObject,
  PySet,
  PyTuple,
  pyTypeName,
  type PyKey,
  type PyValue,
} from './py-value';

type NumberLike = bigint | number | boolean;

function isNumberLike(value: PyValue): value is NumberLike {
  return (
    typeof value === 'bigint' ||
    typeof value === 'number' ||
    typeof value === 'boolean'
  );
}

function toBigOrNumber(value: NumberLike): bigint | number {
  return typeof value === 'boolean' ? (value ? 1n : 0n) : value;
}

/** Compares two Python numbers exactly (int vs float without rounding). */
function compareNumbers(a: NumberLike, b: NumberLike): number {
  const x = toBigOrNumber(a);
  const y = toBigOrNumber(b);
  if (typeof x === 'bigint' && typeof y === 'bigint')
    return x < y ? -1 : x > y ? 1 : 0;
  if (typeof x === 'number' && typeof y === 'number') {
    if (Number.isNaN(x) || Number.isNaN(y)) return NaN;
    return x < y ? -1 : x > y ? 1 : 0;
  }
  // Mixed int/float: compare exactly, as CPython does.
  const [big, float, flip] =
    typeof x === 'bigint'
      ? [x, y as number, 1]
      : [y as bigint, x as number, -1];
  if (Number.isNaN(float)) return NaN;
  if (float === Infinity) return -flip;
  if (float === -Infinity) return flip;
  const floor = Math.floor(float);
  const floorBig = BigInt(floor);
  if (big < floorBig) return -flip;
  if (big > floorBig) return flip;
  return float === floor ? 0 : -flip;
}

/** Python `a == b`: `1 == 1.0 == True`, dicts ignore order, lists keep it. */
export function pyEquals(a: PyValue, b: PyValue): boolean {
  if (a === b) return !(typeof a === 'number' && Number.isNaN(a));
  if (a === null || b === null) return false;
  if (isNumberLike(a)) return isNumberLike(b) && compareNumbers(a, b) === 0;
  if (typeof a === 'string' || typeof b === 'string') return false;
  if (isNumberLike(b)) return false;
  if (Array.isArray(a)) return Array.isArray(b) && sequenceEquals(a, b);
  if (a instanceof PyTuple)
    return b instanceof PyTuple && sequenceEquals(a.items, b.items);
  if (a instanceof PyDict) {
    if (!(b instanceof PyDict) || a.size !== b.size) return false;
    const keys = PyDict.internalKeys(a);
    const values = PyDict.internalValues(a);
    for (let i = 0; i < keys.length; i++) {
      const k = PyDict.originalKey(a, keys[i]!);
      if (!b.has(k)) return false;
      if (!pyEquals(values[i]!, b.get(k)!)) return false;
    }
    return true;
  }
  if (a instanceof PySet) {
    if (!(b instanceof PySet) || a.size !== b.size) return false;
    for (const item of a) if (!b.has(item)) return false;
    return true;
  }
  if (a instanceof PyObject) return a.pyEquals(b);
  return false;
}

function sequenceEquals(a: readonly PyValue[], b: readonly PyValue[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (!pyEquals(a[i]!, b[i]!)) return false;
  return true;
}

/**
 * Python ordering (`<`) for numbers, strings (by code point), lists and
 * tuples. Raises `TypeError` like CPython for unorderable pairs.
 */
export function pyCompare(a: PyValue, b: PyValue, operator = '<'): number {
  if (isNumberLike(a) && isNumberLike(b)) return compareNumbers(a, b);
  if (typeof a === 'string' && typeof b === 'string')
    return compareCodePoints(a, b);
  const bothLists = Array.isArray(a) && Array.isArray(b);
  const bothTuples = a instanceof PyTuple && b instanceof PyTuple;
  if (bothLists || bothTuples) {
    const x = bothLists ? (a as PyValue[]) : (a as PyTuple).items;
    const y = bothLists ? (b as PyValue[]) : (b as PyTuple).items;
    for (let i = 0; i < Math.min(x.length, y.length); i++) {
      if (!pyEquals(x[i]!, y[i]!)) return pyCompare(x[i]!, y[i]!, operator);
    }
    return x.length - y.length;
  }
  throw PyException.typeError(
    `'${operator}' not supported between instances of '${pyTypeName(a)}' and '${pyTypeName(b)}'`,
  );
}

/** `sorted(values)`: a stable sort by Python ordering. */
export function pySorted<T extends PyValue>(values: Iterable<T>): T[] {
  return [...values].sort((a, b) => pyCompare(a, b));
}

/** `value in container` for lists, tuples, strings, dicts (keys) and sets. */
export function pyContains(container: PyValue, value: PyValue): boolean {
  if (typeof container === 'string') {
    if (typeof value !== 'string') {
      throw PyException.typeError(
        `'in <string>' requires string as left operand, not ${pyTypeName(value)}`,
      );
    }
    return container.includes(value);
  }
  if (Array.isArray(container))
    return container.some((item) => pyEquals(item, value));
  if (container instanceof PyTuple)
    return container.items.some((item) => pyEquals(item, value));
  if (container instanceof PyDict || container instanceof PySet) {
    assertHashable(value);
    return container.has(value as PyKey);
  }
  throw PyException.typeError(
    `argument of type '${pyTypeName(container)}' is not iterable`,
  );
}

/** Raises `TypeError: unhashable type` for lists, dicts and sets. */
export function assertHashable(value: PyValue): asserts value is PyKey {
  if (
    Array.isArray(value) ||
    value instanceof PyDict ||
    value instanceof PySet
  ) {
    throw PyException.typeError(`unhashable type: '${pyTypeName(value)}'`);
  }
  if (value instanceof PyTuple) value.items.forEach(assertHashable);
  else if (value instanceof PyObject) {
    throw PyException.typeError(`unhashable type: '${value.pyTypeName}'`);
  }
}

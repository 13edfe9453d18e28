import {
  PyDict,
  PyObject,
  PySet,
  PyTuple,
  pyEquals,
  pySorted,
  pyStr,
  type PyValue,
} from '@seal/python';
import type { BfclApi } from '../api/bfcl-api';

/** An object that exposes a plain value for state comparison (files, directories). */
export type BfclComparable = { toComparable(): PyValue };

function isComparable(value: unknown): value is BfclComparable {
  return (
    value instanceof PyObject &&
    typeof (value as Partial<BfclComparable>).toComparable === 'function'
  );
}

/**
 * The comparable state of an instance in the golden-file convention of
 * `../shared/bfcl/README.md`: public attributes only; dict keys as strings;
 * sets as sorted lists; tuples as lists; files and directories as trees.
 */
export function comparableState(instance: BfclApi): PyDict {
  const state = new PyDict();
  for (const [name, value] of instance.publicAttributes())
    state.set(name, toComparableValue(value));
  return state;
}

/** Converts one value to the golden convention (see {@link comparableState}). */
export function toComparableValue(
  value: PyValue,
  seen = new Set<unknown>(),
): PyValue {
  if (value === null || typeof value !== 'object') return value;
  if (seen.has(value)) return '<cycle>';
  seen.add(value);
  try {
    if (Array.isArray(value))
      return value.map((item) => toComparableValue(item, seen));
    if (value instanceof PyTuple)
      return value.items.map((item) => toComparableValue(item, seen));
    if (value instanceof PySet)
      return pySorted([...value]).map((item) => toComparableValue(item, seen));
    if (value instanceof PyDict) {
      const out = new PyDict();
      for (const [k, v] of value)
        out.set(keyText(k), toComparableValue(v, seen));
      return out;
    }
    if (isComparable(value))
      return toComparableValue(value.toComparable(), seen);
    return value;
  } finally {
    seen.delete(value);
  }
}

/** A dict key in the golden convention: Python's `str(key)` (int 1 → "1", float 1.0 → "1.0", tuple → "(1, 2)"). */
function keyText(key: PyValue): string {
  return pyStr(key);
}

/** The first place two comparable values differ. */
export type StateDifference = {
  /** Dotted path from the compared root (`TradingBot.orders.12345.status`). */
  path: string;
  /** What the reference holds there (`undefined` when absent). */
  expected: PyValue | undefined;
  /** What we hold there (`undefined` when absent). */
  actual: PyValue | undefined;
};

/**
 * Compares two comparable values the way BFCL's replays are meant to be
 * compared: objects ignore key order, arrays keep it, numbers compare by value
 * (`1 == 1.0 == True`). Returns the first difference, or undefined.
 */
export function diffComparable(
  expected: PyValue,
  actual: PyValue,
  path = '',
): StateDifference | undefined {
  if (expected instanceof PyDict && actual instanceof PyDict) {
    for (const [k, v] of expected) {
      const childPath = path === '' ? String(k) : `${path}.${String(k)}`;
      if (!actual.has(k))
        return { path: childPath, expected: v, actual: undefined };
      const difference = diffComparable(v, actual.get(k)!, childPath);
      if (difference) return difference;
    }
    for (const [k, v] of actual) {
      if (!expected.has(k)) {
        return {
          path: path === '' ? String(k) : `${path}.${String(k)}`,
          expected: undefined,
          actual: v,
        };
      }
    }
    return undefined;
  }
  if (Array.isArray(expected) && Array.isArray(actual)) {
    for (let i = 0; i < Math.min(expected.length, actual.length); i++) {
      const difference = diffComparable(
        expected[i]!,
        actual[i]!,
        `${path}[${i}]`,
      );
      if (difference) return difference;
    }
    if (expected.length !== actual.length) {
      const i = Math.min(expected.length, actual.length);
      return {
        path: `${path}[${i}]`,
        expected: expected[i],
        actual: actual[i],
      };
    }
    return undefined;
  }
  return pyEquals(expected, actual) ? undefined : { path, expected, actual };
}

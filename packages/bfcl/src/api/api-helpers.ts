import { PyDict, PyException, pyTypeName, type PyValue } from '@seal/python';

/** A Python dict literal with string keys, in the given order. */
export function pyDict(entries: Record<string, PyValue>): PyDict {
  return PyDict.fromObject(entries);
}

/** `{"error": message}`, the shape BFCL's classes return on soft failures. */
export function errorResult(message: string): PyDict {
  return pyDict({ error: message });
}

/** `list.append(item)` on a value that should be a list (AttributeError otherwise). */
export function pyAppend(list: PyValue, item: PyValue): void {
  if (!Array.isArray(list)) {
    throw PyException.attributeError(
      `'${pyTypeName(list)}' object has no attribute 'append'`,
    );
  }
  list.push(item);
}

/** Requires a dict receiver for a dict method call (AttributeError otherwise). */
export function expectDict(value: PyValue, method: string): PyDict {
  if (!(value instanceof PyDict)) {
    throw PyException.attributeError(
      `'${pyTypeName(value)}' object has no attribute '${method}'`,
    );
  }
  return value;
}

/** `str()` texts of result lists, attached by the methods that built them (see {@link withStr}). */
const attachedStrs = new WeakMap<PyValue[], () => string>();

/**
 * Attaches to a list a method built and returns (and that nothing changes
 * afterwards) the function that renders its `str()`. For lists made mostly
 * of a shared constant, whose text is rendered once: the session's
 * `renderResult` calls it instead of rendering the list item by item.
 */
export function withStr(list: PyValue[], str: () => string): PyValue[] {
  attachedStrs.set(list, str);
  return list;
}

/** The `str()` of a list, by the function {@link withStr} attached, or undefined. */
export function attachedStr(list: PyValue[]): string | undefined {
  return attachedStrs.get(list)?.();
}

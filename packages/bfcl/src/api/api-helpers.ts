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
    throw PyException.attributeError(`'${pyTypeName(list)}' object has no attribute 'append'`);
  }
  list.push(item);
}

/** Requires a dict receiver for a dict method call (AttributeError otherwise). */
export function expectDict(value: PyValue, method: string): PyDict {
  if (!(value instanceof PyDict)) {
    throw PyException.attributeError(`'${pyTypeName(value)}' object has no attribute '${method}'`);
  }
  return value;
}

import { PyException } from './py-exception';
import type { PyValue } from './py-value';

/** One parameter of an emulated Python function. */
export type PyParameter = {
  /** The parameter name, as Python spells it. */
  name: string;
  /**
   * The default value; absent for a required parameter. A function is called
   * for each use (a fresh default); a value is shared by every call, like a
   * Python default (which is how BFCL's mutable `[]` defaults leak).
   */
  default?: PyValue | (() => PyValue);
};

/** The signature of an emulated Python method or function. */
export type PySignature = {
  /** Qualified name for error messages, e.g. `GorillaFileSystem.ls`. */
  qualname: string;
  /** Parameters after `self`, in order. */
  parameters: readonly PyParameter[];
  /** Whether this is a bound method (CPython then counts `self` in messages). */
  isMethod?: boolean;
};

/**
 * Binds positional and keyword arguments to a signature with CPython's rules
 * and CPython's error messages (`takes 2 positional arguments but 3 were
 * given`, `got an unexpected keyword argument 'x'`, `missing 1 required
 * positional argument: 'y'`). Returns the values in parameter order.
 */
export function bindArguments({
  signature,
  args,
  kwargs,
}: {
  signature: PySignature;
  args: readonly PyValue[];
  kwargs: readonly (readonly [string, PyValue])[];
}): PyValue[] {
  const { qualname, parameters } = signature;
  const self = signature.isMethod === false ? 0 : 1;
  const count = parameters.length;

  if (args.length > count) {
    const required = parameters.filter((p) => !('default' in p)).length;
    const total = count + self;
    const given = args.length + self;
    const takes =
      required === count
        ? `${total} positional argument${total === 1 ? '' : 's'}`
        : `from ${required + self} to ${total} positional arguments`;
    throw PyException.typeError(
      `${qualname}() takes ${takes} but ${given} ${given === 1 ? 'was' : 'were'} given`,
    );
  }
  // `undefined` marks an unfilled slot: no Python value is `undefined`.
  const bound: (PyValue | undefined)[] = new Array<PyValue | undefined>(
    count,
  ).fill(undefined);
  for (let index = 0; index < args.length; index++) bound[index] = args[index];
  for (const [key, value] of kwargs) {
    let index = 0;
    while (index < count && parameters[index]!.name !== key) index++;
    if (index === count) {
      throw PyException.typeError(
        `${qualname}() got an unexpected keyword argument '${key}'`,
      );
    }
    if (bound[index] !== undefined) {
      throw PyException.typeError(
        `${qualname}() got multiple values for argument '${key}'`,
      );
    }
    bound[index] = value;
  }
  let missing: string[] | undefined;
  for (let index = 0; index < count; index++) {
    if (bound[index] !== undefined) continue;
    const parameter = parameters[index]!;
    if ('default' in parameter) {
      const fallback = parameter.default;
      bound[index] =
        typeof fallback === 'function' ? fallback() : (fallback as PyValue);
    } else (missing ??= []).push(`'${parameter.name}'`);
  }
  if (missing !== undefined) {
    const list =
      missing.length === 1
        ? missing[0]
        : missing.length === 2
          ? `${missing[0]} and ${missing[1]}`
          : `${missing.slice(0, -1).join(', ')}, and ${missing[missing.length - 1]}`;
    throw PyException.typeError(
      `${qualname}() missing ${missing.length} required positional argument${
        missing.length === 1 ? '' : 's'
      }: ${list}`,
    );
  }
  return bound as PyValue[];
}

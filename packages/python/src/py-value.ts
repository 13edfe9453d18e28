/**
 * A Python value, modelled closely enough to reproduce CPython's printed
 * output and `==` semantics:
 *
 * | Python  | TypeScript                       |
 * | ------- | -------------------------------- |
 * | `None`  | `null`                           |
 * | `bool`  | `boolean`                        |
 * | `int`   | `bigint` (arbitrary precision)   |
 * | `float` | `number`                         |
 * | `str`   | `string`                         |
 * | `list`  | `PyValue[]` (a mutable JS array) |
 * | `tuple` | {@link PyTuple}                  |
 * | `dict`  | {@link PyDict} (insertion order) |
 * | `set`   | {@link PySet}                    |
 * | other   | a {@link PyObject} subclass      |
 *
 * Keeping `int` and `float` apart is the point: Python prints `700` and
 * `700.0` differently, and BFCL's result strings depend on it.
 */
export type PyValue =
  | null
  | boolean
  | bigint
  | number
  | string
  | PyValue[]
  | PyTuple
  | PyDict
  | PySet
  | PyObject;

/** A value that can be a dict key or set element (hashable in Python). */
export type PyKey = null | boolean | bigint | number | string | PyTuple;

/**
 * Base of every other Python object (files, directories, `mpf`, `Decimal`,
 * `Ellipsis`). Subclasses give the type name, `repr` and equality.
 */
export abstract class PyObject {
  /** The Python type name, as in `type(x).__name__`. */
  abstract readonly pyTypeName: string;
  /** `repr(self)`. */
  abstract pyRepr(): string;
  /** `str(self)`; defaults to `repr`. */
  pyStr(): string {
    return this.pyRepr();
  }
  /** `self == other`; defaults to identity. */
  pyEquals(other: PyValue): boolean {
    return this === other;
  }
  /** A deep copy (`copy.deepcopy`); immutable objects return themselves. */
  pyDeepCopy(_memo: Map<unknown, unknown>): PyObject {
    return this;
  }
}

/** Python's `Ellipsis` singleton. */
class PyEllipsisType extends PyObject {
  readonly pyTypeName = 'ellipsis';
  pyRepr(): string {
    return 'Ellipsis';
  }
}

/** `Ellipsis` (`...`). */
export const PyEllipsis: PyObject = new PyEllipsisType();

/** An immutable Python tuple. */
export class PyTuple {
  readonly items: readonly PyValue[];
  constructor(items: readonly PyValue[]) {
    this.items = items;
  }
  get length(): number {
    return this.items.length;
  }
}

const noneKey = Symbol('None');
/** A dict's key as its Map stores it (see `internalKey`). @internal */
export type InternalKey = string | bigint | number | symbol;

/**
 * Maps a hashable Python value to a JS Map key so that keys Python treats as
 * equal collide: `1`, `1.0` and `True` share a slot, `'1'` does not.
 */
function internalKey(key: PyKey): InternalKey {
  switch (typeof key) {
    case 'string':
    case 'bigint':
      return key;
    case 'boolean':
      return key ? 1n : 0n;
    case 'number':
      return Number.isInteger(key) ? BigInt(key) : key;
    default:
      if (key === null) return noneKey;
      // Tuples hash by value; a control-character prefix keeps them apart
      // from any real string key.
      return `\u0000tuple:${tupleKey(key)}`;
  }
}

function tupleKey(tuple: PyTuple): string {
  return tuple.items
    .map((item) => {
      const k = internalKey(item as PyKey);
      return typeof k === 'symbol' ? 'None' : `${typeof k}:${String(k)}`;
    })
    .join('\u0001');
}

/**
 * The arrays of every dict that has had no entry of its own yet (created
 * empty, or cleared). Shared, so they must never be written: `set` gives a
 * dict its own arrays before its first insertion, and no other method writes
 * to an empty dict's arrays. Builders that bring their own arrays
 * (`fromObject`, copies) replace them without allocating a pair to discard.
 */
const noKeys: InternalKey[] = [];
const noValues: PyValue[] = [];

/** Dicts with more entries than this get a hash index beside their arrays. */
const indexThreshold = 8;

/** Map's key equality (SameValueZero): `===`, and NaN equal to itself. */
function sameKey(a: InternalKey, b: InternalKey): boolean {
  return a === b || (a !== a && b !== b);
}

/**
 * Iterates a dict's keys, values or `[key, value]` pairs in insertion order.
 * Live, like a Map iterator: entries added meanwhile are visited. (Python
 * raises when a dict changes size during iteration, so no port depends on
 * the rest.)
 */
class PyDictIterator<T> implements IterableIterator<T> {
  private readonly dict: PyDict;
  private readonly pick: (dict: PyDict, position: number) => T;
  private position = 0;
  constructor(dict: PyDict, pick: (dict: PyDict, position: number) => T) {
    this.dict = dict;
    this.pick = pick;
  }
  next(): IteratorResult<T> {
    if (this.position >= this.dict.size)
      return { value: undefined, done: true };
    return { value: this.pick(this.dict, this.position++), done: false };
  }
  [Symbol.iterator](): IterableIterator<T> {
    return this;
  }
}

const pickKey = (dict: PyDict, position: number): PyKey =>
  PyDict.originalKey(dict, PyDict.internalKeys(dict)[position]!);
const pickValue = (dict: PyDict, position: number): PyValue =>
  PyDict.internalValues(dict)[position]!;
const pickEntry = (dict: PyDict, position: number): [PyKey, PyValue] => [
  pickKey(dict, position),
  pickValue(dict, position),
];

/**
 * A Python dict: insertion-ordered, keyed by Python equality. Stored as two
 * parallel arrays (internal keys, values), with a hash index only past a few
 * entries: most dicts here are small (results, records, configs), and copying
 * or building arrays costs a fraction of a Map.
 */
export class PyDict {
  /** Internal keys (see `internalKey`), in insertion order; `noKeys` until the first insertion. */
  private keyList: InternalKey[] = noKeys;
  /** Values, parallel to `keyList`; `noValues` until the first insertion. */
  private valueList: PyValue[] = noValues;
  /** Internal key → position, once the dict outgrows a linear scan. */
  private index: Map<InternalKey, number> | undefined;
  /**
   * The key object a slot was created with, for the few keys whose internal
   * form differs (`True`, `1.0`, `None`, tuples); strings and ints are their
   * own internal keys, so most dicts never allocate this.
   */
  private originalKeys: Map<InternalKey, PyKey> | undefined;
  /** Set by {@link PyDict.freeze}. */
  private frozen = false;

  constructor(entries?: Iterable<readonly [PyKey, PyValue]>) {
    if (entries) for (const [k, v] of entries) this.set(k, v);
  }

  /** Builds a dict with string keys from a plain object, in property order. */
  static fromObject(object: Record<string, PyValue>): PyDict {
    // An object's own keys are distinct strings, which are their own
    // internal keys: the arrays can be taken as they come.
    const dict = new PyDict();
    dict.keyList = Object.keys(object);
    dict.valueList = Object.values(object);
    return dict;
  }

  /**
   * Fills the empty dict `target` with deep copies of `source`'s values, keys
   * and order kept, without re-hashing any key.
   * @internal
   */
  static deepCopyInto(
    source: PyDict,
    target: PyDict,
    memo: Map<unknown, unknown>,
  ): void {
    const values = source.valueList;
    const copies: PyValue[] = new Array<PyValue>(values.length);
    for (let i = 0; i < values.length; i++)
      copies[i] = pyDeepCopy(values[i]!, memo);
    target.keyList = source.keyList.slice();
    target.valueList = copies;
    if (source.originalKeys !== undefined)
      target.originalKeys = new Map(source.originalKeys);
  }

  /**
   * A copy whose values are `copyValue(value)`, keys, order and index kept.
   * @internal
   */
  static mapValues(
    source: PyDict,
    copyValue: (value: PyValue) => PyValue,
  ): PyDict {
    const target = new PyDict();
    const values = source.valueList;
    const copies: PyValue[] = new Array<PyValue>(values.length);
    for (let i = 0; i < values.length; i++) copies[i] = copyValue(values[i]!);
    target.keyList = source.keyList.slice();
    target.valueList = copies;
    if (source.originalKeys !== undefined)
      target.originalKeys = new Map(source.originalKeys);
    return target;
  }

  /**
   * Makes the dict read-only: `set`, `delete` and `clear` throw a
   * `TypeError` from then on. (A flag, not `Object.freeze`: V8 reads frozen
   * arrays several times slower.) @internal
   */
  static freeze(dict: PyDict): void {
    dict.frozen = true;
  }

  private assertMutable(): void {
    if (this.frozen)
      throw new TypeError('this dict is shared read-only data; copy it first');
  }

  /** The internal keys, in order, for read-only loops inside this package. @internal */
  static internalKeys(dict: PyDict): readonly InternalKey[] {
    return dict.keyList;
  }

  /** The values, parallel to {@link PyDict.internalKeys}. @internal */
  static internalValues(dict: PyDict): readonly PyValue[] {
    return dict.valueList;
  }

  /** The Python key of an internal key from {@link PyDict.internalKeys}. @internal */
  static originalKey(dict: PyDict, internal: InternalKey): PyKey {
    const keys = dict.originalKeys;
    if (keys !== undefined) {
      const key = keys.get(internal);
      if (key !== undefined || keys.has(internal)) return key!;
    }
    return internal as PyKey;
  }

  /** Position of an internal key, or -1. */
  private find(key: InternalKey): number {
    const keys = this.keyList;
    if (keys.length > indexThreshold) {
      // Built on the first lookup (copies do not carry it), then kept up to date.
      if (this.index === undefined) this.rebuildIndex();
      return this.index!.get(key) ?? -1;
    }
    for (let i = 0; i < keys.length; i++) if (keys[i] === key) return i;
    if (key !== key)
      for (let i = 0; i < keys.length; i++)
        if (sameKey(keys[i]!, key)) return i;
    return -1;
  }

  private rebuildIndex(): void {
    const index = new Map<InternalKey, number>();
    this.keyList.forEach((key, position) => index.set(key, position));
    this.index = index;
  }

  get size(): number {
    return this.keyList.length;
  }
  has(key: PyKey): boolean {
    return this.find(internalKey(key)) >= 0;
  }
  /** The value, or `undefined` when the key is absent (Python would raise). */
  get(key: PyKey): PyValue | undefined {
    const position = this.find(internalKey(key));
    return position < 0 ? undefined : this.valueList[position];
  }
  /** Sets a value; an existing equal key keeps its original key object and slot. */
  set(key: PyKey, value: PyValue): this {
    this.assertMutable();
    const k = internalKey(key);
    const position = this.find(k);
    if (position >= 0) {
      this.valueList[position] = value;
      return this;
    }
    if (this.keyList === noKeys) {
      // The first insertion: the shared empty arrays are not this dict's to write.
      this.keyList = [k];
      this.valueList = [value];
    } else {
      this.keyList.push(k);
      this.valueList.push(value);
    }
    if (k !== key) (this.originalKeys ??= new Map()).set(k, key);
    if (this.index !== undefined) this.index.set(k, this.keyList.length - 1);
    return this;
  }
  delete(key: PyKey): boolean {
    this.assertMutable();
    const k = internalKey(key);
    const position = this.find(k);
    if (position < 0) return false;
    this.keyList.splice(position, 1);
    this.valueList.splice(position, 1);
    this.originalKeys?.delete(k);
    this.index = undefined;
    return true;
  }
  clear(): void {
    this.assertMutable();
    this.keyList = noKeys;
    this.valueList = noValues;
    this.index = undefined;
    this.originalKeys = undefined;
  }
  keys(): IterableIterator<PyKey> {
    return new PyDictIterator(this, pickKey);
  }
  values(): IterableIterator<PyValue> {
    return new PyDictIterator(this, pickValue);
  }
  entries(): IterableIterator<[PyKey, PyValue]> {
    return new PyDictIterator(this, pickEntry);
  }
  [Symbol.iterator](): IterableIterator<[PyKey, PyValue]> {
    return this.entries();
  }
}

/** A Python set. Iteration follows insertion order (CPython's hash order is not reproduced). */
export class PySet {
  private readonly map = new Map<InternalKey, PyKey>();
  constructor(items?: Iterable<PyKey>) {
    if (items) for (const item of items) this.add(item);
  }
  get size(): number {
    return this.map.size;
  }
  has(item: PyKey): boolean {
    return this.map.has(internalKey(item));
  }
  add(item: PyKey): this {
    const k = internalKey(item);
    if (!this.map.has(k)) this.map.set(k, item);
    return this;
  }
  delete(item: PyKey): boolean {
    return this.map.delete(internalKey(item));
  }
  *values(): IterableIterator<PyKey> {
    yield* this.map.values();
  }
  [Symbol.iterator](): IterableIterator<PyKey> {
    return this.values();
  }
}

/** True for a Python `int` (not `bool`). */
export function isPyInt(value: unknown): value is bigint {
  return typeof value === 'bigint';
}
/** True for a Python `float`. */
export function isPyFloat(value: unknown): value is number {
  return typeof value === 'number';
}
/** True for `int`, `float` or `bool` (Python's numeric tower as BFCL uses it). */
export function isPyNumber(value: unknown): value is bigint | number | boolean {
  return (
    typeof value === 'bigint' ||
    typeof value === 'number' ||
    typeof value === 'boolean'
  );
}
const frozenLists = new WeakSet<readonly PyValue[]>();

/**
 * Freezes the lists inside `value` whose items are all immutable (numbers,
 * strings, `None`, bools and such lists, at any depth) and returns `value`.
 * Renderers may cache the text of a frozen list: it can never change. Meant
 * for constants shared by every instance, such as BFCL's long-context
 * padding; a later attempt to mutate one throws a `TypeError`.
 */
export function freezePyValue<T extends PyValue>(value: T): T {
  freezeImmutableLists(value);
  return value;
}

function freezeImmutableLists(value: PyValue): boolean {
  if (value === null || typeof value !== 'object') return true;
  if (Array.isArray(value)) {
    let immutable = true;
    for (const item of value)
      if (!freezeImmutableLists(item)) immutable = false;
    if (immutable) {
      Object.freeze(value);
      frozenLists.add(value);
    }
    return immutable;
  }
  if (value instanceof PyDict) {
    for (const item of value.values()) freezeImmutableLists(item);
    return false;
  }
  if (value instanceof PyTuple) {
    let immutable = true;
    for (const item of value.items)
      if (!freezeImmutableLists(item)) immutable = false;
    return immutable;
  }
  return false;
}

const frozenTrees = new WeakSet<object>();

/**
 * Marks `value` as shared read-only data and returns it: its dicts become
 * read-only (mutating one throws a `TypeError`; its lists are left as they
 * are, since V8 reads frozen arrays slower, and must not be mutated either).
 * When it is a tree (no container reached twice, no set, every other object
 * immutable), deep copies of it and of its parts skip `deepcopy`'s memo:
 * with nothing shared there is no aliasing to keep, and read-only data that
 * is copied for every instance (BFCL's initial configs and default states)
 * copies several times faster.
 */
export function freezePyTree<T extends PyValue>(value: T): T {
  const shared = new Set<object>();
  findShared(value, new Set(), shared);
  freezeContainers(value, shared, new Set());
  return value;
}

/** Collects the containers reached more than once (shared, or on a cycle). */
function findShared(
  value: PyValue,
  seen: Set<object>,
  shared: Set<object>,
): void {
  if (!isContainer(value)) return;
  if (seen.has(value)) {
    shared.add(value);
    return;
  }
  seen.add(value);
  const items = Array.isArray(value)
    ? value
    : value instanceof PyTuple
      ? value.items
      : PyDict.internalValues(value);
  for (const item of items) findShared(item, seen, shared);
}

function isContainer(value: PyValue): value is PyValue[] | PyTuple | PyDict {
  return (
    Array.isArray(value) || value instanceof PyTuple || value instanceof PyDict
  );
}

/**
 * Freezes the containers under `value` and registers every one that is a
 * tree: not shared, holding no set or stateful object, its parts trees too.
 */
function freezeContainers(
  value: PyValue,
  shared: ReadonlySet<object>,
  done: Set<object>,
): boolean {
  if (value === null || typeof value !== 'object') return true;
  // A set cannot be frozen; an object that copies itself may hold state.
  if (!isContainer(value))
    return !(value instanceof PySet) && value.pyDeepCopy(new Map()) === value;
  if (done.has(value)) return false;
  done.add(value);
  let tree = !shared.has(value);
  if (Array.isArray(value)) {
    for (const item of value)
      if (!freezeContainers(item, shared, done)) tree = false;
  } else if (value instanceof PyTuple) {
    for (const item of value.items)
      if (!freezeContainers(item, shared, done)) tree = false;
  } else {
    for (const item of PyDict.internalValues(value))
      if (!freezeContainers(item, shared, done)) tree = false;
    PyDict.freeze(value);
  }
  if (tree) frozenTrees.add(value);
  return tree;
}

/** A deep copy of a frozen tree: no memo, nothing shared to keep. */
function copyTree(value: PyValue): PyValue {
  if (value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) {
    const copy: PyValue[] = new Array<PyValue>(value.length);
    for (let i = 0; i < value.length; i++) copy[i] = copyTree(value[i]!);
    return copy;
  }
  if (value instanceof PyDict) return PyDict.mapValues(value, copyTree);
  if (value instanceof PyTuple) return new PyTuple(value.items.map(copyTree));
  // Immutable objects (Ellipsis) copy as themselves.
  return value;
}

/** True for a list frozen by {@link freezePyValue} (deeply immutable). */
export function isFrozenPyList(value: readonly PyValue[]): boolean {
  return frozenLists.has(value);
}

/** True for a Python list. */
export function isPyList(value: unknown): value is PyValue[] {
  return Array.isArray(value);
}
/** True for a hashable value (usable as a dict key). */
export function isPyKey(value: PyValue): value is PyKey {
  return (
    value === null ||
    typeof value === 'boolean' ||
    typeof value === 'bigint' ||
    typeof value === 'number' ||
    typeof value === 'string' ||
    (value instanceof PyTuple && value.items.every(isPyKey))
  );
}

/** `type(value).__name__`. */
export function pyTypeName(value: PyValue): string {
  if (value === null) return 'NoneType';
  switch (typeof value) {
    case 'boolean':
      return 'bool';
    case 'bigint':
      return 'int';
    case 'number':
      return 'float';
    case 'string':
      return 'str';
  }
  if (Array.isArray(value)) return 'list';
  if (value instanceof PyTuple) return 'tuple';
  if (value instanceof PyDict) return 'dict';
  if (value instanceof PySet) return 'set';
  return value.pyTypeName;
}

/** Python truthiness (`bool(value)`). */
export function pyTruthy(value: PyValue): boolean {
  if (value === null) return false;
  switch (typeof value) {
    case 'boolean':
      return value;
    case 'bigint':
      return value !== 0n;
    case 'number':
      return value !== 0;
    case 'string':
      return value.length > 0;
  }
  if (Array.isArray(value)) return value.length > 0;
  if (value instanceof PyTuple) return value.length > 0;
  if (value instanceof PyDict || value instanceof PySet) return value.size > 0;
  return true;
}

/** `copy.deepcopy(value)`, preserving aliasing inside the copied structure. */
export function pyDeepCopy<T extends PyValue>(
  value: T,
  memo?: Map<unknown, unknown>,
): T {
  if (value === null || typeof value !== 'object') return value;
  if (memo === undefined) {
    // A whole read-only tree needs no memo at all.
    if (frozenTrees.has(value)) return copyTree(value) as T;
    memo = new Map();
  } else {
    const seen = memo.get(value);
    if (seen !== undefined) return seen as T;
    if (frozenTrees.has(value)) {
      const copy = copyTree(value);
      memo.set(value, copy);
      return copy as T;
    }
  }
  if (Array.isArray(value)) {
    const copy: PyValue[] = [];
    memo.set(value, copy);
    for (let i = 0; i < value.length; i++)
      copy.push(pyDeepCopy(value[i]!, memo));
    return copy as T;
  }
  if (value instanceof PyTuple) {
    const copy = new PyTuple(value.items.map((item) => pyDeepCopy(item, memo)));
    memo.set(value, copy);
    return copy as T;
  }
  if (value instanceof PyDict) {
    const copy = new PyDict();
    memo.set(value, copy);
    PyDict.deepCopyInto(value, copy, memo);
    return copy as T;
  }
  if (value instanceof PySet) {
    const copy = new PySet(value);
    memo.set(value, copy);
    return copy as T;
  }
  const copy = (value as PyObject).pyDeepCopy(memo);
  memo.set(value, copy);
  return copy as T;
}

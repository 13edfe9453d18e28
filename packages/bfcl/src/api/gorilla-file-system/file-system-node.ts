import {
  PyDict,
  PyException,
  PyObject,
  pyDeepCopy,
  pyEquals,
  pyFormatValue,
  pyRepr,
  type PyKey,
  type PyValue,
} from '@seal/python';

/**
 * BFCL's `File`: a name and a content. The content is whatever `echo` was
 * given (a model may pass an int or a list), so it stays a {@link PyValue}.
 *
 * Python also stamps `_last_modified` with `datetime.now()`; nothing reads
 * it, `==` ignores it and it is private, so it is not modelled.
 */
export class GorillaFile extends PyObject {
  readonly pyTypeName = 'File';
  /** The name, which is also its key in the parent's contents. */
  name: PyKey;
  /** The content (a `str` unless a model wrote something else). */
  content: PyValue;

  constructor(name: PyKey, content: PyValue = '') {
    super();
    this.name = name;
    this.content = content;
  }

  /** `_write`: replaces the content. */
  write(content: PyValue): void {
    this.content = content;
  }

  override pyRepr(): string {
    return `<<File: ${pyFormatValue(this.name)}, Content: ${pyFormatValue(this.content)}>>`;
  }

  /** Python `__eq__`: another `File` with an equal name and content. */
  override pyEquals(other: PyValue): boolean {
    return (
      other instanceof GorillaFile &&
      pyEquals(this.name, other.name) &&
      pyEquals(this.content, other.content)
    );
  }

  override pyDeepCopy(memo: Map<unknown, unknown>): GorillaFile {
    const copy = new GorillaFile(this.name, null);
    memo.set(this, copy);
    copy.name = pyDeepCopy(this.name, memo);
    copy.content = pyDeepCopy(this.content, memo);
    return copy;
  }

  /** The golden-file form: `{"type": "file", "name", "content"}`. */
  toComparable(): PyDict {
    return PyDict.fromObject({
      type: 'file',
      name: this.name,
      content: this.content,
    });
  }
}

/** A child of a directory. */
export type GorillaNode = GorillaFile | GorillaDirectory;

/**
 * BFCL's `Directory`: a name, a parent link and a `contents` dict of
 * children. `contents` is an ordinary reassignable field on purpose: BFCL's
 * `mv` hands the same dict to a new directory and `cp` a shallow copy of it,
 * and the port must alias exactly like that.
 */
export class GorillaDirectory extends PyObject {
  readonly pyTypeName = 'Directory';
  /** The name, which is also its key in the parent's contents. */
  name: PyKey;
  /** The directory this one was created in; `None` for the root. May be stale after `mv`. */
  parent: GorillaDirectory | null;
  /** Children by name, in insertion order. Values are {@link GorillaNode}s. */
  contents: PyDict = new PyDict();

  constructor(name: PyKey, parent: GorillaDirectory | null = null) {
    super();
    this.name = name;
    this.parent = parent;
  }

  /** `_add_file`: a new file; ValueError if the name is taken. */
  addFile(name: PyKey, content: PyValue = ''): void {
    if (this.contents.has(name)) {
      throw PyException.valueError(
        `File '${pyFormatValue(name)}' already exists in directory '${pyFormatValue(this.name)}'.`,
      );
    }
    this.contents.set(name, new GorillaFile(name, content));
  }

  /** `_add_directory`: a new sub-directory; ValueError if the name is taken. */
  addDirectory(name: PyKey): void {
    if (this.contents.has(name)) {
      throw PyException.valueError(
        `Directory '${pyFormatValue(name)}' already exists in directory '${pyFormatValue(this.name)}'.`,
      );
    }
    this.contents.set(name, new GorillaDirectory(name, this));
  }

  /**
   * `_get_item`: `.` is the directory itself (even when a child is named
   * `.`), anything else a child or `None`.
   */
  getItem(name: PyValue): GorillaNode | null {
    if (pyEquals(name, '.')) return this;
    return (
      (this.contents.get(name as PyKey) as GorillaNode | undefined) ?? null
    );
  }

  override pyRepr(): string {
    const parent = this.parent ? pyFormatValue(this.parent.name) : 'None';
    return `<Directory: ${pyFormatValue(this.name)}, Parent: ${parent}, Contents: ${pyRepr(this.contents)}>`;
  }

  /** Python `__eq__`: another `Directory` with an equal name and equal contents (parent ignored). */
  override pyEquals(other: PyValue): boolean {
    return (
      other instanceof GorillaDirectory &&
      pyEquals(this.name, other.name) &&
      pyEquals(this.contents, other.contents)
    );
  }

  /** `copy.deepcopy`, which (as in Python) also copies the parent chain. */
  override pyDeepCopy(memo: Map<unknown, unknown>): GorillaDirectory {
    const copy = new GorillaDirectory(this.name, null);
    memo.set(this, copy);
    copy.name = pyDeepCopy(this.name, memo);
    copy.parent = this.parent === null ? null : pyDeepCopy(this.parent, memo);
    copy.contents = pyDeepCopy(this.contents, memo);
    return copy;
  }

  /** The golden-file form: `{"type": "directory", "name", "contents": {name: node}}`. */
  toComparable(): PyDict {
    return PyDict.fromObject({
      type: 'directory',
      name: this.name,
      contents: new PyDict(this.contents),
    });
  }
}

/** Builds a tree from the golden-file form (as `default_states.json` stores the default root). */
export function directoryFromComparable(
  tree: PyValue,
  parent: GorillaDirectory | null = null,
): GorillaDirectory {
  const node = tree as PyDict;
  const directory = new GorillaDirectory(node.get('name') as PyKey, parent);
  const contents = node.get('contents');
  if (contents instanceof PyDict) {
    for (const [name, child] of contents) {
      const entry = child as PyDict;
      directory.contents.set(
        name,
        entry.get('type') === 'directory'
          ? directoryFromComparable(entry, directory)
          : new GorillaFile(name, entry.get('content') ?? ''),
      );
    }
  }
  return directory;
}

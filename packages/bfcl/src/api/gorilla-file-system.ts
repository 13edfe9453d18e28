import {
  PyDict,
  PyException,
  pyContains,
  pyEquals,
  pyFormatValue,
  pyGetItem,
  pyGt,
  pyIter,
  pyLen,
  pySorted,
  pySplitLines,
  pySplitWhitespace,
  pyTruthy,
  expectStr,
  formatFixed,
  noAttribute,
  type PyKey,
  type PyValue,
} from '@seal/python';
import * as z from 'zod';
import { errorResult as error, pyDict as dict } from './api-helpers';
import {
  BfclApi,
  type BfclClassDefinition,
  type BfclMethodTable,
} from './bfcl-api';
import type { BfclScenarioFields } from './bfcl-realm';
import type { BfclToolSpecs } from './tool-spec';
import {
  GorillaDirectory,
  GorillaFile,
  directoryFromComparable,
  type GorillaNode,
} from './gorilla-file-system/file-system-node';
import {
  joinStrings,
  sliceFromNegated,
  stripChars,
  utf8Length,
} from './gorilla-file-system/python-text';

export {
  GorillaDirectory,
  GorillaFile,
  type GorillaNode,
} from './gorilla-file-system/file-system-node';

/** Characters BFCL refuses in names created by `mkdir`, `touch`, `echo` and read by `cat`. */
const forbiddenNameCharacters = '|/\\?%*:"><';

/** CPython's default recursion limit, which a cyclic tree (after `cp d d`) runs into. */
const recursionLimit = 1000;

/** `f"{value}"`. */
const fmt = pyFormatValue;

/**
 * BFCL's `GorillaFileSystem`: an in-memory directory tree with a working
 * directory and shell-like commands. Behaviour, messages, aliasing and state
 * follow BFCL v3 (gorilla `cd9429cc`), including its oddities: `find` always
 * searches the working directory, `cp`/`mv` of a directory share objects, and
 * arguments of the wrong type fail the way CPython fails.
 */
export class GorillaFileSystem extends BfclApi {
  readonly className = 'GorillaFileSystem' as const;
  protected readonly attributeNames = ['long_context', 'root'] as const;

  /** Whether the scenario was loaded with long-context padding. */
  long_context!: boolean;
  /** The root directory. */
  root!: GorillaDirectory;
  /** `_current_dir`: the working directory (private, never compared). */
  private currentDir!: GorillaDirectory;

  /** The working directory (Python's private `_current_dir`). */
  get currentDirectory(): GorillaDirectory {
    return this.currentDir;
  }

  loadScenario(scenario: PyDict, longContext: boolean): void {
    this.long_context = longContext;
    const fields = this.realm.scenarioFields({
      className: 'GorillaFileSystem',
      scenario,
    });
    if (!scenario.has('root')) {
      this.root = directoryFromComparable(
        fields.defaultValue('root') ??
          dict({ name: '/', contents: new PyDict() }),
      );
    } else {
      // The tree is rebuilt as nodes, so only file contents are copied.
      const rootConfig = pyGetItem(scenario, 'root');
      const rootName = pyIter(rootConfig)[0]!;
      const rootDirectory = new GorillaDirectory(rootName as PyKey, null);
      this.root = this.loadDirectory(
        pyGetItem(pyGetItem(rootConfig, rootName), 'contents'),
        rootDirectory,
        fields,
      );
    }
    this.currentDir = this.root;
  }

  /**
   * `_load_directory`. In long-context mode every file not in
   * `FILES_TAIL_USED` gets `FILE_CONTENT_EXTENSION` appended, and every
   * directory without sub-directories (empty ones included) gets the
   * `POPULATE_FILE_EXTENSION` empty files, after its own entries.
   */
  private loadDirectory(
    config: PyValue,
    parent: GorillaDirectory,
    fields: BfclScenarioFields,
  ): GorillaDirectory {
    let bottommost = true;
    for (const name of pyIter(config)) {
      const data = pyGetItem(config, name);
      const type = pyGetItem(data, 'type');
      if (pyEquals(type, 'directory')) {
        bottommost = false;
        const directory = this.loadDirectory(
          pyGetItem(data, 'contents'),
          new GorillaDirectory(name as PyKey, parent),
          fields,
        );
        parent.contents.set(name as PyKey, directory);
      } else if (pyEquals(type, 'file')) {
        let content = fields.copy(pyGetItem(data, 'content'));
        if (
          this.long_context &&
          !pyContains(this.realm.longContextConstant('FILES_TAIL_USED'), name)
        ) {
          content = `${content as string}${this.realm.longContextConstant('FILE_CONTENT_EXTENSION') as string}`;
        }
        parent.contents.set(
          name as PyKey,
          new GorillaFile(name as PyKey, content),
        );
      }
    }
    if (bottommost && this.long_context) {
      for (const name of pyIter(
        this.realm.longContextConstant('POPULATE_FILE_EXTENSION'),
      )) {
        parent.addFile(name as PyKey);
      }
    }
    return parent;
  }

  /** `name in self._current_dir.contents` (TypeError for unhashable names). */
  private has(name: PyValue): boolean {
    return pyContains(this.currentDir.contents, name);
  }

  /** `_validate_file_or_directory_name`: `c in name` for each forbidden character. */
  private static validName(name: PyValue): boolean {
    for (const char of forbiddenNameCharacters) {
      if (pyContains(name, char)) return false;
    }
    return true;
  }

  /** `_navigate_to_directory(path)`: the directory, or undefined where Python returns its error dict. */
  private navigate(path: PyValue): GorillaDirectory | undefined {
    if (path === null || pyEquals(path, '.')) return this.currentDir;
    if (pyEquals(path, '/')) return this.root;
    const parts = stripChars(expectStr(path, 'strip'), '/', {
      left: true,
    }).split('/');
    let directory = expectStr(path, 'startswith').startsWith('/')
      ? this.root
      : this.currentDir;
    for (const part of parts) {
      const next = directory.getItem(part);
      if (!(next instanceof GorillaDirectory)) return undefined;
      directory = next;
    }
    return directory;
  }

  /** The file `name` in the working directory, if it exists and is a file. */
  private localFile(name: PyValue): GorillaFile | undefined {
    if (!this.has(name)) return undefined;
    const item = this.currentDir.getItem(name);
    return item instanceof GorillaFile ? item : undefined;
  }

  /** `_read().splitlines()` (AttributeError when a non-str content was written). */
  private static lines(file: GorillaFile): string[] {
    return pySplitLines(expectStr(file.content, 'splitlines'));
  }

  static readonly methods: BfclMethodTable<GorillaFileSystem> = {
    pwd: {
      parameters: [],
      call(self) {
        // Python stops at `dir.name != self.root`, a str compared with a
        // Directory, which is always true: the path runs up to and includes
        // the root's own name.
        const names: PyValue[] = [];
        for (
          let dir: GorillaDirectory | null = self.currentDir;
          dir !== null;
          dir = dir.parent
        )
          names.push(dir.name);
        return dict({
          current_working_directory: `/${joinStrings('/', names.reverse())}`,
        });
      },
    },
    ls: {
      parameters: [{ name: 'a', default: false }],
      call(self, args) {
        const [all] = args as [PyValue];
        let contents = [...self.currentDir.contents.keys()] as PyValue[];
        if (!pyTruthy(all))
          contents = contents.filter(
            (name) => !expectStr(name, 'startswith').startsWith('.'),
          );
        return dict({ current_directory_content: contents });
      },
    },
    cd: {
      parameters: [{ name: 'folder' }],
      call(self, args) {
        const [folder] = args as [PyValue];
        if (pyEquals(folder, '..')) {
          // `parent` may be a stale link left by `mv`; Python follows it.
          if (self.currentDir.parent) self.currentDir = self.currentDir.parent;
          else if (pyEquals(self.root, self.currentDir)) {
            return error(
              'Cuurent directory is already the root. Cannot go back.',
            );
          } else return error('cd: ..: No such directory');
          return dict({});
        }
        // Despite the message, multi-level and absolute paths work.
        const target = self.navigate(folder);
        if (!target)
          return error(
            `cd: ${fmt(folder)}: No such directory. You cannot use path to change directory.`,
          );
        self.currentDir = target;
        return dict({ current_working_directory: target.name });
      },
    },
    mkdir: {
      parameters: [{ name: 'dir_name' }],
      call(self, args) {
        const [name] = args as [PyValue];
        if (!GorillaFileSystem.validName(name)) {
          return error(
            `mkdir: cannot create directory '${fmt(name)}': Invalid character`,
          );
        }
        if (self.has(name))
          return error(
            `mkdir: cannot create directory '${fmt(name)}': File exists`,
          );
        self.currentDir.addDirectory(name as PyKey);
        return null;
      },
    },
    touch: {
      parameters: [{ name: 'file_name' }],
      call(self, args) {
        const [name] = args as [PyValue];
        if (!GorillaFileSystem.validName(name))
          return error(`touch: cannot touch '${fmt(name)}': Invalid character`);
        if (self.has(name))
          return error(`touch: cannot touch '${fmt(name)}': File exists`);
        self.currentDir.addFile(name as PyKey);
        return null;
      },
    },
    echo: {
      parameters: [{ name: 'content' }, { name: 'file_name', default: null }],
      call(self, args) {
        const [content, name] = args as [PyValue, PyValue];
        if (name === null) return dict({ terminal_output: content });
        if (!GorillaFileSystem.validName(name))
          return error(`echo: cannot touch '${fmt(name)}': Invalid character`);
        // A falsy name ('' or an empty tuple) prints instead of writing.
        if (!pyTruthy(name)) return dict({ terminal_output: content });
        if (self.has(name)) {
          // `.` resolves to the directory itself, which has no `_write`.
          const item = self.currentDir.getItem(name);
          if (!(item instanceof GorillaFile))
            throw PyException.attributeError(
              `'Directory' object has no attribute '_write'`,
            );
          item.write(content);
        } else {
          self.currentDir.addFile(name as PyKey, content);
        }
        return null;
      },
    },
    cat: {
      parameters: [{ name: 'file_name' }],
      call(self, args) {
        const [name] = args as [PyValue];
        if (!GorillaFileSystem.validName(name))
          return error(`cat: '${fmt(name)}': Invalid character`);
        if (!self.has(name))
          return error(`cat: ${fmt(name)}: No such file or directory`);
        const item = self.currentDir.getItem(name);
        if (item instanceof GorillaFile)
          return dict({ file_content: item.content });
        return error(`cat: ${fmt(name)}: Is a directory`);
      },
    },
    find: {
      parameters: [
        { name: 'path', default: '.' },
        { name: 'name', default: null },
      ],
      call(self, args) {
        const [path, name] = args as [PyValue, PyValue];
        // Python only uses `path` as the prefix of the results; the search
        // always starts at the working directory.
        const matches: string[] = [];
        const search = (
          directory: GorillaDirectory,
          base: string,
          depth: number,
        ): void => {
          if (depth > recursionLimit) {
            throw new PyException({
              pyType: 'RecursionError',
              message:
                'maximum recursion depth exceeded while calling a Python object',
            });
          }
          for (const [itemName, item] of directory.contents) {
            const itemPath = `${base}/${fmt(itemName)}`;
            if (name === null || pyContains(itemName, name))
              matches.push(itemPath);
            if (item instanceof GorillaDirectory)
              search(item, itemPath, depth + 1);
          }
        };
        search(
          self.currentDir,
          stripChars(expectStr(path, 'rstrip'), '/', { left: false }),
          1,
        );
        return dict({ matches });
      },
    },
    wc: {
      parameters: [{ name: 'file_name' }, { name: 'mode', default: 'l' }],
      call(self, args) {
        const [name, mode] = args as [PyValue, PyValue];
        if (!pyContains(['l', 'w', 'c'], mode))
          return error(`wc: invalid mode '${fmt(mode)}'`);
        const file = self.localFile(name);
        if (file) {
          if (mode === 'l')
            return dict({
              count: BigInt(GorillaFileSystem.lines(file).length),
              type: 'lines',
            });
          if (mode === 'w') {
            const words = pySplitWhitespace(expectStr(file.content, 'split'));
            return dict({ count: BigInt(words.length), type: 'words' });
          }
          return dict({ count: pyLen(file.content), type: 'characters' });
        }
        return error(`wc: ${fmt(name)}: No such file or directory`);
      },
    },
    sort: {
      parameters: [{ name: 'file_name' }],
      call(self, args) {
        const [name] = args as [PyValue];
        const file = self.localFile(name);
        if (file)
          return dict({
            sorted_content: pySorted(GorillaFileSystem.lines(file)).join('\n'),
          });
        return error(`sort: ${fmt(name)}: No such file or directory`);
      },
    },
    grep: {
      parameters: [{ name: 'file_name' }, { name: 'pattern' }],
      call(self, args) {
        const [name, pattern] = args as [PyValue, PyValue];
        const file = self.localFile(name);
        if (file) {
          const lines = GorillaFileSystem.lines(file).filter((line) =>
            pyContains(line, pattern),
          );
          return dict({ matching_lines: lines });
        }
        return error(`grep: ${fmt(name)}: No such file or directory`);
      },
    },
    du: {
      parameters: [{ name: 'human_readable', default: false }],
      call(self, args) {
        const [humanReadable] = args as [PyValue];
        const size = (item: GorillaNode, depth: number): bigint => {
          if (depth > recursionLimit) {
            throw new PyException({
              pyType: 'RecursionError',
              message: 'maximum recursion depth exceeded',
            });
          }
          if (item instanceof GorillaFile) {
            if (typeof item.content !== 'string')
              throw noAttribute(item.content, 'encode');
            return utf8Length(item.content);
          }
          let total = 0n;
          for (const child of item.contents.values())
            total += size(child as GorillaNode, depth + 1);
          return total;
        };
        const total = size(self.currentDir, 1);
        if (!pyTruthy(humanReadable))
          return dict({ disk_usage: `${total} bytes` });
        let scaled = Number(total);
        for (const unit of ['B', 'KB', 'MB', 'GB', 'TB']) {
          if (scaled < 1024)
            return dict({ disk_usage: `${formatFixed(scaled, 2)} ${unit}` });
          scaled /= 1024;
        }
        return dict({ disk_usage: `${formatFixed(scaled, 2)} PB` });
      },
    },
    tail: {
      parameters: [{ name: 'file_name' }, { name: 'lines', default: 10n }],
      call(self, args) {
        const [name, count] = args as [PyValue, PyValue];
        const file = self.localFile(name);
        if (file) {
          const lines = GorillaFileSystem.lines(file);
          let last = count;
          if (pyGt(last, BigInt(lines.length))) last = BigInt(lines.length);
          // `content[-lines:]`: 0 gives the whole file, a negative count
          // drops lines from the front, a float raises.
          return dict({ last_lines: sliceFromNegated(lines, last).join('\n') });
        }
        return error(`tail: ${fmt(name)}: No such file or directory`);
      },
    },
    diff: {
      parameters: [{ name: 'file_name1' }, { name: 'file_name2' }],
      call(self, args) {
        const [first, second] = args as [PyValue, PyValue];
        if (self.has(first) && self.has(second)) {
          const file1 = self.currentDir.getItem(first);
          const file2 = self.currentDir.getItem(second);
          if (file1 instanceof GorillaFile && file2 instanceof GorillaFile) {
            const lines1 = GorillaFileSystem.lines(file1);
            const lines2 = GorillaFileSystem.lines(file2);
            const out: string[] = [];
            for (let i = 0; i < Math.min(lines1.length, lines2.length); i++) {
              if (lines1[i] !== lines2[i])
                out.push(`- ${lines1[i]!}\n+ ${lines2[i]!}`);
            }
            return dict({ diff_lines: out.join('\n') });
          }
        }
        return error(
          `diff: ${fmt(first)} or ${fmt(second)}: No such file or directory`,
        );
      },
    },
    mv: {
      parameters: [{ name: 'source' }, { name: 'destination' }],
      call(self, args) {
        const [source, destination] = args as [PyValue, PyValue];
        const current = self.currentDir;
        if (!self.has(source))
          return error(
            `mv: cannot move '${fmt(source)}': No such file or directory`,
          );
        const item = current.getItem(source)!;
        if (pyContains(destination, '/')) {
          return error(
            'mv: no path allowed in destination. Only file name and folder name is supported for this operation.',
          );
        }
        if (self.has(destination)) {
          const target = current.getItem(destination);
          if (!(target instanceof GorillaDirectory)) {
            return error(
              `mv: cannot move '${fmt(source)}' to '${fmt(destination)}': Not a directory`,
            );
          }
          // The existence check uses `f"{source}"`, a str.
          if (target.contents.has(fmt(source))) {
            return error(
              `mv: cannot move '${fmt(source)}' to '${fmt(destination)}/${fmt(source)}': File exists`,
            );
          }
          current.contents.delete(source as PyKey);
          moveInto(target, source as PyKey, item);
          return dict({
            result: `'${fmt(source)}' moved to '${fmt(destination)}/${fmt(source)}'`,
          });
        }
        current.contents.delete(source as PyKey);
        moveInto(current, destination as PyKey, item);
        return dict({
          result: `'${fmt(source)}' moved to '${fmt(destination)}'`,
        });
      },
    },
    rm: {
      parameters: [{ name: 'file_name' }],
      call(self, args) {
        const [name] = args as [PyValue];
        if (!self.has(name))
          return error(
            `rm: cannot remove '${fmt(name)}': No such file or directory`,
          );
        self.currentDir.contents.delete(name as PyKey);
        return dict({ result: `'${fmt(name)}' removed` });
      },
    },
    rmdir: {
      parameters: [{ name: 'dir_name' }],
      call(self, args) {
        const [name] = args as [PyValue];
        if (!self.has(name))
          return error(
            `rmdir: cannot remove '${fmt(name)}': No such file or directory`,
          );
        const item = self.currentDir.getItem(name);
        if (!(item instanceof GorillaDirectory))
          return error(`rmdir: cannot remove '${fmt(name)}': Not a directory`);
        if (item.contents.size > 0)
          return error(
            `rmdir: failed to remove '${fmt(name)}': Directory not empty`,
          );
        self.currentDir.contents.delete(name as PyKey);
        return dict({ result: `'${fmt(name)}' removed` });
      },
    },
    cp: {
      parameters: [{ name: 'source' }, { name: 'destination' }],
      call(self, args) {
        const [source, destination] = args as [PyValue, PyValue];
        const current = self.currentDir;
        if (!self.has(source))
          return error(
            `cp: cannot copy '${fmt(source)}': No such file or directory`,
          );
        const item = current.getItem(source)!;
        if (pyContains(destination, '/')) {
          return error(
            "cp: don't allow path in destination. Only file name and folder name is supported for this operation.",
          );
        }
        if (self.has(destination)) {
          const target = current.getItem(destination);
          if (!(target instanceof GorillaDirectory)) {
            return error(
              `cp: cannot copy '${fmt(source)}' to '${fmt(destination)}': Not a directory`,
            );
          }
          // BFCL looks for 'destination/source' among the target's names,
          // which never matches; an existing name then makes `_add_file` or
          // `_add_directory` raise ValueError instead.
          if (target.contents.has(`${fmt(destination)}/${fmt(source)}`)) {
            return error(
              `cp: cannot copy '${fmt(source)}' to '${fmt(destination)}/${fmt(source)}': File exists`,
            );
          }
          copyInto(target, source as PyKey, item);
          return dict({
            result: `'${fmt(source)}' copied to '${fmt(destination)}/${fmt(source)}'`,
          });
        }
        copyInto(current, destination as PyKey, item);
        return dict({
          result: `'${fmt(source)}' copied to '${fmt(destination)}'`,
        });
      },
    },
  };
}

/**
 * `mv`'s insertion: a file becomes a new `File` with the same content; a
 * directory becomes a new `Directory` that takes over the very same
 * `contents` dict, so the children's `parent` links still point at the old,
 * detached directory object.
 */
function moveInto(
  target: GorillaDirectory,
  name: PyKey,
  item: GorillaNode,
): void {
  if (item instanceof GorillaFile) {
    target.addFile(name, item.content);
    return;
  }
  target.addDirectory(name);
  (target.contents.get(name) as GorillaDirectory).contents = item.contents;
}

/**
 * `cp`'s insertion: a file becomes a new `File`; a directory becomes a new
 * `Directory` holding a shallow copy of the `contents` dict, so the copy
 * shares every child `File` and `Directory` object with the original.
 */
function copyInto(
  target: GorillaDirectory,
  name: PyKey,
  item: GorillaNode,
): void {
  if (item instanceof GorillaFile) {
    target.addFile(name, item.content);
    return;
  }
  target.addDirectory(name);
  (target.contents.get(name) as GorillaDirectory).contents = new PyDict(
    item.contents,
  );
}

const fileName = (what: string) => z.string().describe(what);

/** Our descriptions and argument schemas of the GorillaFileSystem methods. */
export const gorillaFileSystemTools: BfclToolSpecs = {
  pwd: {
    description:
      'Show the path of the working directory, starting at the root folder.',
    parameters: z.object({}),
  },
  ls: {
    description: 'List the names in the working directory.',
    parameters: z.object({
      a: z
        .boolean()
        .default(false)
        .describe('Also list names starting with a dot. Default: false.'),
    }),
  },
  cd: {
    description:
      'Change the working directory to a sub-folder, or to the parent with "..".',
    parameters: z.object({
      folder: z.string().describe('Folder to enter, or ".." for the parent.'),
    }),
  },
  mkdir: {
    description: 'Make an empty folder inside the working directory.',
    parameters: z.object({
      dir_name: z.string().describe('Name of the new folder (no path).'),
    }),
  },
  touch: {
    description: 'Make an empty file inside the working directory.',
    parameters: z.object({
      file_name: fileName('Name of the new file (no path).'),
    }),
  },
  echo: {
    description:
      'Print some text, or store it in a file of the working directory (replacing what it held).',
    parameters: z.object({
      content: z.string().describe('The text.'),
      file_name: z
        .string()
        .optional()
        .describe('File to store the text in; leave out to print it.'),
    }),
  },
  cat: {
    description: 'Print what a file of the working directory holds.',
    parameters: z.object({ file_name: fileName('File to print (no path).') }),
  },
  find: {
    description:
      'Search the working directory and everything below it for names containing a string.',
    parameters: z.object({
      path: z
        .string()
        .default('.')
        .describe('Prefix put before every result path. Default: ".".'),
      name: z
        .string()
        .optional()
        .describe('Text the name must contain; leave out to list everything.'),
    }),
  },
  wc: {
    description:
      'Count the lines, words or characters of a file in the working directory.',
    parameters: z.object({
      file_name: fileName('File to count (no path).'),
      mode: z
        .string()
        .default('l')
        .describe('"l" lines, "w" words or "c" characters. Default: "l".'),
    }),
  },
  sort: {
    description:
      'Return the lines of a file in the working directory in sorted order.',
    parameters: z.object({
      file_name: fileName('File whose lines to sort (no path).'),
    }),
  },
  grep: {
    description:
      'Return the lines of a file in the working directory that contain a given text.',
    parameters: z.object({
      file_name: fileName('File to search (no path).'),
      pattern: z.string().describe('Text a line must contain.'),
    }),
  },
  du: {
    description:
      'Report how many bytes the working directory and everything below it take.',
    parameters: z.object({
      human_readable: z
        .boolean()
        .default(false)
        .describe('Scale to KB, MB, ... with two decimals. Default: false.'),
    }),
  },
  tail: {
    description: 'Return the final lines of a file in the working directory.',
    parameters: z.object({
      file_name: fileName('File to read (no path).'),
      lines: z
        .int()
        .default(10)
        .describe('How many lines from the end. Default: 10.'),
    }),
  },
  diff: {
    description:
      'Compare two files of the working directory line by line and show the lines that differ.',
    parameters: z.object({
      file_name1: fileName('First file (no path).'),
      file_name2: fileName('Second file (no path).'),
    }),
  },
  mv: {
    description:
      'Rename an entry of the working directory, or move it into a folder that sits beside it.',
    parameters: z.object({
      source: z.string().describe('Entry to move (no path).'),
      destination: z
        .string()
        .describe(
          'A sibling folder to move it into, or else its new name (no path).',
        ),
    }),
  },
  rm: {
    description:
      'Delete a file or folder (with everything in it) from the working directory.',
    parameters: z.object({ file_name: fileName('Entry to delete (no path).') }),
  },
  rmdir: {
    description: 'Delete an empty folder from the working directory.',
    parameters: z.object({
      dir_name: z.string().describe('Folder to delete (no path).'),
    }),
  },
  cp: {
    description:
      'Duplicate an entry of the working directory under a new name, or into a folder beside it.',
    parameters: z.object({
      source: z.string().describe('Entry to duplicate (no path).'),
      destination: z
        .string()
        .describe(
          'A sibling folder to copy it into, or else the name of the copy (no path).',
        ),
    }),
  },
};

/** Registry entry for {@link GorillaFileSystem}. */
export const gorillaFileSystemDefinition: BfclClassDefinition = {
  className: 'GorillaFileSystem',
  create: (realm) => new GorillaFileSystem(realm),
  methods: GorillaFileSystem.methods as BfclMethodTable<never>,
  stateless: false,
  description:
    'An in-memory file system with a working directory and shell-like file commands.',
  tools: gorillaFileSystemTools,
};

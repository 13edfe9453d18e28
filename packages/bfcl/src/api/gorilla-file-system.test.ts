import { PyDict, parsePyJson, pyRepr } from '@seal/python';
import { describe, expect, it } from 'vitest';
import { BfclSession } from '../session/bfcl-session';
import { comparableState } from '../state/comparable-state';
import {
  hasSharedBfclData,
  loadSharedBfclData,
  sharedDataSkipMessage,
} from '../test';
import { BfclRealm } from './bfcl-realm';
import {
  GorillaDirectory,
  GorillaFile,
  type GorillaFileSystem,
} from './gorilla-file-system';

// Every expected result string below was produced by BFCL's own Python
// (gorilla cd9429cc, CPython 3.11) through `execute_multi_turn_func_call`,
// each sequence on a fresh instance loaded with `workspace`.

const workspace = JSON.stringify({
  root: {
    ws: {
      type: 'directory',
      contents: {
        docs: {
          type: 'directory',
          contents: {
            'a.txt': { type: 'file', content: 'line b\nline a\r\nline c' },
            'b.txt': { type: 'file', content: 'line b\nline x\nline c\nextra' },
            sub: {
              type: 'directory',
              contents: { 'deep.txt': { type: 'file', content: 'deep' } },
            },
          },
        },
        empty: { type: 'directory', contents: {} },
        'notes.txt': { type: 'file', content: 'Zeta alpha\nété beta' },
      },
    },
  },
});

/** Call → result pairs, in order. */
const sequences = {
  navigation: [
    ['pwd()', '{"current_working_directory": "/ws"}'],
    ["cd(folder='docs/sub')", '{"current_working_directory": "sub"}'],
    ['pwd()', '{"current_working_directory": "/ws/docs/sub"}'],
    ["cd(folder='..')", '{}'],
    ['pwd()', '{"current_working_directory": "/ws/docs"}'],
    ["cd(folder='/docs')", '{"current_working_directory": "docs"}'],
    ["cd(folder='..')", '{}'],
    [
      "cd(folder='..')",
      '{"error": "Cuurent directory is already the root. Cannot go back."}',
    ],
    [
      "cd(folder='nope')",
      '{"error": "cd: nope: No such directory. You cannot use path to change directory."}',
    ],
    [
      "cd(folder='docs//sub')",
      '{"error": "cd: docs//sub: No such directory. You cannot use path to change directory."}',
    ],
    [
      'cd(folder=5)',
      "Error during execution: 'int' object has no attribute 'strip'",
    ],
    [
      "cd(folder=['x'])",
      "Error during execution: 'list' object has no attribute 'strip'",
    ],
    ['cd(folder=None)', '{"current_working_directory": "ws"}'],
    ["cd(folder='/')", '{"current_working_directory": "ws"}'],
    ['ls()', '{"current_directory_content": ["docs", "empty", "notes.txt"]}'],
  ],
  tail: [
    ["cd(folder='docs')", '{"current_working_directory": "docs"}'],
    [
      "tail(file_name='a.txt', lines=0)",
      '{"last_lines": "line b\\nline a\\nline c"}',
    ],
    ["tail(file_name='a.txt', lines=-1)", '{"last_lines": "line a\\nline c"}'],
    ["tail(file_name='a.txt', lines=1)", '{"last_lines": "line c"}'],
    [
      "tail(file_name='a.txt', lines=1.0)",
      'Error during execution: slice indices must be integers or None or have an __index__ method',
    ],
    [
      "tail(file_name='a.txt', lines=100.5)",
      '{"last_lines": "line b\\nline a\\nline c"}',
    ],
    [
      "tail(file_name='a.txt', lines='2')",
      "Error during execution: '>' not supported between instances of 'str' and 'int'",
    ],
    ["tail(file_name='a.txt', lines=True)", '{"last_lines": "line c"}'],
    [
      "tail(file_name='a.txt', lines=None)",
      "Error during execution: '>' not supported between instances of 'NoneType' and 'int'",
    ],
    [
      "tail(file_name='sub')",
      '{"error": "tail: sub: No such file or directory"}',
    ],
    [
      "tail(file_name='missing.txt', lines=1.5)",
      '{"error": "tail: missing.txt: No such file or directory"}',
    ],
  ],
  text: [
    ["cd(folder='docs')", '{"current_working_directory": "docs"}'],
    ["wc(file_name='b.txt')", '{"count": 4, "type": "lines"}'],
    ["wc(file_name='b.txt', mode='w')", '{"count": 7, "type": "words"}'],
    ["wc(file_name='b.txt', mode='c')", '{"count": 26, "type": "characters"}'],
    ["wc(file_name='b.txt', mode='x')", '{"error": "wc: invalid mode \'x\'"}'],
    ["wc(file_name='sub', mode=1.0)", '{"error": "wc: invalid mode \'1.0\'"}'],
    [
      "sort(file_name='a.txt')",
      '{"sorted_content": "line a\\nline b\\nline c"}',
    ],
    [
      "grep(file_name='b.txt', pattern='line')",
      '{"matching_lines": ["line b", "line x", "line c"]}',
    ],
    [
      "grep(file_name='b.txt', pattern=1)",
      "Error during execution: 'in <string>' requires string as left operand, not int",
    ],
    [
      "diff(file_name1='a.txt', file_name2='b.txt')",
      '{"diff_lines": "- line a\\n+ line x"}',
    ],
    [
      "diff(file_name1='a.txt', file_name2='sub')",
      '{"error": "diff: a.txt or sub: No such file or directory"}',
    ],
    [
      "diff(file_name1='zzz', file_name2=['x'])",
      '{"error": "diff: zzz or [\'x\']: No such file or directory"}',
    ],
    [
      "diff(file_name1='a.txt', file_name2=['x'])",
      "Error during execution: unhashable type: 'list'",
    ],
    ["cd(folder='..')", '{}'],
    ['du()', '{"disk_usage": "72 bytes"}'],
    ['du(human_readable=True)', '{"disk_usage": "72.00 B"}'],
    [`echo(content='${'z'.repeat(5000)}', file_name='big.txt')`, 'None'],
    ['du(human_readable=True)', '{"disk_usage": "4.95 KB"}'],
    [
      'find()',
      '{"matches": ["./docs", "./docs/a.txt", "./docs/b.txt", "./docs/sub", "./docs/sub/deep.txt", "./empty", "./notes.txt", "./big.txt"]}',
    ],
    [
      "find(path='/x//', name='txt')",
      '{"matches": ["/x/docs/a.txt", "/x/docs/b.txt", "/x/docs/sub/deep.txt", "/x/notes.txt", "/x/big.txt"]}',
    ],
    [
      "find(name='')",
      '{"matches": ["./docs", "./docs/a.txt", "./docs/b.txt", "./docs/sub", "./docs/sub/deep.txt", "./empty", "./notes.txt", "./big.txt"]}',
    ],
    [
      'find(name=1)',
      "Error during execution: 'in <string>' requires string as left operand, not int",
    ],
    [
      'find(path=3)',
      "Error during execution: 'int' object has no attribute 'rstrip'",
    ],
  ],
  cp_aliasing: [
    [
      "cp(source='docs', destination='copy')",
      '{"result": "\'docs\' copied to \'copy\'"}',
    ],
    ["cd(folder='copy')", '{"current_working_directory": "copy"}'],
    ["echo(content='changed', file_name='a.txt')", 'None'],
    ["touch(file_name='only_in_copy.txt')", 'None'],
    ["cd(folder='..')", '{}'],
    ["cd(folder='docs')", '{"current_working_directory": "docs"}'],
    ["cat(file_name='a.txt')", '{"file_content": "changed"}'],
    ['ls()', '{"current_directory_content": ["a.txt", "b.txt", "sub"]}'],
    ["cd(folder='..')", '{}'],
    [
      "cp(source='notes.txt', destination='empty')",
      '{"result": "\'notes.txt\' copied to \'empty/notes.txt\'"}',
    ],
    [
      "cp(source='notes.txt', destination='empty')",
      "Error during execution: File 'notes.txt' already exists in directory 'empty'.",
    ],
    [
      "cp(source='docs', destination='empty')",
      '{"result": "\'docs\' copied to \'empty/docs\'"}',
    ],
    [
      "cp(source='docs', destination='empty')",
      "Error during execution: Directory 'docs' already exists in directory 'empty'.",
    ],
    [
      "cp(source='notes.txt', destination='notes.txt')",
      '{"error": "cp: cannot copy \'notes.txt\' to \'notes.txt\': Not a directory"}',
    ],
    [
      "cp(source='notes.txt', destination='a/b')",
      '{"error": "cp: don\'t allow path in destination. Only file name and folder name is supported for this operation."}',
    ],
    [
      "cp(source='nope', destination='x')",
      '{"error": "cp: cannot copy \'nope\': No such file or directory"}',
    ],
    [
      "cp(source='notes.txt', destination=5)",
      "Error during execution: argument of type 'int' is not iterable",
    ],
  ],
  mv_aliasing: [
    [
      "mv(source='docs', destination='moved')",
      '{"result": "\'docs\' moved to \'moved\'"}',
    ],
    ["cd(folder='moved')", '{"current_working_directory": "moved"}'],
    ["cd(folder='sub')", '{"current_working_directory": "sub"}'],
    ["cd(folder='..')", '{}'],
    ['pwd()', '{"current_working_directory": "/ws/docs"}'],
    ["touch(file_name='new.txt')", 'None'],
    ["cd(folder='/moved')", '{"current_working_directory": "moved"}'],
    [
      'ls()',
      '{"current_directory_content": ["a.txt", "b.txt", "sub", "new.txt"]}',
    ],
    ["cd(folder='/')", '{"current_working_directory": "ws"}'],
    [
      "mv(source='notes.txt', destination='empty')",
      '{"result": "\'notes.txt\' moved to \'empty/notes.txt\'"}',
    ],
    [
      "mv(source='empty', destination='moved')",
      '{"result": "\'empty\' moved to \'moved/empty\'"}',
    ],
    [
      "mv(source='moved', destination='moved')",
      '{"result": "\'moved\' moved to \'moved/moved\'"}',
    ],
    ['ls()', '{"current_directory_content": []}'],
    [
      "mv(source='x', destination='y')",
      '{"error": "mv: cannot move \'x\': No such file or directory"}',
    ],
    [
      "mv(source='z', destination='a/b')",
      '{"error": "mv: cannot move \'z\': No such file or directory"}',
    ],
  ],
  names: [
    [
      "mkdir(dir_name='a/b')",
      '{"error": "mkdir: cannot create directory \'a/b\': Invalid character"}',
    ],
    [
      'mkdir(dir_name=5)',
      "Error during execution: argument of type 'int' is not iterable",
    ],
    [
      "mkdir(dir_name='docs')",
      '{"error": "mkdir: cannot create directory \'docs\': File exists"}',
    ],
    [
      "touch(file_name=['x'])",
      "Error during execution: unhashable type: 'list'",
    ],
    [
      "touch(file_name='notes.txt')",
      '{"error": "touch: cannot touch \'notes.txt\': File exists"}',
    ],
    [
      "touch(file_name='c:d')",
      '{"error": "touch: cannot touch \'c:d\': Invalid character"}',
    ],
    ["echo(content='x', file_name='')", '{"terminal_output": "x"}'],
    ["echo(content='hi')", '{"terminal_output": "hi"}'],
    ["echo(content=5, file_name='num.txt')", 'None'],
    ["cat(file_name='num.txt')", '{"file_content": 5}'],
    [
      "wc(file_name='num.txt')",
      "Error during execution: 'int' object has no attribute 'splitlines'",
    ],
    [
      "wc(file_name='num.txt', mode='c')",
      "Error during execution: object of type 'int' has no len()",
    ],
    ['du()', "Error during execution: 'int' object has no attribute 'encode'"],
    ["rm(file_name='num.txt')", '{"result": "\'num.txt\' removed"}'],
    ["echo(content=['a', 'b'], file_name='list.txt')", 'None'],
    [
      "wc(file_name='list.txt', mode='c')",
      '{"count": 2, "type": "characters"}',
    ],
    ["rm(file_name='list.txt')", '{"result": "\'list.txt\' removed"}'],
    [
      "echo(content='x', file_name='docs')",
      "Error during execution: 'Directory' object has no attribute '_write'",
    ],
    ["cat(file_name='docs')", '{"error": "cat: docs: Is a directory"}'],
    ["cat(file_name='a*')", '{"error": "cat: \'a*\': Invalid character"}'],
    [
      "rmdir(dir_name='docs')",
      '{"error": "rmdir: failed to remove \'docs\': Directory not empty"}',
    ],
    [
      "rmdir(dir_name='notes.txt')",
      '{"error": "rmdir: cannot remove \'notes.txt\': Not a directory"}',
    ],
    ["rmdir(dir_name='empty')", '{"result": "\'empty\' removed"}'],
    [
      "rmdir(dir_name='empty')",
      '{"error": "rmdir: cannot remove \'empty\': No such file or directory"}',
    ],
    ["rm(file_name='docs')", '{"result": "\'docs\' removed"}'],
    ['ls()', '{"current_directory_content": ["notes.txt"]}'],
  ],
  dot: [
    ["touch(file_name='.')", 'None'],
    ["touch(file_name='.hidden')", 'None'],
    ['ls()', '{"current_directory_content": ["docs", "empty", "notes.txt"]}'],
    [
      'ls(a=True)',
      '{"current_directory_content": ["docs", "empty", "notes.txt", ".", ".hidden"]}',
    ],
    ["cat(file_name='.')", '{"error": "cat: .: Is a directory"}'],
    [
      "echo(content='x', file_name='.')",
      "Error during execution: 'Directory' object has no attribute '_write'",
    ],
    [
      "rmdir(dir_name='.')",
      '{"error": "rmdir: failed to remove \'.\': Directory not empty"}',
    ],
    ["rm(file_name='.')", '{"result": "\'.\' removed"}'],
    [
      'ls(a=True)',
      '{"current_directory_content": ["docs", "empty", "notes.txt", ".hidden"]}',
    ],
  ],
  surrogate: [
    ["echo(content='ok\\ud800x', file_name='bad.txt')", 'None'],
    [
      'du()',
      "Error during execution: 'utf-8' codec can't encode character '\\ud800' in position 2: surrogates not allowed",
    ],
    ["echo(content='\\ud800\\udfff', file_name='bad.txt')", 'None'],
  ],
} satisfies Record<string, [string, string][]>;

async function createSession({
  config = workspace,
  longContext = false,
}: { config?: string; longContext?: boolean } = {}): Promise<BfclSession> {
  const dataset = await loadSharedBfclData();
  return new BfclSession({
    realm: new BfclRealm({ data: dataset.runtime }),
    initialConfig: new PyDict([['GorillaFileSystem', parsePyJson(config)]]),
    involvedClasses: ['GorillaFileSystem'],
    longContext,
  });
}

async function replay(pairs: [string, string][]): Promise<BfclSession> {
  const session = await createSession();
  expect(pairs.map(([call]) => [call, session.execute(call).result])).toEqual(
    pairs,
  );
  return session;
}

function fileSystem(session: BfclSession): GorillaFileSystem {
  return session.instances.get('GorillaFileSystem') as GorillaFileSystem;
}

function child(
  directory: GorillaDirectory,
  name: string,
): GorillaDirectory | GorillaFile {
  return directory.contents.get(name) as GorillaDirectory | GorillaFile;
}

describe.skipIf(!hasSharedBfclData)('GorillaFileSystem', () => {
  describe('navigation', () => {
    it('should include the root name in pwd and accept multi-level and absolute paths in cd', async () => {
      await replay(sequences.navigation);
    });
  });

  describe('tail', () => {
    it('should slice like Python: 0 gives all, negatives drop from the front, floats raise unless clamped', async () => {
      await replay(sequences.tail);
    });
  });

  describe('text commands', () => {
    it('should count, sort, grep, diff, size and find as BFCL does', async () => {
      await replay(sequences.text);
    });
  });

  describe('cp', () => {
    it('should share File objects between a copied directory and its original', async () => {
      const session = await replay(sequences.cp_aliasing);
      const root = fileSystem(session).root;
      const original = child(root, 'docs') as GorillaDirectory;
      const copy = child(root, 'copy') as GorillaDirectory;
      expect(child(copy, 'a.txt')).toBe(child(original, 'a.txt'));
      expect(copy.contents).not.toBe(original.contents);
      expect(original.contents.has('only_in_copy.txt')).toBe(false);
    });
  });

  describe('mv', () => {
    it('should hand the same contents to the moved directory and leave stale parent links', async () => {
      const session = await replay(sequences.mv_aliasing);
      // `mv('moved', 'moved')` moved the directory into itself: it is gone.
      expect([...fileSystem(session).root.contents.keys()]).toEqual([]);
    });
  });

  describe('names and argument types', () => {
    it('should reject bad names and fail on non-str arguments with CPython messages', async () => {
      await replay(sequences.names);
    });

    it('should resolve "." to the directory itself even when a file is named "."', async () => {
      await replay(sequences.dot);
    });

    it('should raise UnicodeEncodeError in du for a lone surrogate', async () => {
      await replay(sequences.surrogate);
    });
  });

  describe('loadScenario', () => {
    it('should use the default root "/" when the scenario has none', async () => {
      const session = await createSession({ config: '{}' });
      expect(session.execute('pwd()').result).toBe(
        '{"current_working_directory": "//"}',
      );
      expect(
        fileSystem(session)
          .publicAttributes()
          .map(([name]) => name),
      ).toEqual(['long_context', 'root']);
    });

    it('should pad files and populate bottom-most directories in long-context mode', async () => {
      const config = JSON.stringify({
        root: {
          ws: {
            type: 'directory',
            contents: {
              'log.txt': { type: 'file', content: 'a\nb' },
              'x.txt': { type: 'file', content: 'b' },
              d: { type: 'directory', contents: {} },
              e: {
                type: 'directory',
                contents: { f: { type: 'directory', contents: {} } },
              },
            },
          },
        },
      });
      const session = await createSession({ config, longContext: true });
      const pairs: [string, string][] = [
        ["cat(file_name='log.txt')", '{"file_content": "a\\nb"}'],
        [
          "wc(file_name='x.txt', mode='c')",
          '{"count": 3252, "type": "characters"}',
        ],
        [
          'ls()',
          '{"current_directory_content": ["log.txt", "x.txt", "d", "e"]}',
        ],
        ["cd(folder='/e')", '{"current_working_directory": "e"}'],
        ['ls()', '{"current_directory_content": ["f"]}'],
        ["cd(folder='f')", '{"current_working_directory": "f"}'],
        [
          "find(name='image_8')",
          '{"matches": ["./image_8219547643081662353.jpg", "./image_8190489168166590809.jpg", "./image_8618240224293913315.jpg", "./image_8749630317332649147.jpg"]}',
        ],
        ["cd(folder='/')", '{"current_working_directory": "ws"}'],
        ['du(human_readable=True)', '{"disk_usage": "3.20 KB"}'],
      ];
      expect(
        pairs.map(([call]) => [call, session.execute(call).result]),
      ).toEqual(pairs);
      expect(
        (child(fileSystem(session).root, 'd') as GorillaDirectory).contents
          .size,
      ).toBe(30);
    });
  });

  describe('state', () => {
    it('should expose the tree in the golden convention', async () => {
      const session = await createSession({
        config: JSON.stringify({
          root: {
            r: {
              type: 'directory',
              contents: { 'f.txt': { type: 'file', content: 'hi' } },
            },
          },
        }),
      });
      const state = comparableState(fileSystem(session));
      expect(state.get('long_context')).toBe(false);
      expect(state.get('root')).toEqual(
        PyDict.fromObject({
          type: 'directory',
          name: 'r',
          contents: PyDict.fromObject({
            'f.txt': PyDict.fromObject({
              type: 'file',
              name: 'f.txt',
              content: 'hi',
            }),
          }),
        }),
      );
    });
  });
});

describe.skipIf(hasSharedBfclData)(
  'GorillaFileSystem (shared BFCL data absent)',
  () => {
    it.skip(sharedDataSkipMessage, () => {});
  },
);

describe('GorillaDirectory and GorillaFile', () => {
  it('should compare like Python __eq__: names and contents, not parents', () => {
    const a = new GorillaDirectory('d', new GorillaDirectory('p1'));
    const b = new GorillaDirectory('d', null);
    a.addFile('f', 'x');
    b.addFile('f', 'x');
    expect(a.pyEquals(b)).toBe(true);
    b.addFile('g');
    expect(a.pyEquals(b)).toBe(false);
    expect(new GorillaFile('f', 'x').pyEquals(new GorillaFile('f', 'y'))).toBe(
      false,
    );
    expect(new GorillaFile('f', 'x').pyEquals('f')).toBe(false);
  });

  it('should print like Python __repr__', () => {
    const root = new GorillaDirectory('r');
    root.addDirectory('d');
    (root.contents.get('d') as GorillaDirectory).addFile('f.txt', 'hi');
    expect(pyRepr(root)).toBe(
      "<Directory: r, Parent: None, Contents: {'d': <Directory: d, Parent: r, Contents: {'f.txt': <<File: f.txt, Content: hi>>}>}>",
    );
  });

  it('should raise ValueError with BFCL text when a name is taken', () => {
    const root = new GorillaDirectory('r');
    root.addFile('f');
    expect(() => root.addFile('f')).toThrow(
      "File 'f' already exists in directory 'r'.",
    );
    expect(() => root.addDirectory('f')).toThrow(
      "Directory 'f' already exists in directory 'r'.",
    );
  });
});

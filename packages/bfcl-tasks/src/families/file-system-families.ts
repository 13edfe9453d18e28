import type { PyRandom } from '@seal/python';
import {
  between,
  chance,
  distractors,
  insertAtRandom,
  pick,
  pickSome,
} from '../draw';
import { defineIntent } from '../phrasing';
import { callText, int } from '../py-build';
import {
  fileNode,
  fileSystemState,
  folderNode,
  type FileSystemNode,
} from '../states';
import type { FamilyContext, TaskFamily } from '../task-family';
import {
  fileExtensions,
  fileStems,
  folderNames,
  rootFolderNames,
  searchWords,
  textLines,
} from '../word-lists';
import { supplyIntents } from './supply-intents';

const classes = ['GorillaFileSystem'] as const;

/** A file name not in `used` (which it joins), with one of `extensions`. */
export function freshFileName(
  random: PyRandom,
  used: Set<string>,
  extensions: readonly string[] = fileExtensions,
): string {
  for (;;) {
    const name = `${pick(random, fileStems)}.${pick(random, extensions)}`;
    if (!used.has(name)) {
      used.add(name);
      return name;
    }
  }
}

function freshFolderName(random: PyRandom, used: Set<string>): string {
  const name = pickSome(random, folderNames, 1, (folder) =>
    used.has(folder),
  )[0]!;
  used.add(name);
  return name;
}

function someLines(random: PyRandom, count: number): string {
  return pickSome(random, textLines, count).join('\n');
}

/**
 * Distractor files and folders (noise stream): a couple in the base form, a
 * dozen or more in the long form. Names avoid `used` and are added to it;
 * `extensions` limits the distractor files' extensions.
 */
export function noiseEntries(
  context: FamilyContext,
  used: Set<string>,
  { extensions = fileExtensions }: { extensions?: readonly string[] } = {},
): FileSystemNode[] {
  const { noise } = context;
  const files = distractors(context, { base: [1, 2], long: [9, 13] });
  const folders = distractors(context, { base: [0, 1], long: [2, 4] });
  const entries: FileSystemNode[] = [];
  for (let i = 0; i < files; i++) {
    entries.push(
      fileNode(
        freshFileName(noise, used, extensions),
        someLines(noise, between(noise, 1, 2)),
      ),
    );
  }
  for (let i = 0; i < folders; i++) {
    const inner = context.scale === 'long' ? between(noise, 1, 3) : 1;
    const innerUsed = new Set<string>();
    const contents = Array.from({ length: inner }, () =>
      fileNode(freshFileName(noise, innerUsed), someLines(noise, 1)),
    );
    entries.push(folderNode(freshFolderName(noise, used), contents));
  }
  return noise.shuffle(entries);
}

const writeNote = defineIntent('files.write-note', [
  "Create a file named {file} containing '{text}'.",
  "Write '{text}' into a new file called {file}.",
  "Please save '{text}' to {file}.",
  "I need a file {file} that says '{text}'.",
]);
const writeNoteNoName = defineIntent('files.write-note.no-name', [
  "Save '{text}' to a new file.",
  "Write '{text}' into a file for me.",
  "Please store '{text}' in a file.",
  "I need a file that says '{text}'.",
]);
const showFile = defineIntent('files.show-file', [
  'Now show me what {file} contains.',
  'Print {file}.',
  'Display the contents of {file}.',
  'Let me read {file} now.',
]);

/** Write a note to a new file, then maybe read it back. */
export const writeNoteFamily: TaskFamily = {
  id: 'files.write-note',
  longContext: false,
  classes,
  difficulty: 'easy',
  pool: 'in-distribution',
  summary: 'Write given text into a new file, then optionally print it.',
  intents: [writeNote, writeNoteNoName, showFile, supplyIntents.fileName],
  build(context) {
    const { random } = context;
    const used = new Set<string>();
    const file = freshFileName(random, used);
    const text = pick(random, textLines);
    const readBack = chance(random, 0.5);
    const root = pick(random, rootFolderNames);
    const draft = context.begin({
      GorillaFileSystem: fileSystemState({
        root,
        entries: noiseEntries(context, used),
      }),
    });
    draft.turn({
      request: context.phrase(writeNote, { file, text }),
      calls: [callText('echo', { content: text, file_name: file })],
      missing: {
        request: context.phrase(writeNoteNoName, { text }),
        supply: context.phrase(supplyIntents.fileName, { value: file }),
        slot: 'file name',
        withheld: [file],
      },
    });
    if (readBack) {
      draft.turn({
        request: context.phrase(showFile, { file }),
        calls: [callText('cat', { file_name: file })],
      });
    }
    return draft.finish();
  },
};

const makeFolder = defineIntent('files.make-folder', [
  'Make a folder called {folder}.',
  'Create a new directory named {folder}.',
  'Add a folder {folder} here.',
  'Set up a fresh {folder} folder.',
]);
const makeFolderNoName = defineIntent('files.make-folder.no-name', [
  'Make a new folder.',
  'Create a directory for me.',
  'Add a new folder here.',
  'Set up a fresh folder.',
]);
const moveInto = defineIntent('files.move-into', [
  'Move {file} into {folder}.',
  'Put {file} in the {folder} folder.',
  'Transfer {file} to {folder}.',
  'Shift {file} over to {folder}.',
]);
const readMoved = defineIntent('files.read-moved', [
  'Now print {file}.',
  'Show me what {file} says in there.',
  'Read {file} for me.',
  'Open {file} from its new place.',
]);
const enterAndList = defineIntent('files.enter-and-list', [
  'Go into {folder} and list what is there.',
  'Open {folder} and show its contents.',
  'Change to {folder} and list the files.',
  'Step inside {folder}; what does it hold?',
]);

/** Make a folder, move a file into it, then maybe look inside. */
export const organizeFamily: TaskFamily = {
  id: 'files.organize',
  longContext: false,
  classes,
  difficulty: 'hard',
  pool: 'in-distribution',
  summary:
    'Create a folder, move an existing file into it and optionally list it.',
  intents: [
    makeFolder,
    makeFolderNoName,
    moveInto,
    enterAndList,
    readMoved,
    supplyIntents.folderName,
  ],
  build(context) {
    const { random } = context;
    const used = new Set<string>();
    const file = freshFileName(random, used);
    const folder = freshFolderName(random, used);
    const content = someLines(random, between(random, 1, 2));
    const look = chance(random, 0.5);
    const read = chance(random, 0.5);
    const root = pick(random, rootFolderNames);
    const entries = insertAtRandom(
      context.noise,
      noiseEntries(context, used),
      fileNode(file, content),
    );
    const draft = context.begin({
      GorillaFileSystem: fileSystemState({ root, entries }),
    });
    draft.turn({
      request: context.phrase(makeFolder, { folder }),
      calls: [callText('mkdir', { dir_name: folder })],
      missing: {
        request: context.phrase(makeFolderNoName, {}),
        supply: context.phrase(supplyIntents.folderName, { value: folder }),
        slot: 'folder name',
        withheld: [folder],
      },
    });
    draft.turn({
      request: context.phrase(moveInto, { file, folder }),
      calls: [callText('mv', { source: file, destination: folder })],
    });
    if (look) {
      draft.turn({
        request: context.phrase(enterAndList, { folder }),
        calls: [callText('cd', { folder }), callText('ls')],
      });
    }
    if (look && read) {
      draft.turn({
        request: context.phrase(readMoved, { file }),
        calls: [callText('cat', { file_name: file })],
      });
    }
    return draft.finish();
  },
};

const enterFolder = defineIntent('files.enter-folder', [
  'Go to the {folder} folder and list it.',
  'Change into {folder} and show what is there.',
  'Open the {folder} directory and list its files.',
  'Step into {folder} first; what files does it have?',
]);
const grepFile = defineIntent('files.grep', [
  "Which lines of {file} mention '{word}'?",
  "Search {file} for '{word}'.",
  "Find '{word}' in {file}.",
  "Does {file} talk about '{word}'? Show me those lines.",
]);
const grepFileNoWord = defineIntent('files.grep.no-word', [
  'Search {file} for a word.',
  'Look for something in {file}.',
  'Find some lines in {file}.',
  'Does {file} talk about it? Show me those lines.',
]);
const countLines = defineIntent('files.count-lines', [
  'How many lines does {file} have?',
  'Count the lines in {file}.',
  'Give me the line count of {file}.',
  'What is the length of {file} in lines?',
]);

/** Enter a folder, search a file in it, then maybe count its lines. */
export const inspectFamily: TaskFamily = {
  id: 'files.inspect',
  longContext: true,
  classes,
  difficulty: 'medium',
  pool: 'in-distribution',
  summary:
    'Enter and list a folder, find lines with a word in one of its files and optionally count the lines.',
  intents: [
    enterFolder,
    grepFile,
    grepFileNoWord,
    countLines,
    supplyIntents.searchWord,
  ],
  build(context) {
    const { random } = context;
    const used = new Set<string>();
    const folder = freshFolderName(random, used);
    const innerUsed = new Set<string>();
    const file = freshFileName(random, innerUsed);
    const word = pick(random, searchWords);
    const hit = pick(
      random,
      textLines.filter((line) => line.includes(word)),
    );
    const others = pickSome(random, textLines, between(random, 2, 3), (line) =>
      line.includes(word),
    );
    const content = insertAtRandom(random, others, hit).join('\n');
    const count = chance(random, 0.5);
    const root = pick(random, rootFolderNames);
    const innerNoise = distractors(context, { base: [0, 1], long: [8, 12] });
    const inner: FileSystemNode[] = [fileNode(file, content)];
    for (let i = 0; i < innerNoise; i++) {
      inner.push(
        fileNode(
          freshFileName(context.noise, innerUsed),
          someLines(context.noise, 1),
        ),
      );
    }
    const entries = insertAtRandom(
      context.noise,
      noiseEntries(context, used),
      folderNode(folder, context.noise.shuffle(inner)),
    );
    const draft = context.begin({
      GorillaFileSystem: fileSystemState({ root, entries }),
    });
    draft.turn({
      request: context.phrase(enterFolder, { folder }),
      calls: [callText('cd', { folder }), callText('ls')],
    });
    draft.turn({
      request: context.phrase(grepFile, { file, word }),
      calls: [callText('grep', { file_name: file, pattern: word })],
      missing: {
        request: context.phrase(grepFileNoWord, { file }),
        supply: context.phrase(supplyIntents.searchWord, { value: word }),
        slot: 'pattern',
        withheld: [word],
      },
    });
    if (count) {
      draft.turn({
        request: context.phrase(countLines, { file }),
        calls: [callText('wc', { file_name: file })],
      });
    }
    return draft.finish();
  },
};

const listHere = defineIntent('files.list-here', [
  'What files are in the current folder?',
  'List the contents of this folder.',
  'Show me what is in here.',
  'Which entries does this directory have?',
]);
const tailLog = defineIntent('files.tail-log', [
  'Show the last {lines} lines of the log file.',
  'Print the final {lines} lines of the .log file.',
  'Give me the last {lines} lines of the log.',
  'Tail the log file for me, {lines} lines.',
]);
const tailSomeFile = defineIntent('files.tail-log.no-file', [
  'Show the last {lines} lines of a file.',
  'Print the final {lines} lines of one of them.',
  'Give me the last {lines} lines of a file here.',
  'Tail a file for me, {lines} lines.',
]);
const whichLog = defineIntent('files.which-log', [
  'The log file.',
  'I mean the .log file.',
  'The one ending in .log.',
  'Sorry, use the log.',
]);

/** List the folder, then read the end of the one log file found there. */
export const tailLogFamily: TaskFamily = {
  id: 'files.tail-log',
  longContext: true,
  classes,
  difficulty: 'hard',
  pool: 'in-distribution',
  summary:
    'List the working folder and read the last lines of the only .log file in it.',
  intents: [listHere, tailLog, tailSomeFile, whichLog],
  build(context) {
    const { random } = context;
    const used = new Set<string>();
    const log = freshFileName(random, used, ['log']);
    const total = between(random, 4, 6);
    const content = someLines(random, total);
    const lines = between(random, 2, 3);
    const root = pick(random, rootFolderNames);
    const noise = noiseEntries(context, used, {
      extensions: ['txt', 'md', 'csv'],
    });
    const entries = insertAtRandom(
      context.noise,
      noise,
      fileNode(log, content),
    );
    const draft = context.begin({
      GorillaFileSystem: fileSystemState({ root, entries }),
    });
    draft.turn({
      request: context.phrase(listHere, {}),
      calls: [callText('ls')],
    });
    draft.turn({
      request: context.phrase(tailLog, { lines: String(lines) }),
      calls: [callText('tail', { file_name: log, lines: int(lines) })],
      missing: {
        request: context.phrase(tailSomeFile, { lines: String(lines) }),
        supply: context.phrase(whichLog, {}),
        slot: 'file name',
        withheld: ['log'],
      },
    });
    return draft.finish();
  },
};

const copyFile = defineIntent('files.copy', [
  'Copy {file} to {copy}.',
  'Make a copy of {file} named {copy}.',
  'Duplicate {file} as {copy}.',
  'Clone {file} into a new file {copy}.',
]);
const overwrite = defineIntent('files.overwrite', [
  "Replace the text of {copy} with '{text}'.",
  "Overwrite {copy} with '{text}'.",
  "Write '{text}' into {copy}.",
  "Swap what {copy} says for '{text}'.",
]);
const overwriteNoText = defineIntent('files.overwrite.no-text', [
  'Replace the text of {copy}.',
  'Overwrite {copy} with new text.',
  'Write something new into {copy}.',
  'Swap what {copy} says.',
]);
const diffFiles = defineIntent('files.diff', [
  'Compare {file} with {copy}.',
  'Show the differences between {file} and {copy}.',
  'Diff {file} against {copy}.',
  'How do {file} and {copy} differ?',
]);

/** Copy a file, change the copy and compare the two. */
export const copyCompareFamily: TaskFamily = {
  id: 'files.copy-compare',
  longContext: false,
  classes,
  difficulty: 'hard',
  pool: 'in-distribution',
  summary: 'Copy a file, overwrite the copy with new text and diff the two.',
  intents: [
    copyFile,
    overwrite,
    overwriteNoText,
    diffFiles,
    supplyIntents.text,
  ],
  build(context) {
    const { random } = context;
    const used = new Set<string>();
    const file = freshFileName(random, used);
    const copy = freshFileName(random, used);
    const original = someLines(random, between(random, 1, 3));
    const firstLine = original.split('\n')[0]!;
    const text = pick(
      random,
      textLines.filter((line) => line !== firstLine),
    );
    const root = pick(random, rootFolderNames);
    const entries = insertAtRandom(
      context.noise,
      noiseEntries(context, used),
      fileNode(file, original),
    );
    const draft = context.begin({
      GorillaFileSystem: fileSystemState({ root, entries }),
    });
    draft.turn({
      request: context.phrase(copyFile, { file, copy }),
      calls: [callText('cp', { source: file, destination: copy })],
    });
    draft.turn({
      request: context.phrase(overwrite, { copy, text }),
      calls: [callText('echo', { content: text, file_name: copy })],
      missing: {
        request: context.phrase(overwriteNoText, { copy }),
        supply: context.phrase(supplyIntents.text, { value: text }),
        slot: 'content',
        withheld: [text],
      },
    });
    draft.turn({
      request: context.phrase(diffFiles, { file, copy }),
      calls: [callText('diff', { file_name1: file, file_name2: copy })],
    });
    return draft.finish();
  },
};

/** The GorillaFileSystem families. */
export const fileSystemFamilies: readonly TaskFamily[] = [
  writeNoteFamily,
  organizeFamily,
  inspectFamily,
  tailLogFamily,
  copyCompareFamily,
];

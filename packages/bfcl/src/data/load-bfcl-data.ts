import { existsSync, statSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import {
  PyDict,
  PyEllipsis,
  PyJsonSyntaxError,
  freezePyTree,
  freezePyValue,
  parsePyJson,
  toJsonValue,
  type PyValue,
} from '@seal/python';
import {
  SealError,
  parseJsonText,
  parseWithSchema,
  toolDocSchema,
  type ToolDoc,
} from '@seal/spec';
import * as z from 'zod';
import {
  bfclClassNames,
  bfclDocFiles,
  type BfclClassName,
} from '../api/bfcl-class-names';
import type { BfclRuntimeData } from '../api/bfcl-realm';

/** The four scored BFCL v3 multi-turn categories. */
export const bfclCategories = [
  'multi_turn_base',
  'multi_turn_miss_func',
  'multi_turn_miss_param',
  'multi_turn_long_context',
] as const;

/** One of {@link bfclCategories}. */
export type BfclCategory = (typeof bfclCategories)[number];

/** One BFCL multi-turn entry joined with its possible answer. */
export type BfclEntry = {
  id: string;
  category: BfclCategory;
  /** Question turns; a miss_func holdout turn is `[]`. */
  question: { role: string; content: string }[][];
  /** `initial_config`, int/float preserved. */
  initialConfig: PyDict;
  involvedClasses: BfclClassName[];
  /** `path` (informational). */
  path: string[];
  /** `missed_function`: turn index → held-out function names (miss_func only). */
  missedFunction: Record<string, string[]>;
  /** Ground-truth call strings per turn. */
  groundTruth: string[][];
};

/** The 400/400 split of `split-seal-400.json`. */
export type BfclSplit = { train: string[]; eval: string[]; evalVal: string[] };

/** A loaded BFCL data directory. */
export type BfclDataset = {
  /** The directory it was read from. */
  dir: string;
  /** Entries in BFCL's order: by category, then numeric index. */
  entries: BfclEntry[];
  byId: ReadonlyMap<string, BfclEntry>;
  /** Function docs per class, in file order. */
  docs: ReadonlyMap<BfclClassName, ToolDoc[]>;
  /** Default states and long-context constants, for the API classes. */
  runtime: BfclRuntimeData;
  /** The SEAL/Environment Tuning split, when `split-seal-400.json` is present. */
  split?: BfclSplit;
};

const questionTurnSchema = z.array(
  z.object({ role: z.string(), content: z.string() }),
);

const entrySchema = z.object({
  id: z
    .string()
    .regex(/^multi_turn_[a-z_]+_\d+$/, 'expected an id like multi_turn_base_0'),
  question: z.array(questionTurnSchema),
  initial_config: z.record(z.string(), z.unknown()),
  involved_classes: z.array(z.enum(bfclClassNames)).min(1),
  path: z.array(z.string()).optional(),
  missed_function: z.record(z.string(), z.array(z.string())).optional(),
});

const answerSchema = z.object({
  id: z.string(),
  ground_truth: z.array(z.array(z.string())),
});

const splitSchema = z.object({
  train: z.array(z.string()),
  eval: z.array(z.string()),
  evalVal: z.array(z.string()).optional(),
});

/** The category of an id: `id.rsplit('_', 1)[0]`, as BFCL derives it. */
export function categoryOf(id: string): string {
  return id.slice(0, id.lastIndexOf('_'));
}

function indexOf(id: string): number {
  return Number(id.slice(id.lastIndexOf('_') + 1).split('-')[0]);
}

/**
 * Finds the BFCL data directory: the `--data` flag if given, else the
 * `SEAL_BFCL_DATA` environment variable. Throws a SealError naming both when
 * neither is set, and FILE_NOT_FOUND when the directory does not exist.
 */
export function resolveBfclDataDir({
  flag,
  env = process.env,
}: {
  flag?: string;
  env?: Record<string, string | undefined>;
} = {}): string {
  const dir = flag ?? env['SEAL_BFCL_DATA'];
  if (dir === undefined || dir === '') {
    throw new SealError({
      code: 'INVALID_ARGUMENT',
      message:
        'no BFCL data directory: pass --data DIR or set SEAL_BFCL_DATA (the folder holding BFCL_v3_multi_turn_*.json)',
    });
  }
  const absolute = resolve(dir);
  if (!existsSync(absolute) || !statSync(absolute).isDirectory()) {
    throw new SealError({
      code: 'FILE_NOT_FOUND',
      message: `BFCL data directory not found: ${absolute}`,
      details: { path: absolute },
    });
  }
  return absolute;
}

async function readText(path: string): Promise<string> {
  try {
    return await readFile(path, 'utf8');
  } catch (error) {
    throw new SealError({
      code: 'FILE_NOT_FOUND',
      message: `missing BFCL data file: ${path}`,
      cause: error,
      details: { file: path },
    });
  }
}

function parsePyLine(text: string, source: string): PyValue {
  try {
    return parsePyJson(text);
  } catch (error) {
    throw new SealError({
      code: 'INVALID_DATA',
      message: `${source}: invalid JSON (${error instanceof PyJsonSyntaxError ? error.message : String(error)})`,
      cause: error,
      details: { source },
    });
  }
}

/** Reads a JSON Lines file; each non-empty line parsed with ints and floats kept apart. */
async function readJsonLines(
  path: string,
): Promise<{ value: PyValue; source: string }[]> {
  const text = await readText(path);
  const out: { value: PyValue; source: string }[] = [];
  text.split('\n').forEach((line, index) => {
    if (line.trim() === '') return;
    const source = `${path}:${index + 1}`;
    out.push({ value: parsePyLine(line, source), source });
  });
  return out;
}

/** Restores the `{"__python_ellipsis__": true}` marker to Python's `Ellipsis`. */
function restoreEllipsis(value: PyValue): PyValue {
  if (Array.isArray(value)) return value.map(restoreEllipsis);
  if (value instanceof PyDict) {
    if (value.size === 1 && value.get('__python_ellipsis__') === true)
      return PyEllipsis;
    const out = new PyDict();
    for (const [k, v] of value) out.set(k, restoreEllipsis(v));
    return out;
  }
  return value;
}

/**
 * Loads a BFCL v3 data directory: the four question files with their possible
 * answers, the eight function-doc files, the default states, the long-context
 * constants and (if present) the 400/400 split. Any missing or malformed file
 * fails with one SealError naming the file, line and field.
 */
export async function loadBfclData({
  dir,
  categories = bfclCategories,
}: {
  dir: string;
  categories?: readonly BfclCategory[];
}): Promise<BfclDataset> {
  const root = resolve(dir);
  const entries: BfclEntry[] = [];
  for (const category of categories) {
    const questionPath = join(root, `BFCL_v3_${category}.json`);
    const answerPath = join(
      root,
      'possible_answer',
      `BFCL_v3_${category}.json`,
    );
    const [questions, answers] = await Promise.all([
      readJsonLines(questionPath),
      readJsonLines(answerPath),
    ]);
    const answerById = new Map<string, string[][]>();
    for (const { value, source } of answers) {
      const answer = parseWithSchema({
        schema: answerSchema,
        value: toJsonValue(value),
        source,
      });
      answerById.set(answer.id, answer.ground_truth);
    }
    for (const { value, source } of questions) {
      const plain = parseWithSchema({
        schema: entrySchema,
        value: toJsonValue(value),
        source,
      });
      if (categoryOf(plain.id) !== category) {
        throw new SealError({
          code: 'INVALID_DATA',
          message: `${source}: field 'id': ${plain.id} does not belong to ${category}`,
          details: { source, path: 'id' },
        });
      }
      const groundTruth = answerById.get(plain.id);
      if (groundTruth === undefined) {
        throw new SealError({
          code: 'INVALID_DATA',
          message: `${answerPath}: no possible answer for ${plain.id}`,
          details: { source: answerPath, path: 'id' },
        });
      }
      const initialConfig = (value as PyDict).get('initial_config');
      entries.push({
        id: plain.id,
        category,
        question: plain.question,
        // Read-only, deep-copied for every session: frozen, it copies as a tree.
        initialConfig: freezePyTree(
          initialConfig instanceof PyDict ? initialConfig : new PyDict(),
        ),
        involvedClasses: plain.involved_classes,
        path: plain.path ?? [],
        missedFunction: plain.missed_function ?? {},
        groundTruth,
      });
    }
  }
  entries.sort(
    (a, b) =>
      bfclCategories.indexOf(a.category) - bfclCategories.indexOf(b.category) ||
      indexOf(a.id) - indexOf(b.id),
  );

  const docs = new Map<BfclClassName, ToolDoc[]>();
  for (const className of bfclClassNames) {
    const path = join(root, 'multi_turn_func_doc', bfclDocFiles[className]);
    const lines = await readJsonLines(path);
    docs.set(
      className,
      lines.map(({ value, source }) =>
        parseWithSchema({
          schema: toolDocSchema,
          value: toJsonValue(value),
          source,
        }),
      ),
    );
  }

  const defaultStatesPath = join(root, 'default_states.json');
  const defaultStates = freezePyTree(
    parsePyLine(await readText(defaultStatesPath), defaultStatesPath),
  );
  const longContextPath = join(root, 'long_context_constants.json');
  // The padding is shared by every instance and never mutated: frozen, its
  // lists (2,000-float moving averages, city lists) render once per process
  // and its dicts copy as trees.
  const longContext = freezePyTree(
    freezePyValue(
      restoreEllipsis(
        parsePyLine(await readText(longContextPath), longContextPath),
      ),
    ),
  );
  for (const [value, path] of [
    [defaultStates, defaultStatesPath],
    [longContext, longContextPath],
  ] as const) {
    if (!(value instanceof PyDict)) {
      throw new SealError({
        code: 'INVALID_DATA',
        message: `${path}: expected a JSON object at the top level`,
        details: { source: path, path: '' },
      });
    }
  }

  let split: BfclSplit | undefined;
  const splitPath = join(root, 'split-seal-400.json');
  if (existsSync(splitPath)) {
    const parsed = parseWithSchema({
      schema: splitSchema,
      value: parseJsonText({
        text: await readText(splitPath),
        source: splitPath,
      }),
      source: splitPath,
    });
    split = {
      train: parsed.train,
      eval: parsed.eval,
      evalVal: parsed.evalVal ?? [],
    };
  }

  return {
    dir: root,
    entries,
    byId: new Map(entries.map((entry) => [entry.id, entry])),
    docs,
    runtime: {
      defaultStates: defaultStates as PyDict,
      longContext: longContext as PyDict,
    },
    split,
  };
}

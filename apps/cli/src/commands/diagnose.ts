import { readFile } from 'node:fs/promises';
import {
  bfclEntryToTask,
  loadBfclData,
  resolveBfclDataDir,
  type BfclDataset,
} from '@seal/bfcl';
import {
  diagnoseEpisode,
  saveCapabilityState,
  summarizeDiagnoses,
  CapabilityState,
} from '@seal/diagnose';
import {
  SealError,
  episodeRecordSchema,
  parseJsonLineEntries,
  parseJsonLines,
  taskSchema,
  toSealError,
  type CapabilityStatsSnapshot,
  type DiagnosisSummary,
  type EpisodeDiagnosis,
  type EpisodeRecord,
  type Task,
} from '@seal/spec';
import { createBfclVerifier } from '@seal/verifier';
import * as z from 'zod';
import { parseFlags } from '../args';
import type { CommandContext } from '../command';
import { exitCodes } from '../exit-codes';
import { table } from '../ui/table';

const flagsSchema = z.object({
  data: z.string().optional(),
  tasks: z.string().optional(),
  state: z.string().optional(),
  json: z.boolean().optional(),
});

export const diagnoseHelp = `usage: seal diagnose FILE... [--data DIR] [--tasks FILE] [--state FILE] [--json]

Verifies every EpisodeRecord in the JSON Lines FILEs and diagnoses it: per
turn, SEAL's failure tag and the finer tags from the event stream
(invalid_tool_call, argument_mismatch, recovery_failure); then a summary of
counts and reward means by tag and by category and tag, and the accuracy by
category.

  --data DIR    BFCL data directory (default: $SEAL_BFCL_DATA); its entries
                are the tasks unless --tasks is given, and it always supplies
                the API classes' default states
  --tasks FILE  read the tasks from Task JSON Lines instead (e.g. a run's tasks)
  --state FILE  also write the capability state of these episodes (JSON)
  --json        print the diagnoses and the summary as JSON`;

/** One episode record with the file and line it came from. */
type SourcedRecord = { record: EpisodeRecord; source: string };

async function readText(path: string, what: string): Promise<string> {
  try {
    return await readFile(path, 'utf8');
  } catch (error) {
    throw new SealError({
      code: 'FILE_NOT_FOUND',
      message: `${what} not found: ${path}`,
      cause: error,
      details: { file: path },
    });
  }
}

async function readRecords(paths: readonly string[]): Promise<SourcedRecord[]> {
  const out: SourcedRecord[] = [];
  for (const path of paths) {
    for (const { value, source } of parseJsonLineEntries({
      text: await readText(path, 'episode file'),
      source: path,
      schema: episodeRecordSchema,
    })) {
      out.push({ record: value, source });
    }
  }
  return out;
}

/**
 * Where tasks come from: the BFCL data directory (ids are BFCL ids), or a
 * Task JSON Lines file (a run directory's tasks, generated tasks).
 */
type TaskLookup = (id: string) => Task | undefined;

async function taskLookup({
  tasksFile,
  dataset,
}: {
  tasksFile?: string;
  dataset: BfclDataset;
}): Promise<TaskLookup> {
  if (tasksFile === undefined) {
    const cache = new Map<string, Task>();
    return (id) => {
      const cached = cache.get(id);
      if (cached) return cached;
      const entry = dataset.byId.get(id);
      if (!entry) return undefined;
      const task = bfclEntryToTask({ entry, dataset });
      cache.set(id, task);
      return task;
    };
  }
  const tasks = new Map<string, Task>();
  for (const task of parseJsonLines({
    text: await readText(tasksFile, 'tasks file'),
    source: tasksFile,
    schema: taskSchema,
  })) {
    tasks.set(task.id, task);
  }
  return (id) => tasks.get(id);
}

function formatNumber(value: number): string {
  return Number.isInteger(value) ? String(value) : value.toFixed(3);
}

/** Rows by count (most first); with `grouped`, by the key's `category::` prefix first. */
function statsRows(
  stats: Record<string, CapabilityStatsSnapshot>,
  grouped = false,
): string[][] {
  const group = (key: string) =>
    grouped ? key.slice(0, key.indexOf('::')) : '';
  return Object.entries(stats)
    .sort(
      (a, b) =>
        group(a[0]).localeCompare(group(b[0])) ||
        b[1].count - a[1].count ||
        a[0].localeCompare(b[0]),
    )
    .map(([key, value]) => [
      key,
      String(value.count),
      formatNumber(value.rewardMean),
      formatNumber(value.successRate),
    ]);
}

function printEpisode({
  output,
  diagnosis,
}: Pick<CommandContext, 'output'> & { diagnosis: EpisodeDiagnosis }): void {
  output.line(
    `${diagnosis.episodeId}  ${diagnosis.taskId}  reward ${formatNumber(diagnosis.reward)}  dominant ${diagnosis.dominantTag}`,
  );
  const width = Math.max(...diagnosis.turns.map((turn) => turn.tag.length));
  for (const turn of diagnosis.turns) {
    const fine = turn.fineTags.map((tag) => `+${tag}`).join(' ');
    const reached = turn.reached ? '' : '  (not reached)';
    output.line(
      `  turn ${turn.turn}  ${turn.tag.padEnd(width)}${fine === '' ? '' : `  ${fine}`}${reached}`.trimEnd(),
    );
  }
  for (const warning of diagnosis.warnings) {
    output.line(
      `  warning: ${warning.type === 'other' ? warning.message : JSON.stringify(warning)}`,
    );
  }
}

function printSummary({
  output,
  summary,
}: Pick<CommandContext, 'output'> & { summary: DiagnosisSummary }): void {
  const headers = ['count', 'reward mean', 'success rate'];
  output.line(
    `${summary.episodes} episodes, accuracy ${formatNumber(summary.accuracy)}, reward mean ${formatNumber(summary.rewardMean)}`,
  );
  output.line();
  output.line('By tag (once per turn, each with its episode reward)');
  for (const line of table(['tag', ...headers], statsRows(summary.tags)))
    output.line(line);
  if (Object.keys(summary.fineTags).length > 0) {
    output.line();
    output.line('By fine tag (event stream; not part of SEAL tags)');
    for (const line of table(
      ['fine tag', ...headers],
      statsRows(summary.fineTags),
    ))
      output.line(line);
  }
  output.line();
  output.line('By category and tag');
  for (const line of table(
    ['category::tag', ...headers],
    statsRows(summary.categoryTags, true),
  ))
    output.line(line);
  output.line();
  output.line('Accuracy by category');
  const categoryRows = Object.entries(summary.categories)
    .sort((a, b) => a[0].localeCompare(b[0]))
    .map(([category, stats]) => [
      category,
      String(stats.count),
      formatNumber(stats.successRate),
      formatNumber(stats.rewardMean),
    ]);
  for (const line of table(
    ['category', 'episodes', 'accuracy', 'reward mean'],
    categoryRows,
  ))
    output.line(line);
}

/** `seal diagnose`. */
export async function runDiagnose({
  argv,
  output,
}: CommandContext): Promise<number> {
  const { flags, positionals } = parseFlags({
    argv,
    options: {
      data: { type: 'string' },
      tasks: { type: 'string' },
      state: { type: 'string' },
      json: { type: 'boolean' },
    },
    schema: flagsSchema,
    allowPositionals: true,
  });
  if (positionals.length === 0) {
    throw new SealError({
      code: 'INVALID_ARGUMENT',
      message: `no episode file given\n\n${diagnoseHelp}`,
    });
  }
  const records = await readRecords(positionals);
  const dataset = await loadBfclData({
    dir: resolveBfclDataDir({ flag: flags.data }),
  });
  const lookup = await taskLookup({
    ...(flags.tasks === undefined ? {} : { tasksFile: flags.tasks }),
    dataset,
  });
  const verifier = createBfclVerifier({ runtime: dataset.runtime });

  const progress = output.progress('diagnose', records.length);
  const diagnoses: { source: string; diagnosis: EpisodeDiagnosis }[] = [];
  for (const { record, source } of records) {
    const task = lookup(record.taskId);
    if (!task) {
      throw new SealError({
        code: 'NOT_FOUND',
        message: `${source}: no task ${record.taskId} in ${flags.tasks ?? dataset.dir}`,
        details: { source, taskId: record.taskId },
      });
    }
    let diagnosis: EpisodeDiagnosis;
    try {
      diagnosis = diagnoseEpisode({
        record,
        verification: verifier.verifySync({ task, record }),
      });
    } catch (error) {
      const cause = toSealError(error);
      throw new SealError({
        code: cause.code,
        message: `${source}: ${cause.message}`,
        cause: error,
        details: { ...cause.details, source },
      });
    }
    diagnoses.push({ source, diagnosis });
    progress.tick();
  }
  progress.done();

  const summary = summarizeDiagnoses(
    diagnoses.map(({ diagnosis }) => diagnosis),
  );
  if (flags.state !== undefined) {
    const state = new CapabilityState();
    for (const { diagnosis } of diagnoses)
      state.observeDiagnosis({ diagnosis });
    await saveCapabilityState({ state, path: flags.state });
  }
  for (const { diagnosis } of diagnoses) {
    printEpisode({ output, diagnosis });
    output.line();
  }
  printSummary({ output, summary });
  output.result({ episodes: diagnoses, summary });
  return exitCodes.success;
}

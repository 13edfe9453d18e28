import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import {
  bfclEntryToTask,
  loadBfclData,
  resolveBfclDataDir,
  type BfclDataset,
} from '@seal/bfcl';
import {
  createGeneratorRuntime,
  createTaskRedrawer,
  isGeneratedTaskId,
} from '@seal/bfcl-tasks';
import { diagnoseEpisode } from '@seal/diagnose';
import {
  listEpisodeFiles,
  readEpisodeFile,
  type EpisodeAssessment,
  type EpisodeDiagnoser,
} from '@seal/report';
import {
  parseJsonLines,
  runDirectoryLayout,
  taskCategorySchema,
  taskSchema,
  toSealError,
  type EnvironmentEpisodeRecord,
  type EpisodeRecord,
  type Task,
} from '@seal/spec';
import { createBfclVerifier } from '@seal/verifier';

type Verifier = ReturnType<typeof createBfclVerifier>;
type Resolved = { task: Task; verifier: Verifier } | { reason: string };

async function readTasksFile(path: string): Promise<Map<string, Task>> {
  const tasks = new Map<string, Task>();
  const text = await readFile(path, 'utf8').catch((error: unknown) => {
    throw toSealError(error);
  });
  for (const task of parseJsonLines({ text, source: path, schema: taskSchema }))
    tasks.set(task.id, task);
  return tasks;
}

/** The first task id recorded in the run (to decide whether BFCL data is needed). */
async function firstRecordedTaskId(
  runDirectory: string,
): Promise<string | undefined> {
  for (const file of await listEpisodeFiles(runDirectory)) {
    const { values } = await readEpisodeFile({ runDirectory, file });
    if (values[0]) return values[0].taskId;
  }
  return undefined;
}

/** A record of BFCL's categories (a v2 environment's carry their own). */
function isBfclRecord(
  record: EnvironmentEpisodeRecord,
): record is EpisodeRecord {
  return taskCategorySchema.safeParse(record.category).success;
}

/**
 * The environment of a `seal train --env` run, from its tasks file (the
 * loop's view of v2 tasks names it in `meta.environmentV2`); undefined for
 * BFCL and generated runs.
 */
async function environmentOfRun(
  tasksFile: string,
): Promise<string | undefined> {
  const text = await readFile(tasksFile, 'utf8').catch(() => '');
  const first = text.split('\n', 1)[0]?.trim();
  if (!first) return undefined;
  try {
    const meta = (JSON.parse(first) as { meta?: { environmentV2?: unknown } })
      .meta;
    return typeof meta?.environmentV2 === 'string'
      ? meta.environmentV2
      : undefined;
  } catch {
    return undefined;
  }
}

function firstUserText(record: EpisodeRecord): string | undefined {
  return record.messages.find((message) => message.role === 'user')?.content;
}

/**
 * Re-verifies a run's episodes, since run directories record episodes without
 * their verdicts. Tasks come from, in order: a Task JSON Lines file; the task
 * generator for `gen_*` ids (re-drawn from the run's seed: generation is
 * deterministic and each task depends only on those before it); BFCL's data
 * directory for BFCL ids. A re-drawn task whose first question does not
 * appear in the recorded conversation is refused (the generator changed, or
 * the run used another seed).
 */
export async function createRunDiagnoser({
  runDirectory,
  seed,
  dataDirectory,
  tasksFile,
}: {
  runDirectory: string;
  /** The run's seed (`config.json`); generated tasks are re-drawn with it. */
  seed: number | undefined;
  /** `--data`; default `$SEAL_BFCL_DATA`. */
  dataDirectory?: string;
  tasksFile?: string;
}): Promise<EpisodeDiagnoser> {
  // A run directory written by runTraining holds its tasks; --tasks overrides them.
  const runTasksFile = join(runDirectory, runDirectoryLayout.tasks);
  tasksFile ??= existsSync(runTasksFile) ? runTasksFile : undefined;
  // A v2 environment's run: its verdicts are the generic verifier's,
  // recorded per sample in events.jsonl (tags), not BFCL's to redo here.
  const environment =
    tasksFile === undefined ? undefined : await environmentOfRun(tasksFile);
  if (environment !== undefined) {
    const reason = `a run on environment ${environment} (seal train --env): its per-turn tags are the generic verifier's, recorded in events.jsonl; episodes are not re-verified`;
    return () => ({ type: 'unavailable', reason });
  }
  const fromFile =
    tasksFile === undefined ? undefined : await readTasksFile(tasksFile);
  const generatorRuntime = createGeneratorRuntime();
  const generatedVerifier = createBfclVerifier({ runtime: generatorRuntime });
  const redraw = seed === undefined ? undefined : createTaskRedrawer({ seed });

  let bfcl: { dataset: BfclDataset; verifier: Verifier } | { reason: string } =
    {
      reason:
        'BFCL tasks need the BFCL data directory: pass --data DIR or set SEAL_BFCL_DATA',
    };
  const needsBfcl = fromFile
    ? [...fromFile.values()].some((task) => task.source === 'bfcl')
    : await firstRecordedTaskId(runDirectory).then(
        (id) => id !== undefined && !isGeneratedTaskId(id),
      );
  if (needsBfcl && (dataDirectory ?? process.env['SEAL_BFCL_DATA'])) {
    try {
      const dataset = await loadBfclData({
        dir: resolveBfclDataDir({ flag: dataDirectory }),
      });
      bfcl = {
        dataset,
        verifier: createBfclVerifier({ runtime: dataset.runtime }),
      };
    } catch (error) {
      bfcl = { reason: `cannot load BFCL data: ${toSealError(error).message}` };
    }
  }

  const resolve = (record: EpisodeRecord): Resolved => {
    const id = record.taskId;
    if (fromFile) {
      const task = fromFile.get(id);
      if (!task) return { reason: `no task ${id} in ${tasksFile}` };
      if (task.source === 'generated')
        return { task, verifier: generatedVerifier };
      return 'reason' in bfcl
        ? { reason: bfcl.reason }
        : { task, verifier: bfcl.verifier };
    }
    if (isGeneratedTaskId(id)) {
      if (!redraw)
        return {
          reason:
            'config.json has no seed to re-draw generated tasks with; pass --tasks FILE',
        };
      const redrawn = redraw(id);
      if (!redrawn.success) return { reason: redrawn.reason };
      const { task } = redrawn;
      const question = task.turns[0]?.[0]?.content;
      if (
        question !== undefined &&
        !(firstUserText(record) ?? '').includes(question)
      ) {
        return {
          reason: `task ${id} re-drawn with seed ${seed} does not match the recorded conversation (another generator version or seed?); pass --tasks FILE`,
        };
      }
      return { task, verifier: generatedVerifier };
    }
    if ('reason' in bfcl) return { reason: bfcl.reason };
    const entry = bfcl.dataset.byId.get(id);
    if (!entry) return { reason: `no BFCL entry ${id} in ${bfcl.dataset.dir}` };
    return {
      task: bfclEntryToTask({ entry, dataset: bfcl.dataset }),
      verifier: bfcl.verifier,
    };
  };

  const cache = new Map<string, Resolved>();
  return ({ record }): EpisodeAssessment => {
    if (!isBfclRecord(record))
      return {
        type: 'unavailable',
        reason: `${record.taskId}: category ${record.category} is not BFCL's; only BFCL and generated episodes are re-verified`,
      };
    try {
      let resolved = cache.get(record.taskId);
      if (!resolved) {
        resolved = resolve(record);
        // Every record of a run with one task id has the same task; failures are
        // not cached, so each record gets its own reason.
        if ('task' in resolved) cache.set(record.taskId, resolved);
      }
      if ('reason' in resolved)
        return { type: 'unavailable', reason: resolved.reason };
      const { task, verifier } = resolved;
      const diagnosis = diagnoseEpisode({
        record,
        verification: verifier.verifySync({ task, record }),
      });
      return { type: 'diagnosed', diagnosis, groundTruth: task.groundTruth };
    } catch (error) {
      return {
        type: 'unavailable',
        reason: `${record.taskId}: ${toSealError(error).message}`,
      };
    }
  };
}

import { readFile } from 'node:fs/promises';
import { CapabilityState, loadCapabilityState } from '@seal/diagnose';
import { initialCurriculumState } from '@seal/evolve';
import {
  SealError,
  parseJsonText,
  parseWithSchema,
  trainerStateSchema,
  type PolicyV1,
  type RunEvent,
  type Task,
  type TrainerState,
} from '@seal/spec';
import { trainConfigSchema, type TrainConfig } from '../config/train-config';
import { writeJsonAtomic, type RunDirectory } from '../run/run-directory';
import { initialGapMonitorState } from './gap-monitor';
import type { EvalSet, TrainSummary } from './train-types';

/** Where a run starts: its trainer state, capability state and summary so far. */
export type TrainingStart = {
  state: TrainerState;
  capability: CapabilityState;
  /** The events recorded up to the resumed step (empty for a fresh run). */
  summary: TrainSummary;
  /** The step the run resumed after (0 for a fresh run). */
  resumedFrom: number;
};

/**
 * Opens a run directory: resumes from its newest checkpoint (the policy's
 * weights, the trainer and capability states, and the events up to it;
 * anything recorded after it is dropped, and a checkpoint recorded under
 * another configuration is refused), or starts a fresh run clean. Then
 * writes the run's config and the tasks it trains and evaluates on.
 */
export async function resumeTraining({
  run,
  runDirectory,
  config,
  policy,
  trainTasks,
  evalSets,
}: {
  run: RunDirectory;
  runDirectory: string;
  config: TrainConfig;
  policy: PolicyV1;
  trainTasks: readonly Task[];
  evalSets: readonly EvalSet[];
}): Promise<TrainingStart> {
  // Resume from the newest checkpoint, dropping anything recorded after it.
  let state: TrainerState = {
    schemaVersion: 1,
    step: 0,
    curriculum: initialCurriculumState(),
    ...(config.gapMonitor ? { gapMonitor: initialGapMonitorState() } : {}),
  };
  let capability = new CapabilityState();
  // The events a resumed run had already recorded (its summary includes them).
  let recorded: RunEvent[] = [];
  const resumedFrom = (await run.latestCheckpoint()) ?? 0;
  if (resumedFrom > 0) {
    await assertResumable({
      runDirectory,
      path: run.file('config'),
      config,
    });
    const checkpoint = run.checkpointPath(resumedFrom);
    await policy.load({ directory: checkpoint });
    const trainerStatePath = run.checkpointFile(resumedFrom, 'trainerState');
    state = parseWithSchema({
      schema: trainerStateSchema,
      value: parseJsonText({
        text: await readFile(trainerStatePath, 'utf8'),
        source: trainerStatePath,
      }),
      source: trainerStatePath,
    });
    capability = await loadCapabilityState({
      path: run.checkpointFile(resumedFrom, 'capabilityState'),
    });
    recorded = await run.truncateAfter(resumedFrom);
  } else {
    // A fresh run (or one that crashed before its first checkpoint) starts clean.
    await run.reset();
  }
  await writeJsonAtomic(run.file('config'), config);
  // The tasks the run trains and evaluates on, so that reports and viewers can
  // re-verify any recorded episode without knowing where the tasks came from.
  const runTasks = new Map<string, Task>();
  for (const task of [...trainTasks, ...evalSets.flatMap((set) => set.tasks)]) {
    runTasks.set(task.id, task);
  }
  await run.writeJsonLines(run.file('tasks'), [...runTasks.values()]);

  const summary: TrainSummary = {
    config,
    steps: [],
    evaluations: [],
    rollbacks: [],
    stages: [],
    validations: [],
    resumedFrom,
  };
  for (const event of recorded) {
    if (event.type === 'train-step') summary.steps.push(event);
    else if (event.type === 'eval') summary.evaluations.push(event);
    else if (event.type === 'rollback') summary.rollbacks.push(event);
    else if (event.type === 'stage') summary.stages.push(event);
    else if (event.type === 'validation') summary.validations.push(event);
  }
  return { state, capability, summary, resumedFrom };
}

/** Settings a continuation may change: how long it runs and how often it evaluates and saves. */
const continuationFields: ReadonlySet<string> = new Set([
  'steps',
  'evalEvery',
  'checkpointEvery',
  'keepEpisodes',
  'frozenBaseline',
  'evalSamples',
]);

/**
 * Refuses to resume a checkpoint recorded under another configuration (other
 * starting weights, method, seed, batch or optimiser settings): continuing it
 * would silently mix two runs.
 */
async function assertResumable({
  runDirectory,
  path,
  config,
}: {
  runDirectory: string;
  path: string;
  config: TrainConfig;
}): Promise<void> {
  let previous: TrainConfig;
  try {
    previous = trainConfigSchema.parse(
      JSON.parse(await readFile(path, 'utf8')),
    );
  } catch (error) {
    throw new SealError({
      code: 'INVALID_STATE',
      message: `${runDirectory} has a checkpoint but no readable config.json; start the run over or pick another run directory`,
      cause: error,
    });
  }
  const changed = Object.keys({ ...previous, ...config }).filter(
    (key) =>
      !continuationFields.has(key) &&
      JSON.stringify(previous[key as keyof TrainConfig]) !==
        JSON.stringify(config[key as keyof TrainConfig]),
  );
  if (changed.length > 0) {
    throw new SealError({
      code: 'INVALID_STATE',
      message: `${runDirectory} holds a run with another configuration (${changed.join(', ')} differ); start it over or pick another run directory`,
      details: { changed },
    });
  }
}

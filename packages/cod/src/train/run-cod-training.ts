import { existsSync, readFileSync } from 'node:fs';
import { mkdir, readdir, rename, rm, writeFile } from 'node:fs/promises';
import { dirname, join, relative } from 'node:path';
import {
  codRunConfigSchema,
  codTrainStateSchema,
  formatJsonLines,
  parseJsonWithSchema,
  runDirectoryLayout,
  runStepName,
  SealError,
  type CodRunConfig,
  type CodTrainState,
  type PackRunRecord,
  type PolicyV1,
} from '@seal/spec';
import type * as z from 'zod';
import type { PackEnvironment } from '../environment/pack-environment';
import type { Pack, PackStrategy } from '../packs/build-packs';
import {
  summarizePackPositions,
  type PackPositionSummary,
} from '../rollout/position-summary';
import { runPacks } from '../rollout/run-packs';
import {
  trainCodStep,
  type TrainCodStepResult,
} from '../rollout/train-cod-step';

/** `cod-state.json`: where a Connect the Dots run stood after its last finished step (`codTrainStateSchema`). */
export const codStateFile = 'cod-state.json';

/** An environment with packs drawn for a run (the CLI's FrozenLake and BFCL sources are ones). */
export type CodPackSource = {
  environment: PackEnvironment<unknown>;
  /** Draws `count` packs; `round` varies the tasks and seeds (a training step, or 0 for evaluation). */
  packs(options: {
    count: number;
    packSize: number;
    strategy: PackStrategy;
    round: number;
  }): Pack<unknown>[];
};

/** The settings a resumed run must share with the run directory's (or its pack runs would not match). */
export const codResumeKeys = [
  'environment',
  'seed',
  'packsPerStep',
  'groupSize',
  'packSize',
  'evalPacks',
  'evalPackSize',
  'evalRuns',
  'format',
  'arm',
] as const;

/** What {@link readCodResume} found in a run directory. */
export type CodResume = {
  /** The state to continue from (`nextStep` 0 for a new run). */
  state: CodTrainState;
  /** The checkpoint after `state.nextStep` steps, when steps are done; the policy to load. */
  checkpoint: string | undefined;
  /** The model the run started from, when the directory already has a `config.json` (a resume keeps it). */
  initialModel: string | undefined;
};

const readJson = <T>(path: string, schema: z.ZodType<T>): T =>
  parseJsonWithSchema({
    text: readFileSync(path, 'utf8'),
    schema,
    source: path,
  });

/**
 * The resume checks of a Connect the Dots run directory, before any model
 * loads: a `config.json` written with other sizes is refused
 * (`INVALID_ARGUMENT`, naming each changed setting), a `cod-state.json` that
 * does not parse is `INVALID_DATA`, and one that says steps are done without
 * their checkpoint is `FILE_NOT_FOUND`. A directory without these files is a
 * new run.
 */
export function readCodResume({
  runDirectory,
  config,
}: {
  runDirectory: string;
  /** The settings of the run about to start. */
  config: CodRunConfig;
}): CodResume {
  const configPath = join(runDirectory, runDirectoryLayout.config);
  let initialModel: string | undefined;
  if (existsSync(configPath)) {
    const written = readJson(configPath, codRunConfigSchema);
    // Runs written before format and arm existed used the paper's prompts and the CoD loop.
    const previous = {
      ...written,
      format: written.format ?? 'paper',
      arm: written.arm ?? 'cod',
      evalRuns: written.evalRuns ?? config.evalRuns,
    };
    const current = {
      ...config,
      format: config.format ?? 'paper',
      arm: config.arm ?? 'cod',
    };
    const changed = codResumeKeys.filter(
      (key) => previous[key] !== current[key],
    );
    if (changed.length > 0) {
      throw new SealError({
        code: 'INVALID_ARGUMENT',
        message: `${configPath} was written with other settings (${changed.map((key) => `${key} ${previous[key]}, now ${current[key]}`).join('; ')}): give the same flags to resume, or --fresh, or another --run-dir`,
        details: { changed: [...changed] },
      });
    }
    initialModel = written.initialModel;
  }
  const statePath = join(runDirectory, codStateFile);
  if (!existsSync(statePath))
    return {
      state: { schemaVersion: 1, nextStep: 0 },
      checkpoint: undefined,
      initialModel,
    };
  const state = readJson(statePath, codTrainStateSchema);
  if (state.nextStep === 0)
    return { state, checkpoint: undefined, initialModel };
  // Runs written before per-step checkpoints kept one `checkpoint/`.
  const checkpoint = join(runDirectory, state.checkpoint ?? 'checkpoint');
  if (!existsSync(join(checkpoint, 'model.safetensors'))) {
    throw new SealError({
      code: 'FILE_NOT_FOUND',
      message: `${statePath} says ${state.nextStep} steps are done, but their checkpoint ${checkpoint} is missing: seal train --fresh, or another --run-dir`,
      details: { file: checkpoint },
    });
  }
  return { state, checkpoint, initialModel };
}

/** What {@link runCodTraining} reports as it goes. */
export type CodTrainingEvent =
  | {
      type: 'evaluation-end';
      /** Before the first step or after the last. */
      when: 'before' | 'after';
      summary: PackPositionSummary[];
      records: PackRunRecord[];
    }
  | {
      type: 'step-end';
      /** Steps done (1 after the first). */
      step: number;
      steps: number;
      records: PackRunRecord[];
      summary: PackPositionSummary[];
      update: TrainCodStepResult;
    };

/** Options of {@link runCodTraining}. */
export type RunCodTrainingOptions = {
  /** The policy to train, loaded from the resume's checkpoint when steps are done. */
  policy: PolicyV1;
  runDirectory: string;
  /** The run's settings, written as `config.json` (keep `initialModel` from {@link readCodResume} on a resume). */
  config: CodRunConfig;
  /** Where to start ({@link readCodResume}'s `state`). */
  state: CodTrainState;
  /** Packs of the training steps. */
  train: CodPackSource;
  /** Packs of the evaluations before and after training (`config.evalPacks` each). */
  eval: CodPackSource;
  onEvent?: (event: CodTrainingEvent) => void;
};

/** What {@link runCodTraining} returns. */
export type RunCodTrainingResult = {
  /** Success per pack position before training (null when resumed after a step, or without evaluation). */
  before: PackPositionSummary[] | null;
  /** ... and after the last step (null without evaluation). */
  after: PackPositionSummary[] | null;
  /** The state written last. */
  state: CodTrainState;
};

async function writeTextAtomic(path: string, text: string): Promise<void> {
  await mkdir(dirname(path), { recursive: true });
  const temporary = `${path}.tmp`;
  await writeFile(temporary, text);
  await rename(temporary, path);
}

/**
 * Connect the Dots training in a run directory (spec B4): `config.json`,
 * an evaluation before (`packs/eval-000000.jsonl`), then for each step from
 * `state.nextStep` G runs of `config.packsPerStep` packs, one
 * {@link trainCodStep} (for the `one-by-one` arm: GRPO per task, no RED),
 * the step's pack runs (`packs/step-NNNNNN.jsonl`), a new checkpoint
 * (`checkpoints/step-NNNNNN/`) and `cod-state.json` naming it, after which
 * older checkpoints are removed; an evaluation after the last step
 * (`packs/eval-NNNNNN.jsonl`). Every file is written atomically or, for the
 * evaluations, pack by pack, so a killed run resumes (with
 * {@link readCodResume}) at its last step or evaluation pack with nothing
 * lost or duplicated.
 */
export async function runCodTraining(
  options: RunCodTrainingOptions,
): Promise<RunCodTrainingResult> {
  const { policy, runDirectory, config, onEvent } = options;
  const packsDirectory = join(runDirectory, runDirectoryLayout.packs);
  await mkdir(packsDirectory, { recursive: true });
  await writeTextAtomic(
    join(runDirectory, runDirectoryLayout.config),
    `${JSON.stringify(config, null, 2)}\n`,
  );
  const format = config.format ?? 'paper';
  const oneByOne = config.arm === 'one-by-one';

  const evaluate = async (when: 'before' | 'after', step: number) => {
    const packs = options.eval.packs({
      count: config.evalPacks,
      packSize: config.evalPackSize,
      strategy: 'cod',
      round: 0,
    });
    const { records } = await runPacks({
      policy,
      environment: options.eval.environment,
      packs,
      groupSize: config.evalRuns ?? 1,
      sampling: {
        maxTokens: config.maxTokens,
        updateMaxTokens: config.updateMaxTokens,
        temperature: config.temperature,
        seed: config.seed,
      },
      hints: { format },
      mode: 'eval',
      policyStep: null,
      runId: config.runId,
      file: join(packsDirectory, `eval-${runStepName(step)}.jsonl`),
    });
    const summary = summarizePackPositions(records);
    onEvent?.({ type: 'evaluation-end', when, summary, records });
    return summary;
  };

  let state = options.state;
  const before =
    state.nextStep === 0 && config.evalPacks > 0
      ? await evaluate('before', 0)
      : null;
  for (let step = state.nextStep; step < config.steps; step++) {
    const packs = options.train.packs({
      count: config.packsPerStep,
      packSize: config.packSize,
      strategy: 'cod',
      round: step,
    });
    const { results } = await runPacks({
      policy,
      environment: options.train.environment,
      packs,
      groupSize: config.groupSize,
      sampling: {
        maxTokens: config.maxTokens,
        updateMaxTokens: config.updateMaxTokens,
        temperature: config.temperature,
        seed: config.seed * 1_000_003 + step,
      },
      hints: { format },
      independentTasks: oneByOne,
      mode: 'train',
      policyStep: step,
      runId: config.runId,
    });
    // The control trains the same tasks one by one: GRPO's advantage r_i − mean over the group per task, no RED.
    const update = await trainCodStep({
      policy,
      results,
      train: {
        learningRate: config.learningRate,
        temperature: config.temperature,
      },
      ...(oneByOne
        ? {
            returns: { style: 'sliding-window', window: 1 } as const,
            red: false as const,
          }
        : {}),
    });
    const records = results.map((result) => result.record);
    await writeTextAtomic(
      join(packsDirectory, `step-${runStepName(step + 1)}.jsonl`),
      formatJsonLines(records),
    );
    // A new checkpoint per step, named by the state only once complete: a
    // kill at any point resumes from weights that match cod-state.json.
    const checkpoint = join(
      runDirectory,
      runDirectoryLayout.checkpoints,
      `step-${runStepName(step + 1)}`,
    );
    await rm(checkpoint, { recursive: true, force: true });
    await policy.save({ directory: checkpoint });
    state = {
      schemaVersion: 1,
      nextStep: step + 1,
      checkpoint: relative(runDirectory, checkpoint),
    };
    await writeTextAtomic(
      join(runDirectory, codStateFile),
      `${JSON.stringify(state, null, 2)}\n`,
    );
    await removeCheckpointsBut({ runDirectory, keep: checkpoint });
    onEvent?.({
      type: 'step-end',
      step: step + 1,
      steps: config.steps,
      records,
      summary: summarizePackPositions(records),
      update,
    });
  }
  const after =
    config.evalPacks > 0 ? await evaluate('after', config.steps) : null;
  return { before, after, state };
}

/** Removes the checkpoints of earlier steps (and the pre-schema `checkpoint/`) once a newer one is recorded. */
async function removeCheckpointsBut({
  runDirectory,
  keep,
}: {
  runDirectory: string;
  keep: string;
}): Promise<void> {
  const folder = join(runDirectory, runDirectoryLayout.checkpoints);
  const stale = existsSync(folder)
    ? (await readdir(folder))
        .map((name) => join(folder, name))
        .filter((path) => path !== keep)
    : [];
  for (const path of [...stale, join(runDirectory, 'checkpoint')])
    await rm(path, { recursive: true, force: true });
}

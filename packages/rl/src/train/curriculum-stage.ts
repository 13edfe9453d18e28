import {
  advanceCurriculum,
  envTuningStages,
  type PlateauSettings,
} from '@seal/evolve';
import { PyRandom } from '@seal/python';
import {
  SealError,
  type PolicyV1,
  type StageEvent,
  type SyncVerifierV1,
  type Task,
  type ToolBackendV1,
  type TrainerState,
  type ValidationEvent,
} from '@seal/spec';
import type { TrainConfig } from '../config/train-config';
import { evaluatePolicy } from '../evaluate/evaluate-policy';
import { deriveSeed } from '../rollout/run-rollouts';
import type { RunDirectory } from '../run/run-directory';
import {
  episodeLimits,
  type TrainProgress,
  type TrainSummary,
} from './train-types';

/** Environment Tuning's plan of a run (see {@link planCurriculum}). */
export type CurriculumPlan = {
  /** The validation split: never trained on. */
  validation: Task[];
  /** The tasks left to train on. */
  train: Task[];
  plateau: PlateauSettings;
};

/**
 * Environment Tuning's plan: the validation split (a seeded draw from the
 * training tasks, never trained on), the tasks left to train on and the
 * plateau rule with the stage budget resolved. Checked before the run
 * directory is touched.
 */
export function planCurriculum({
  config,
  trainTasks,
}: {
  config: TrainConfig;
  trainTasks: readonly Task[];
}): CurriculumPlan {
  const settings = config.curriculum;
  if (settings.validationTasks >= trainTasks.length) {
    throw new SealError({
      code: 'INVALID_ARGUMENT',
      message: `curriculum.validationTasks (${settings.validationTasks}) must be below the number of training tasks (${trainTasks.length}): the validation split is carved out of them`,
      details: {
        field: 'curriculum.validationTasks',
        value: settings.validationTasks,
        trainTasks: trainTasks.length,
      },
    });
  }
  const rng = new PyRandom(BigInt(deriveSeed(config.seed, 0x7a11d)));
  const drawn = new Set(
    rng
      .shuffle(trainTasks.map((task) => task.id))
      .slice(0, settings.validationTasks),
  );
  const maxStepsPerStage =
    settings.maxStepsPerStage === 'auto'
      ? Math.max(1, Math.floor(config.steps / envTuningStages.length))
      : settings.maxStepsPerStage;
  return {
    validation: trainTasks.filter((task) => drawn.has(task.id)),
    train: trainTasks.filter((task) => !drawn.has(task.id)),
    plateau: {
      patience: settings.patience,
      minDelta: settings.minDelta,
      minEvaluations: settings.minEvaluations,
      maxStepsPerStage,
    },
  };
}

/**
 * Environment Tuning, after every step (and before the first): validation
 * on the held-out split every `validateEvery` steps, then the stage advance
 * on a plateau of its score or a spent step budget. Records the validation
 * and stage events and returns the state with the new curriculum; the state
 * goes into the step's checkpoint, and a resumed run drops the records of
 * later steps.
 */
export async function advanceStage({
  step,
  plan,
  state,
  config,
  policy,
  backend,
  verifier,
  run,
  summary,
  onProgress,
}: {
  step: number;
  plan: CurriculumPlan;
  state: TrainerState;
  config: TrainConfig;
  policy: PolicyV1;
  backend: ToolBackendV1;
  verifier: SyncVerifierV1;
  run: RunDirectory;
  summary: TrainSummary;
  onProgress: ((progress: TrainProgress) => void) | undefined;
}): Promise<TrainerState> {
  let score: number | undefined;
  if (step % config.curriculum.validateEvery === 0) {
    const name = 'validation';
    onProgress?.({
      type: 'eval-start',
      step,
      set: name,
      tasks: plan.validation.length,
    });
    const evaluation = await evaluatePolicy({
      policy,
      tasks: plan.validation,
      backend,
      verifier,
      protocol: config.episode.protocol,
      promptMode: config.episode.promptMode,
      maxTokens: config.sampling.maxTokens,
      seed: deriveSeed(config.seed, 0x7a11e, step),
      limits: episodeLimits(config),
      episodeIdPrefix: `${config.runId}:eval${step}:${name}`,
    });
    score = evaluation.accuracy;
    const validation: ValidationEvent = {
      schemaVersion: 1,
      type: 'validation',
      step,
      stage: envTuningStages[state.curriculum.stage]!.name,
      accuracy: evaluation.accuracy,
      tasks: plan.validation.length,
      taskSuccess: evaluation.taskSuccess,
    };
    await run.writeJsonLines(
      run.evalEpisodesPath(step, name),
      evaluation.episodes.map((e) => e.record),
    );
    await run.appendJsonLines(run.file('events'), [validation]);
    summary.validations.push(validation);
    onProgress?.({
      type: 'eval-end',
      step,
      set: name,
      evaluation,
      event: validation,
    });
  }
  const before = state.curriculum;
  const next = advanceCurriculum({
    state: before,
    step,
    ...(score === undefined ? {} : { score }),
    settings: plan.plateau,
  });
  if (next.stage !== before.stage) {
    const change: StageEvent = {
      schemaVersion: 1,
      type: 'stage',
      step,
      from: envTuningStages[before.stage]!.name,
      to: envTuningStages[next.stage]!.name,
      reason: next.transitions.at(-1)?.reason ?? 'budget',
      ...(score === undefined ? {} : { validation: score }),
    };
    await run.appendJsonLines(run.file('events'), [change]);
    summary.stages.push(change);
    onProgress?.({ type: 'stage', event: change });
  }
  return { ...state, curriculum: next };
}

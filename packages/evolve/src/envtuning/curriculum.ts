import type {
  CurriculumAdvanceReason,
  CurriculumStageName,
  CurriculumState,
} from '@seal/spec';

/** What one curriculum stage trains on, with which reward and feedback. */
export type CurriculumStage = {
  /** Stable name. */
  name: CurriculumStageName;
  /** Which tasks: `easy` (a small easy subset), `base` (base category only), `all`. */
  data: 'easy' | 'base' | 'all';
  /** Training reward: Environment Tuning's format reward, or the progress reward. */
  reward: 'format' | 'progress';
  /** Actionable (augmented) environment feedback on, or the standard environment. */
  augmented: boolean;
};

/** Environment Tuning's four stages (A6): syntax, learning with hints, hard tasks, independent solving. */
export const envTuningStages: readonly CurriculumStage[] = [
  { name: 'syntax', data: 'easy', reward: 'format', augmented: false },
  { name: 'hints', data: 'base', reward: 'progress', augmented: true },
  { name: 'hard', data: 'all', reward: 'progress', augmented: true },
  { name: 'independent', data: 'all', reward: 'progress', augmented: false },
];

/** When a stage is over: its validation score plateaued, or its step budget ran out. */
export type PlateauSettings = {
  /** Evaluations without a new best (by more than `minDelta`) that count as a plateau. Default 3. */
  patience?: number;
  /** Improvement that counts as progress. Default 0.01. */
  minDelta?: number;
  /** Evaluations a stage gets at least. Default 2. */
  minEvaluations?: number;
  /** Training steps a stage gets at most (the last stage never ends). Default Infinity. */
  maxStepsPerStage?: number;
};

/** One stage change (an element of `CurriculumState.transitions`). */
export type CurriculumTransition = CurriculumState['transitions'][number];

/** The state at the start of stage 0. */
export function initialCurriculumState(): CurriculumState {
  return {
    schemaVersion: 1,
    stage: 0,
    scores: [],
    stageStartStep: 0,
    transitions: [],
  };
}

/** True when `scores` have plateaued under the settings. */
export function hasPlateaued(
  scores: readonly number[],
  settings: PlateauSettings = {},
): boolean {
  const patience = settings.patience ?? 3;
  const minDelta = settings.minDelta ?? 0.01;
  const minEvaluations = settings.minEvaluations ?? 2;
  if (scores.length < Math.max(minEvaluations, patience + 1)) return false;
  const before = Math.max(...scores.slice(0, scores.length - patience));
  const recent = Math.max(...scores.slice(scores.length - patience));
  return recent <= before + minDelta;
}

/**
 * Whether the current stage is over after `step` (its scores as they stand):
 * `plateau` when its validation scores plateaued, `budget` when it has
 * trained its `maxStepsPerStage` steps, undefined otherwise and always in the
 * last stage. A plateau takes precedence when both hold.
 */
export function stageEndReason({
  state,
  step,
  stages = envTuningStages,
  settings = {},
}: {
  state: CurriculumState;
  step: number;
  stages?: readonly CurriculumStage[];
  settings?: PlateauSettings;
}): CurriculumAdvanceReason | undefined {
  if (state.stage >= stages.length - 1) return undefined;
  if (hasPlateaued(state.scores, settings)) return 'plateau';
  if (step - state.stageStartStep >= (settings.maxStepsPerStage ?? Infinity))
    return 'budget';
  return undefined;
}

/**
 * Called after every training step: records the step's validation score when
 * one was taken, then advances the stage on a plateau of the stage's scores
 * or when its step budget is spent (see {@link stageEndReason}). The new
 * stage starts from this step's score, when there is one. Pure: returns the
 * next state; a change appends to `transitions`.
 */
export function advanceCurriculum({
  state,
  step,
  score,
  stages = envTuningStages,
  settings = {},
}: {
  state: CurriculumState;
  step: number;
  /** This step's validation score; absent on steps without validation. */
  score?: number;
  stages?: readonly CurriculumStage[];
  settings?: PlateauSettings;
}): CurriculumState {
  const scored: CurriculumState =
    score === undefined
      ? state
      : { ...state, scores: [...state.scores, score] };
  const reason = stageEndReason({ state: scored, step, stages, settings });
  if (reason === undefined) return scored;
  return {
    schemaVersion: 1,
    stage: state.stage + 1,
    scores: score === undefined ? [] : [score],
    stageStartStep: step,
    transitions: [
      ...state.transitions,
      {
        step,
        from: state.stage,
        to: state.stage + 1,
        reason,
        ...(score === undefined ? {} : { validation: score }),
      },
    ],
  };
}

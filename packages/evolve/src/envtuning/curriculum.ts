import * as z from 'zod';

/** What one curriculum stage trains on, with which reward and feedback. */
export type CurriculumStage = {
  /** Stable name. */
  name: 'syntax' | 'hints' | 'hard' | 'independent';
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

/** The serialisable state of a curriculum run (for checkpoints). */
export const curriculumStateSchema = z.object({
  schemaVersion: z.literal(1),
  stage: z.number().int().nonnegative(),
  /** Validation scores observed in the current stage, in order. */
  scores: z.array(z.number()),
  /** The step at which the current stage began. */
  stageStartStep: z.number().int().nonnegative(),
  /** Stage changes so far: `{ step, from, to }`. */
  transitions: z.array(z.object({ step: z.number().int(), from: z.number().int(), to: z.number().int() })),
});

/** See {@link curriculumStateSchema}. */
export type CurriculumState = z.infer<typeof curriculumStateSchema>;

/** The state at the start of stage 0. */
export function initialCurriculumState(): CurriculumState {
  return { schemaVersion: 1, stage: 0, scores: [], stageStartStep: 0, transitions: [] };
}

/** True when `scores` have plateaued under the settings. */
export function hasPlateaued(scores: readonly number[], settings: PlateauSettings = {}): boolean {
  const patience = settings.patience ?? 3;
  const minDelta = settings.minDelta ?? 0.01;
  const minEvaluations = settings.minEvaluations ?? 2;
  if (scores.length < Math.max(minEvaluations, patience + 1)) return false;
  const before = Math.max(...scores.slice(0, scores.length - patience));
  const recent = Math.max(...scores.slice(scores.length - patience));
  return recent <= before + minDelta;
}

/**
 * Records a validation score and advances the stage on a plateau or when the
 * stage's step budget is spent. Pure: returns the next state.
 */
export function advanceCurriculum({
  state,
  score,
  step,
  stages = envTuningStages,
  settings = {},
}: {
  state: CurriculumState;
  score: number;
  step: number;
  stages?: readonly CurriculumStage[];
  settings?: PlateauSettings;
}): CurriculumState {
  const scores = [...state.scores, score];
  const last = state.stage >= stages.length - 1;
  const budgetSpent = step - state.stageStartStep >= (settings.maxStepsPerStage ?? Infinity);
  if (!last && (hasPlateaued(scores, settings) || budgetSpent)) {
    return {
      schemaVersion: 1,
      stage: state.stage + 1,
      scores: [],
      stageStartStep: step,
      transitions: [...state.transitions, { step, from: state.stage, to: state.stage + 1 }],
    };
  }
  return { ...state, scores };
}

import type { SealInterfaceSettings } from '@seal/evolve';
import type {
  EvalEvent,
  PolicyV1,
  RollbackEvent,
  StageEvent,
  SyncVerifierV1,
  Task,
  ToolBackendV1,
  TrainStepEvent,
  ValidationEvent,
} from '@seal/spec';
import type { TrainConfig, TrainConfigInput } from '../config/train-config';
import type { PolicyEvaluation } from '../evaluate/evaluate-policy';
import type { LoopVerdict, TrainingEnvironment } from './training-environment';

/** An evaluation set: a name and its tasks. */
export type EvalSet = { name: string; tasks: Task[] };

/** Progress reported by {@link runTraining}. */
export type TrainProgress =
  | { type: 'step-start'; step: number; steps: number }
  | { type: 'rollout-round'; step: number; active: number; total: number }
  | { type: 'step-end'; step: number; steps: number; event: TrainStepEvent }
  | { type: 'eval-start'; step: number; set: string; tasks: number }
  | {
      type: 'eval-end';
      step: number;
      set: string;
      evaluation: PolicyEvaluation<LoopVerdict>;
      /** The recorded event (as in `events.jsonl`): an evaluation, or Environment Tuning's validation. */
      event: EvalEvent | ValidationEvent;
    }
  | { type: 'rollback'; event: RollbackEvent }
  | { type: 'stage'; event: StageEvent };

/** Options of {@link runTraining}. */
export type RunTrainingOptions = {
  config: TrainConfigInput;
  /** The trainable policy. */
  policy: PolicyV1;
  /** A frozen reference policy for the KL term (needed when `ppo.klCoef > 0`). */
  referencePolicy?: PolicyV1;
  trainTasks: readonly Task[];
  evalSets?: readonly EvalSet[];
  /**
   * The generic dispatch: where rollouts run and how they are verified
   * (`bfclTrainingEnvironment`, `v2TrainingEnvironment`). Without it,
   * `backend` and `verifier` are BFCL's and run through
   * `bfclTrainingEnvironment`.
   */
  environment?: TrainingEnvironment;
  backend?: ToolBackendV1;
  verifier?: SyncVerifierV1;
  /** The run directory (created if missing; resumed if it holds a checkpoint). */
  runDirectory: string;
  /** SEAL interface modules for methods with environment adaptation (default: the headline, φ_schema). */
  interfaceSettings?: SealInterfaceSettings;
  /**
   * The step-0 evaluations of this warm start, already measured under the
   * same seed and evaluation settings (one event per evaluation set), to be
   * recorded as this run's own instead of evaluating again. The step-0
   * evaluation depends only on the warm start, the seed, the evaluation sets
   * and the episode and sampling settings, not on the method: a study runs it
   * once per seed and shares it across its arms. Events that do not match
   * the evaluation sets or `evalSamples` are refused.
   */
  initialEvaluations?: readonly EvalEvent[];
  onProgress?: (progress: TrainProgress) => void;
  /** Stops after the current step. */
  signal?: AbortSignal;
};

/** What {@link runTraining} returns. */
export type TrainSummary = {
  config: TrainConfig;
  /** Every step of the run, those recorded before a resume included (likewise `evaluations`). */
  steps: TrainStepEvent[];
  evaluations: EvalEvent[];
  /** Gap-monitor rollbacks (empty without the monitor). */
  rollbacks: RollbackEvent[];
  /** Environment Tuning's stage changes and validations (empty for other methods). */
  stages: StageEvent[];
  validations: ValidationEvent[];
  /** The step the run resumed after (0 for a fresh run). */
  resumedFrom: number;
};

/**
 * The episode limits of a training run's rollouts and evaluations (the
 * rollouts add Environment Tuning's attempt cap).
 */
export function episodeLimits(config: TrainConfig): {
  maxModelCalls: number;
  maxStepsPerTurn?: number;
  maxObservationTokens?: number;
} {
  return {
    maxModelCalls: config.episode.maxModelCalls,
    ...(config.episode.maxStepsPerTurn
      ? { maxStepsPerTurn: config.episode.maxStepsPerTurn }
      : {}),
    ...(config.episode.maxObservationTokens
      ? { maxObservationTokens: config.episode.maxObservationTokens }
      : {}),
  };
}

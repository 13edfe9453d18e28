export { grpoAdvantages, grpoEpsilon, zeroVarianceGroups } from './advantages/grpo';
export { applyAPatch, defaultTagWeights, excludedTags, trajectoryWeight, type APatchSettings } from './advantages/apatch';
export { updateDynamicTagWeights, type ClosedLoopSettings, type LoopTagStatistics } from './advantages/closed-loop';
export {
  methodComponents,
  trainConfigSchema,
  trainMethodSchema,
  type MethodComponents,
  type TrainConfig,
  type TrainConfigInput,
  type TrainMethod,
} from './config/train-config';
export { deriveSeed, runRollouts, type Rollout, type RolloutSampling } from './rollout/run-rollouts';
export {
  evaluatePolicy,
  type EvaluatedEpisode,
  type PolicyEvaluation,
  type SyncVerifier,
} from './evaluate/evaluate-policy';
export {
  runTraining,
  type EvalEvent,
  type EvalSet,
  type RunTrainingOptions,
  type StepTiming,
  type TrainProgress,
  type TrainStepEvent,
  type TrainSummary,
} from './train/run-training';
export { RunDirectory, writeFileAtomic, writeJsonAtomic } from './run/run-directory';
export {
  buildDemonstration,
  demonstrationReply,
  demonstrationResponses,
  demonstrationText,
  type Demonstration,
} from './warmstart/demonstrations';
export { runSupervised, type SupervisedProgress } from './warmstart/run-supervised';

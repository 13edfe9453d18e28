export {
  grpoAdvantages,
  grpoEpsilon,
  turnAdvantages,
  zeroVarianceGroups,
} from './advantages/grpo';
export {
  curriculumSettingsSchema,
  methodComponents,
  trainConfigSchema,
  trainMethodSchema,
  type CurriculumSettings,
  type CurriculumSettingsInput,
  type MethodComponents,
  type TrainConfig,
  type TrainConfigInput,
  type TrainMethod,
} from './config/train-config';
export {
  deriveSeed,
  runRollouts,
  type Rollout,
  type RolloutSampling,
} from './rollout/run-rollouts';
export {
  evaluatePolicy,
  type EvaluatedEpisode,
  type PolicyEvaluation,
} from './evaluate/evaluate-policy';
export {
  evaluateChatModel,
  type ChatEvalMode,
  type ChatEvaluatedEpisode,
  type EvaluateChatModelOptions,
} from './evaluate/evaluate-chat-model';
export {
  evalResultRecordSchema,
  openEvalResultsFile,
  parseEvalResultRecord,
  safeParseEvalResultRecord,
  toEvalResultRecord,
  type EvalResultRecord,
  type EvalResultsFile,
} from './evaluate/eval-results-file';
export {
  bfclMultiTurnCsv,
  buildBfclScoreFiles,
  displayAccuracy,
  type BfclScoreFiles,
  type BfclScoreHeader,
  type BfclScoreRow,
  type ScoredTask,
} from './evaluate/bfcl-score-files';
export {
  writeBfclScoreFiles,
  type BfclScorePaths,
} from './evaluate/write-bfcl-score-files';
export { checkTaskMix, mixedBatch, mixPool } from './train/batch-schedule';
export {
  runTraining,
  type EvalSet,
  type RunTrainingOptions,
  type TrainProgress,
  type TrainSummary,
} from './train/run-training';
export {
  RunDirectory,
  writeFileAtomic,
  writeJsonAtomic,
} from './run/run-directory';
export {
  buildDemonstration,
  demonstrationReply,
  demonstrationResponses,
  missingToolReply,
  missingValueReply,
  demonstrationText,
  type Demonstration,
} from './warmstart/demonstrations';
export {
  buildCopyDrills,
  callLiterals,
  turnDrillPairs,
} from './warmstart/copy-drills';
export { evaluateCopying, type CopyEvaluation } from './warmstart/copy-eval';
export {
  buildToolListDemonstrations,
  toolListPairs,
  type ToolListPair,
} from './warmstart/tool-list-demonstrations';
export {
  runSupervised,
  type SupervisedProgress,
} from './warmstart/run-supervised';
export {
  clusteredPairedBootstrap,
  formatPoints,
  minimumDetectableEffect,
  minimumDetectableEffectOverRuns,
  normalQuantile,
  pairedBootstrap,
  sampleStandardDeviation,
  studentTQuantile,
  type PairedEstimate,
} from './stats/bootstrap';
export {
  compareCrossed,
  crossedPairedBootstrap,
  formatCrossedComparison,
  minimumDetectableEffectFromStandardError,
  seedTInterval,
  type CrossedComparison,
  type CrossedEstimate,
  type SeedRow,
} from './stats/crossed-bootstrap';
export {
  compareCategories,
  compareRuns,
  pairRuns,
  taskInCategory,
  type CompareMeasure,
  type ComparedMeasure,
  type ComparedPair,
  type ComparedRun,
} from './stats/compare-runs';
export {
  compareTraining,
  trainingMeasures,
  type TrainingCell,
  type TrainingComparison,
  type TrainingMeasure,
} from './stats/compare-training';
export {
  readTrainingCells,
  type TrainingEpisodeDiagnoser,
} from './stats/read-training-cells';
export { heldOutGains, type HeldOutGain } from './stats/held-out-gains';
export { parseSeedList } from './stats/seed-list';
export { wilsonInterval } from './stats/wilson-interval';
export {
  gapMonitorSettingsSchema,
  initialGapMonitorState,
  observeGap,
  type GapDecision,
  type GapMonitorSettings,
} from './train/gap-monitor';
export { randomSealOverlay } from './warmstart/random-overlay';
export {
  bfclTrainingEnvironment,
  type LoopVerdict,
  type RolloutEpisode,
  type TrainingEnvironment,
  type TrainingEpisodeOptions,
} from './train/training-environment';
export {
  createRolloutEpisodeV2,
  type RolloutEpisodeV2,
  type RolloutEpisodeV2Options,
} from './environment-v2/rollout-episode-v2';
export {
  loopTaskOfV2,
  loopVerdictOfV2,
  prepareTrainingEnvironmentV2,
  scoreByCategory,
  toolDocOfV2,
  type LoopVerdictV2,
  type TrainingEnvironmentV2,
} from './environment-v2/training-environment-v2';

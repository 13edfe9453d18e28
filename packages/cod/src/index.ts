export {
  hintRewardToGo,
  rewardToGo,
  type ReturnStyle,
} from './credit/reward-to-go';
export {
  computePackAdvantages,
  type PackRunCredit,
  type PackRunRewards,
} from './credit/group-baseline';
export {
  redReweight,
  redTokenSum,
  type RedEpisode,
  type RedResult,
  type RedSettings,
} from './credit/red-weighting';
export {
  recLoss,
  recTrainSequences,
  recTrustRegionMask,
  type RecLoss,
  type RecSequence,
  type RecSettings,
} from './credit/rec-loss';
export {
  fallbackHints,
  hintSectionHeader,
  hintsContext,
  initialHints,
  injectHintSection,
  promptFormats,
  stripHintSection,
  type PromptFormat,
} from './hints/hint-section';
export {
  hintEndDelimiter,
  hintStartDelimiter,
  parseHintBlock,
  type HintParseFailure,
  type HintParseResult,
} from './hints/parse-hint-block';
export {
  serializeTrajectory,
  type SerializeTrajectoryOptions,
  type SolveTrajectory,
  type TrajectoryStep,
} from './hints/serialize-trajectory';
export {
  buildUpdateContextMessages,
  compactUpdateContextSystemPrompt,
  updateContextSystemPrompt,
} from './hints/update-context-prompt';
export {
  hintReward,
  taskReward,
  type TaskRewardSettings,
} from './hints/rewards';
export { applyHintUpdate, type HintUpdate } from './hints/apply-hint-update';
export {
  createPackRandom,
  mixSeed,
  type PackRandom,
} from './packs/pack-random';
export {
  buildPacks,
  derivePackSeed,
  evalPackSize,
  packStrategies,
  trainPackSize,
  type BuildPacksOptions,
  type Pack,
  type PackStrategy,
} from './packs/build-packs';
export type {
  PackEnvironment,
  PackSolveEpisode,
  PackSolveResult,
  PackSolveStep,
} from './environment/pack-environment';
export {
  generateFrozenLakeTasks,
  shortestFrozenLakePath,
  type FrozenLakeTask,
  type GenerateFrozenLakeOptions,
} from './frozen-lake/frozen-lake-tasks';
export {
  createFrozenLakeEnvironment,
  frozenLakeDirections,
  frozenLakeEnvironmentId,
  frozenLakeMapping,
  frozenLakeSystemPrompt,
  parseFrozenLakeAnswer,
  type FrozenLakeDirection,
  type FrozenLakeObservations,
  type FrozenLakeSettings,
} from './frozen-lake/frozen-lake-environment';
export {
  describeObservedMoves,
  formatDirectionHints,
  formatExpertChoice,
  frozenLakeExpertChoice,
  frozenLakeExpertMove,
  mergeDirectionFacts,
  observedDirectionFacts,
  readDirectionFacts,
  type DirectionFacts,
  type FrozenLakeExpertChoice,
  type FrozenLakeExpertReason,
} from './frozen-lake/frozen-lake-expert';
export {
  demonstrationTokens,
  playFrozenLakeExpertPack,
  type CodDemonstration,
  type FrozenLakeDemonstrationConversation,
  type FrozenLakeExpertPackSettings,
} from './frozen-lake/frozen-lake-demonstrations';
export {
  aliasArgumentName,
  bfclArgumentStyles,
  bfclPackRegularity,
  bfclToolPrefixes,
  createAliasedBackend,
  createBfclPackAliases,
  describeBfclRegularity,
  type BfclPackAliases,
  type BfclPackRegularity,
  type CanonicalCall,
} from './bfcl-packs/bfcl-pack-regularity';
export {
  bfclTasksetId,
  createBfclPackEnvironment,
  type BfclPackSettings,
} from './bfcl-packs/bfcl-pack-environment';
export {
  runPackRuns,
  type EpisodeTokens,
  type PackHintSettings,
  type PackRunResult,
  type PackSampling,
  type RunPackRunsOptions,
} from './rollout/run-pack-runs';
export {
  runPacks,
  type RunPacksOptions,
  type RunPacksResult,
} from './rollout/run-packs';
export {
  openPackRunFile,
  readPackRunFile,
  type PackRunFileState,
} from './rollout/pack-run-file';
export {
  summarizePackPositions,
  type PackPositionSummary,
} from './rollout/position-summary';
export {
  trainCodStep,
  type TrainCodStepOptions,
  type TrainCodStepResult,
} from './rollout/train-cod-step';
export {
  derivedFacts,
  extractClaims,
  extractTrajectoryFacts,
  factId,
  readinessEnvironmentIds,
  type ReadinessClaim,
  type ReadinessEnvironmentId,
  type ReadinessFactKind,
  type TrajectoryFacts,
} from './readiness/readiness-facts';
export {
  measureReadiness,
  readinessBar,
  readinessUpdatesFromPackRuns,
  solveTrajectoryFromRecord,
  type ReadinessProportion,
  type ReadinessResult,
  type ReadinessUpdate,
} from './readiness/measure-readiness';
export { readinessWilsonInterval } from './readiness/wilson-interval';
export {
  codResumeKeys,
  codStateFile,
  readCodResume,
  runCodTraining,
  type CodPackSource,
  type CodResume,
  type CodTrainingEvent,
  type RunCodTrainingOptions,
  type RunCodTrainingResult,
} from './train/run-cod-training';

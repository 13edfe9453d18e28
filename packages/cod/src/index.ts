export { hintRewardToGo, rewardToGo, type ReturnStyle } from './credit/reward-to-go';
export { computePackAdvantages, type PackRunCredit, type PackRunRewards } from './credit/group-baseline';
export { redReweight, redTokenSum, type RedEpisode, type RedResult, type RedSettings } from './credit/red-weighting';
export { recLoss, recTrainSequences, recTrustRegionMask, type RecLoss, type RecSequence, type RecSettings } from './credit/rec-loss';
export {
  fallbackHints,
  hintSectionHeader,
  hintsContext,
  initialHints,
  injectHintSection,
  stripHintSection,
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
export { buildUpdateContextMessages, updateContextSystemPrompt } from './hints/update-context-prompt';
export { hintReward, taskReward, type TaskRewardSettings } from './hints/rewards';
export { applyHintUpdate, type HintUpdate } from './hints/apply-hint-update';

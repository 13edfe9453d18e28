export { hintRewardToGo, rewardToGo, type ReturnStyle } from './credit/reward-to-go';
export { computePackAdvantages, type PackRunCredit, type PackRunRewards } from './credit/group-baseline';
export { redReweight, redTokenSum, type RedEpisode, type RedResult, type RedSettings } from './credit/red-weighting';
export { recLoss, recTrainSequences, recTrustRegionMask, type RecLoss, type RecSequence, type RecSettings } from './credit/rec-loss';

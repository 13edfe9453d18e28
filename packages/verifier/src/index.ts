export {
  createBfclVerifier,
  type BfclVerifierSettings,
} from './create-bfcl-verifier';
export {
  bfclVerifierId,
  formatReward,
  trajectoryFromRecord,
  verifyTrajectory,
  type VerifyTrajectoryOptions,
} from './verify-trajectory';
export {
  aggregateBfclScores,
  type BfclScores,
  type CategoryScore,
} from './aggregate-scores';
export {
  bfclCheckerVerdictSchema,
  checkerResultDifferences,
  checkerVerdictDifferences,
  sortSetLiterals,
  type BfclCheckerVerdict,
} from './checker-verdict';
export * from './generic';

export {
  diagnoseEpisode,
  type DiagnoseEpisodeOptions,
} from './diagnose-episode';
export { diagnoseTrajectory } from './diagnose-trajectory';
export {
  argumentErrorPatterns,
  isArgumentError,
  type ArgumentErrorPattern,
} from './argument-error';
export {
  sealToolErrorPattern,
  toolErrorOf,
  type CallExecutedEvent,
} from './tool-error';
export { dominantTag, dominantCapabilityTag, unknownTag } from './dominant-tag';
export { turnPosition, type TurnPosition } from './turn-position';
export { bfclCategoryPrefixes, inferTaskCategory } from './task-category';
export {
  CapabilityState,
  capabilityKeySeparator,
  createCapabilityState,
  packCapabilityKey,
  parseCapabilityStateRecord,
  safeParseCapabilityStateRecord,
  statsSnapshot,
  unpackCapabilityKey,
  type CapabilityBucketName,
  type CapabilityObservation,
  type CapabilityScope,
} from './capability-state';
export {
  loadCapabilityState,
  saveCapabilityState,
  writeCapabilitySnapshot,
} from './capability-state-file';
export { summarizeDiagnoses } from './summarize-diagnoses';
export {
  applyAPatch,
  defaultTagWeights,
  excludedTags,
  trajectoryWeight,
  type APatchSettings,
} from './apatch';
export {
  updateDynamicTagWeights,
  type ClosedLoopSettings,
  type LoopTagStatistics,
} from './closed-loop';

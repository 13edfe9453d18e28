export { jsonEqual } from './json-equal';
export {
  tagTurnV2,
  type GroundTruthTurnV2,
  type TagTurnV2Options,
} from './tag-turn';
export { replayGroundTruthV2, runCallsV2 } from './replay-v2';
export {
  genericVerifierId,
  verifyEpisodeV2,
  type VerifyEpisodeV2Options,
} from './verify-episode-v2';
export {
  aggregateScoresV2,
  type CategoryScoreV2,
  type ScoresV2,
} from './aggregate-scores-v2';
export {
  checkEnvironmentV2,
  sabotageGroundTruthV2,
  type EnvironmentCheckV2Report,
  type SabotageV2,
  type TaskCheckV2,
} from './check-environment-v2';

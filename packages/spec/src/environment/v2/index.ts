export {
  toolCallV2Schema,
  toolOutcomeKindV2Schema,
  toolOutcomeV2Schema,
  type ToolCallV2,
  type ToolOutcomeKindV2,
  type ToolOutcomeV2,
} from './tool-call-v2';
export {
  toolDocV2Schema,
  type JsonSchemaV2,
  type ToolDocV2,
  type ToolV2,
  type ToolV2ExecuteOptions,
} from './tool-v2';
export {
  groundTruthCallV2Schema,
  groundTruthChecksV2Schema,
  holdoutV2Schema,
  taskMessageV2Schema,
  taskV2Schema,
  type GroundTruthCallV2,
  type GroundTruthChecksV2,
  type HoldoutV2,
  type TaskMessageV2,
  type TaskV2,
  type TaskV2Input,
} from './task-v2';
export {
  episodeTraceV2Schema,
  traceStepV2Schema,
  turnTraceV2Schema,
  type EpisodeTraceV2,
  type TraceStepV2,
  type TurnTraceV2,
} from './episode-trace-v2';
export {
  checkerVerdictV2Schema,
  genericTagsV2,
  rewardsV2Schema,
  turnVerdictV2Schema,
  verifierV2ResultSchema,
  type CheckerVerdictV2,
  type GenericTagV2,
  type RewardsV2,
  type TurnVerdictV2,
  type VerifierV2Result,
} from './verdict-v2';
export type {
  EnvironmentV2,
  EnvironmentV2OpenSessionOptions,
  EnvironmentV2Session,
  EnvironmentV2SessionRole,
  TaskCheckerV2,
  TaskCheckerV2Options,
} from './environment-v2';
export {
  environmentEpisodeRecordSchema,
  type EnvironmentEpisodeRecord,
} from './episode-record-v2';

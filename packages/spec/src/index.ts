export { sealErrorCodes, type SealErrorCode } from './errors/seal-error-codes';
export {
  SealError,
  toSealError,
  type SealErrorOptions,
} from './errors/seal-error';
export { sealWarningSchema, type SealWarning } from './shared/seal-warning';
export {
  parseJsonText,
  parseJsonWithSchema,
  parseWithSchema,
  safeParseWithSchema,
  type ParseWithSchemaOptions,
  type SafeParseResult,
} from './shared/parse';
export {
  formatJsonLines,
  parseJsonLineEntries,
  parseJsonLines,
  safeParseJsonLines,
  type JsonLineEntry,
  type JsonLinesResult,
} from './shared/json-lines';
export { promptModeSchema, type PromptMode } from './prompt/v1';
export * from './warmstart/v1';
export { chatMessageSchema, type ChatMessage } from './task/v1/chat-message';
export { toolCallSchema, type ToolCall } from './task/v1/tool-call';
export {
  toolDocSchema,
  toolParameterSchema,
  type ToolDoc,
  type ToolParameter,
} from './task/v1/tool-doc';
export {
  bfclBackendSchema,
  holdoutSchema,
  taskCategorySchema,
  taskSchema,
  type Task,
  type TaskCategory,
} from './task/v1/task';
export {
  callRejectionReasonSchema,
  episodeEndReasonSchema,
  episodeEventSchema,
  turnEndReasonSchema,
  type CallRejectionReason,
  type EpisodeEndReason,
  type EpisodeEvent,
  type TurnEndReason,
} from './episode/v1/episode-event';
export {
  episodeRecordSchema,
  episodeStampsSchema,
  episodeStepSchema,
  episodeTurnSchema,
  type EpisodeRecord,
  type EpisodeStamps,
  type EpisodeStep,
  type EpisodeTurn,
} from './episode/v1/episode-record';
export type {
  EpisodeV1,
  EpisodeV1StepResult,
} from './episode/v1/environment-v1';
export * from './policy';
export type {
  ToolBackendV1,
  ToolBackendV1Execution,
  ToolBackendV1Session,
} from './backend/v1/tool-backend-v1';
export {
  emptyOverlay,
  errorHintSchema,
  errorRewriteSchema,
  interfaceOverlaySchema,
  isEmptyOverlay,
  systemNoteSchema,
  toolPatchSchema,
  type ErrorHint,
  type ErrorRewrite,
  type InterfaceOverlay,
  type InterfaceOverlayInput,
  type SystemNote,
  type ToolPatch,
} from './overlay/v1/interface-overlay';
export {
  overlayModuleNames,
  overlayModuleSchema,
  type OverlayModule,
} from './overlay/v1/overlay-module';
export {
  failureTagSchema,
  fineTagSchema,
  type FailureTag,
  type FineTag,
} from './verifier/v1/failure-tag';
export {
  bfclErrorTypeSchema,
  officialVerdictSchema,
  rewardsSchema,
  turnVerdictSchema,
  verifierV1ResultSchema,
  type BfclErrorType,
  type OfficialVerdict,
  type Rewards,
  type TurnVerdict,
  type VerifierV1Result,
} from './verifier/v1/verifier-v1-result';
export type {
  SyncVerifierV1,
  VerifierV1,
  VerifierV1CallOptions,
} from './verifier/v1/verifier-v1';
export * from './diagnose/v1';
export * from './cod/v1';
export * from './chat-model/v1';
export * from './run/v1';
export * from './env-service/v1';
export * from './environment/v2';

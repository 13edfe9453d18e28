export type { PolicyV1 } from './policy-v1';
export {
  policyV1ChatMessageSchema,
  policyV1ToolDefinitionSchema,
  type PolicyV1ChatMessage,
  type PolicyV1RenderChatDeltaOptions,
  type PolicyV1RenderChatOptions,
  type PolicyV1RenderedChat,
  type PolicyV1Tokenizer,
  type PolicyV1ToolDefinition,
} from './policy-v1-chat';
export {
  policyV1GenerateOptionsSchema,
  type PolicyV1FinishReason,
  type PolicyV1GenerateOptions,
  type PolicyV1GenerateResult,
  type PolicyV1Generation,
} from './policy-v1-generate';
export {
  policyV1ScoreOptionsSchema,
  type PolicyV1ScoreOptions,
  type PolicyV1ScoreResult,
} from './policy-v1-score';
export {
  policyV1TrainOptionsSchema,
  policyV1TrainSequenceSchema,
  policyV1TrainSettingsSchema,
  type PolicyV1TrainOptions,
  type PolicyV1TrainResult,
  type PolicyV1TrainSequence,
  type PolicyV1TrainSettings,
} from './policy-v1-train';

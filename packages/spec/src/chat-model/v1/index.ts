export type { ChatModelV1 } from './chat-model-v1';
export type {
  ChatModelV1CompleteOptions,
  ChatModelV1Request,
  ChatModelV1ToolDefinition,
} from './chat-model-v1-request';
export type {
  ChatModelV1FinishReason,
  ChatModelV1Result,
} from './chat-model-v1-result';

export {
  createPolicyChatModel,
  fromOpenAiTool,
  renderForModel,
  type PolicyChatModel,
  type PolicyChatModelSettings,
  type PolicyChatRequest,
} from './policy-chat-model';
export {
  startOpenAiServer,
  type OpenAiErrorBody,
  type OpenAiServer,
  type OpenAiServerOptions,
  type ServedChatModel,
} from './openai-server';
export {
  apiRoot,
  createOpenAiChatModel,
  listOpenAiModels,
  type OpenAiChatModelSettings,
} from './openai-chat-client';
export { createInProcessChatModel } from './in-process-chat-model';
export {
  fromOpenAiMessages,
  fromOpenAiRequest,
  fromOpenAiResponse,
  openAiChatRequestSchema,
  openAiChatResponseSchema,
  openAiMessageSchema,
  openAiModelListSchema,
  openAiToolSchema,
  toOpenAiMessages,
  toOpenAiRequest,
  toOpenAiResponse,
  type OpenAiChatRequest,
  type OpenAiChatResponse,
  type OpenAiMessage,
  type OpenAiToolCall,
  type ParsedOpenAiRequest,
} from './openai-wire';

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
export { completeTokens, type CompletionPolicy } from './openai-completions';
export {
  openAiCompletionChoiceSchema,
  openAiCompletionRequestSchema,
  openAiCompletionResponseSchema,
  type OpenAiCompletionRequest,
  type OpenAiCompletionResponse,
} from './openai-completions-wire';
export {
  createOpenAiSampler,
  createSampledPolicy,
  type OpenAiSample,
  type OpenAiSampler,
  type OpenAiSamplerSettings,
  type SampledPolicy,
  type SampledPolicySettings,
  type SamplerWeightSync,
} from './openai-sampler';
export { postJsonWithRetries, type RetrySettings } from './openai-http';

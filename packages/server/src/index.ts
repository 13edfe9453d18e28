export {
  createEnvService,
  envServiceEndpoints,
  type CreateResult,
  type DiagnoseResult,
  type EnvService,
  type EnvServiceEndpoint,
  type EnvServiceSettings,
  type StepResult,
  type SyncVerifier,
} from './env-service';
export {
  startEnvServer,
  type EnvServer,
  type EnvServerOptions,
} from './env-server';
export { errorResponse, statusForCode, type ErrorBody } from './error-response';
export {
  createParamKeys,
  resolveEpisodeParams,
  type EpisodeParams,
  type StatisticsLoader,
} from './episode-params';
export { toSealEvaluation, type SealEvaluation } from './seal-evaluation';
export {
  apatchWeightsParamsSchema,
  computeAPatchWeights,
  type APatchWeightsResult,
} from './apatch-weights';
export {
  createBfclTaskSource,
  createStaticTaskSource,
  type TaskSource,
} from './task-source';
export {
  conversationCompleted,
  serviceRequestSchema,
  stepMessageSchema,
  type ServiceRequest,
  type StepMessage,
  type WireMessage,
} from './wire';
export { createStateFileStatisticsLoader } from './state-file-statistics';
export {
  createPolicyChatModel,
  fromOpenAiTool,
  renderForModel,
  type PolicyChatModel,
  type PolicyChatModelSettings,
  type PolicyChatRequest,
} from './openai/policy-chat-model';
export {
  startOpenAiServer,
  type OpenAiErrorBody,
  type OpenAiServer,
  type OpenAiServerOptions,
  type ServedChatModel,
} from './openai/openai-server';
export {
  apiRoot,
  createOpenAiChatModel,
  listOpenAiModels,
  type OpenAiChatModelSettings,
} from './openai/openai-chat-client';
export { createInProcessChatModel } from './openai/in-process-chat-model';
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
} from './openai/openai-wire';

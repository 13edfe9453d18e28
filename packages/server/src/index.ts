export {
  createEnvService,
  envServiceEndpoints,
  type CreateResult,
  type DiagnoseResult,
  type EnvService,
  type EnvServiceEndpoint,
  type EnvServiceSettings,
  type StepResult,
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

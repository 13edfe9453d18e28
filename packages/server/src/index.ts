export {
  createEnvService,
  envServiceEndpoints,
  type EnvService,
  type EnvServiceEndpoint,
  type EnvServiceSettings,
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
export { toSealEvaluation } from './seal-evaluation';
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
export { conversationCompleted } from './wire';
export { createStateFileStatisticsLoader } from './state-file-statistics';

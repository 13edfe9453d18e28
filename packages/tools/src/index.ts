export {
  fromAiSdkTools,
  type FromAiSdkToolsOptions,
} from './from-ai-sdk-tools';
export {
  fromMcp,
  sessionDirPlaceholder,
  type FromMcpOptions,
} from './from-mcp';
export { parseMcpCommand } from './parse-mcp-command';
export {
  fromToolBackendV1,
  taskV2FromV1,
  toolDocV2FromV1,
  type FromToolBackendV1Options,
} from './from-tool-backend-v1';
export { callWithTimeout, defaultCallTimeoutMs } from './call-with-timeout';
export {
  holdoutTurnSentence,
  runEpisodeV2,
  visibleToolsV2,
  type RunEpisodeV2Options,
} from './run-episode-v2';

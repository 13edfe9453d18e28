export {
  createEpisode,
  type CreateEpisodeOptions,
  type Episode,
} from './episode/create-episode';
/**
 * The step bookkeeping of an episode, whatever runs its tools: parsing,
 * refused calls, executed calls' events and observations, turns, holdout
 * reveals, the budget, step, attempt and context limits, and the record.
 * `createEpisode` runs it over a `ToolBackendV1`; `@seal/rl`'s v2 rollout
 * episode over an `EnvironmentV2` session.
 */
export {
  createEpisodeCore,
  type CreateEpisodeCoreOptions,
  type EpisodeCallRejection,
  type EpisodeCore,
  type EpisodeLimits,
  type EpisodeStepStart,
  type PendingEpisodeStep,
} from './episode/create-episode-core';
export { createProtocol, protocolNames, type ProtocolName } from './protocols';
export {
  holdoutSentence,
  toToolCall,
  type CallResult,
  type DecodedCall,
  type PromptMode,
  type ProtocolParseResult,
  type ToolCallProtocol,
} from './protocols/tool-call-protocol';
export {
  createQwenXmlProtocol,
  decodeJsonCall,
} from './protocols/qwen-xml-protocol';
export {
  bfclPromptingSystemPrompt,
  compactPythonInstruction,
  createBfclPythonProtocol,
  decodeBfclPrompting,
} from './protocols/bfcl-python-protocol';
export { createOpenAiToolsProtocol } from './protocols/openai-tools-protocol';
export { toWireToolCall } from './protocols/to-wire-tool-call';
export {
  createEnvTuningProtocol,
  envTuningResultInstruction,
} from './protocols/envtuning-protocol';
export {
  renderCompactTool,
  toJsonSchemaParameter,
  toOpenAiTool,
} from './prompt/render-tools';
export {
  applyErrorFeedback,
  applyToolPatches,
  assertEvalOverlay,
  emptyOverlayHash,
  hashOverlay,
  overlayApplies,
  parseErrorHints,
  toolErrorText,
} from './overlay/apply-overlay';

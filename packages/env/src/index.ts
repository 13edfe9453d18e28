export {
  createEpisode,
  type CreateEpisodeOptions,
  type Episode,
  type EpisodeLimits,
} from './episode/create-episode';
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

export { createOrtPolicy, type CreateOrtPolicySettings } from './policy/create-ort-policy';
export { PolicyCore, assertVocabularyFits, type PolicyCoreInit, type PolicyModelSource } from './policy/policy-core';
export {
  OrtEngine,
  type EngineGenerateOptions,
  type EngineGeneration,
  type EngineTrainResult,
  type EngineTrainSequence,
  type EngineTrainSettings,
  type OrtEngineSettings,
} from './engine/ort-engine';
export {
  autoDeviceOrder,
  chooseDevice,
  cudaLibrariesInstalled,
  deviceRequests,
  deviceUnavailableError,
  explainDeviceFailure,
  parseDeviceRequest,
  probeDevice,
  selectDevice,
  vulkanLoaderFound,
  type DeviceMissing,
  type DeviceProbe,
  type DeviceRequest,
  type ExecutionProvider,
} from './engine/device';
export {
  assertOnDevice,
  countByProvider,
  formatPlacementTable,
  offDeviceElementLimit,
  offDeviceNodes,
  providerNames,
  readPlacementProfile,
  type GraphPlacement,
  type NodePlacement,
} from './engine/placement';
export { sampleToken, type SampledToken, type SamplingSettings } from './engine/sampler';
export {
  countParameters,
  createModelConfig,
  fromHuggingFaceConfig,
  huggingFaceModelConfigSchema,
  parseModelConfig,
  toHuggingFaceConfig,
  validateModelConfig,
  type CreateModelConfigOptions,
  type HuggingFaceModelConfig,
  type ModelConfig,
} from './model/model-config';
export {
  FlatTensors,
  initializeWeights,
  listWeightSpecs,
  weightsFromTensors,
  type WeightSpec,
} from './model/model-weights';
export {
  buildDecodeGraph,
  buildGradGraph,
  buildLogitsGraph,
  buildOptimizerGraph,
  buildPrefillGraph,
  buildScoreGraph,
  type BuiltGraph,
  type FloatType,
  type SequenceBucket,
  type TrainObjective,
} from './model/graph-families';
export { GraphBuilder, type DataType, type Value } from './graph/graph-builder';
export { checkGradients, checkGraphGradients, type GradientCheckResult } from './graph/gradient-check';
export { decodeSafetensors, encodeSafetensors, type NamedTensor, type SafetensorsContents } from './io/safetensors';
export { readModelConfig, readModelDirectory, writeModelDirectory, modelFiles } from './io/model-directory';
export { SeededRandom } from './io/seeded-random';
export {
  HuggingFaceTokenizer,
  loadTokenizer,
  readTokenizerFiles,
  tokenizerConfigSchema,
  type TokenizerConfig,
  type TokenizerFiles,
} from './tokenizer/hf-tokenizer';
export {
  buildBpeTokenizer,
  copyFriendlyPretokenizerPattern,
  numberGroupPretokenizerPattern,
  numberTokens,
  pretokenizerPattern,
  type BuildBpeTokenizerOptions,
} from './tokenizer/build-bpe-tokenizer';
export { chatmlTemplate, chatmlSpecialTokens } from './tokenizer/chatml-template';

export {
  createOrtPolicy,
  type CreateOrtPolicySettings,
} from './policy/create-ort-policy';
export type { PolicyModelSource } from './policy/policy-core';
export {
  deviceOutputsSupported,
  deviceRequests,
  onnxruntimeNodeVersion,
  parseDeviceRequest,
  probeDevice,
  resolveResidency,
  selectDevice,
  type DeviceMissing,
  type DeviceProbe,
  type DeviceRequest,
  type ExecutionProvider,
  type Residency,
} from './engine/device';
export { parsePrecision, precisions, type Precision } from './engine/precision';
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
export {
  chatmlTemplate,
  chatmlSpecialTokens,
} from './tokenizer/chatml-template';
export { learnedLogitScale } from './io/logit-scale';

// The engine's parts below serve SEAL's own benchmarks, device scripts and
// examples, which run from source. They are not the package's API: each is
// marked `@internal`, so `stripInternal` leaves them out of the published
// type declarations and typedoc's `excludeInternal` out of the API docs. Use
// `createOrtPolicy` (the `PolicyV1` contract) instead.

/** @internal */
export {
  PolicyCore,
  assertVocabularyFits,
  type PolicyCoreInit,
} from './policy/policy-core';
/** @internal */
export {
  OrtEngine,
  type EngineGenerateOptions,
  type EngineGeneration,
  type EngineTrainResult,
  type EngineTrainSequence,
  type EngineTrainSettings,
  type OrtEngineSettings,
} from './engine/ort-engine';
/** @internal */
export {
  autoDeviceOrder,
  chooseDevice,
  cudaLibrariesInstalled,
  deviceUnavailableError,
  explainDeviceFailure,
  vulkanLoaderFound,
} from './engine/device';
/** @internal */
export {
  checkPrecision,
  defaultLossScaling,
  explainPrecisionFailure,
  matmulPrecisionFor,
  nextLossScale,
  resolveLossScaling,
  type LossScaleState,
  type LossScalingSettings,
} from './engine/precision';
/** @internal */
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
/** @internal */
export {
  createOrtSession,
  floatTensor,
  webgpuValidationModes,
  type WebGpuValidation,
} from './engine/ort-session';
/** @internal */
export {
  sampleToken,
  type SampledToken,
  type SamplingSettings,
} from './engine/sampler';
/** @internal */
export {
  FlatTensors,
  initializeWeights,
  listWeightSpecs,
  weightsFromTensors,
  type WeightSpec,
} from './model/model-weights';
/** @internal */
export {
  buildDecodeGraph,
  buildGradGraph,
  buildLogitsGraph,
  buildOptimizerGraph,
  buildPrefillGraph,
  buildScoreGraph,
  buildSharedPrefixGradGraph,
  buildSharedPrefixScoreGraph,
  type BuiltGraph,
  type FloatType,
  type SequenceBucket,
  type SharedPrefixBucket,
  decodeAttentions,
  type DecodeAttention,
  type TrainObjective,
} from './model/graph-families';
export { gqaInPlaceUnavailable } from './engine/generate-chunk';
/** @internal */
export {
  GraphBuilder,
  type DataType,
  type MatmulPrecision,
  type Value,
} from './graph/graph-builder';
/** @internal */
export {
  checkGradients,
  checkGraphGradients,
  type GradientCheckResult,
} from './graph/gradient-check';
/** @internal */
export {
  decodeSafetensors,
  encodeSafetensors,
  type NamedTensor,
  type SafetensorsContents,
} from './io/safetensors';
/** @internal */
export {
  readModelConfig,
  readModelDirectory,
  writeModelDirectory,
  modelFiles,
} from './io/model-directory';
/** @internal */
export { SeededRandom } from './io/seeded-random';

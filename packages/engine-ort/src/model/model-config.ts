import { SealError, parseJsonWithSchema } from '@seal/spec';
import * as z from 'zod';

/**
 * The fields of a Hugging Face `config.json` for Qwen2 and Llama models that
 * this engine knows. The schema is strict: an unknown field is an error, so
 * a config that asks for something we would silently ignore (a new rope
 * variant, a different activation) never loads by accident.
 */
export const huggingFaceModelConfigSchema = z.strictObject({
  architectures: z.array(z.string()).nullish(),
  model_type: z.enum(['qwen2', 'llama']),
  vocab_size: z.number().int().positive(),
  hidden_size: z.number().int().positive(),
  intermediate_size: z.number().int().positive(),
  num_hidden_layers: z.number().int().positive(),
  num_attention_heads: z.number().int().positive(),
  num_key_value_heads: z.number().int().positive().nullish(),
  head_dim: z.number().int().positive().nullish(),
  hidden_act: z.literal('silu').nullish(),
  max_position_embeddings: z.number().int().positive().nullish(),
  initializer_range: z.number().positive().nullish(),
  rms_norm_eps: z.number().positive().nullish(),
  rope_theta: z.number().positive().nullish(),
  rope_scaling: z.null().nullish(),
  tie_word_embeddings: z.boolean().nullish(),
  attention_bias: z.boolean().nullish(),
  attention_dropout: z.number().nullish(),
  mlp_bias: z.literal(false).nullish(),
  pretraining_tp: z.literal(1).nullish(),
  use_sliding_window: z.literal(false).nullish(),
  sliding_window: z.number().int().nullish(),
  max_window_layers: z.number().int().nullish(),
  layer_types: z.array(z.literal('full_attention')).nullish(),
  use_cache: z.boolean().nullish(),
  bos_token_id: z.number().int().nullish(),
  eos_token_id: z
    .union([z.number().int(), z.array(z.number().int())])
    .nullish(),
  pad_token_id: z.number().int().nullish(),
  torch_dtype: z.string().nullish(),
  dtype: z.string().nullish(),
  transformers_version: z.string().nullish(),
  _name_or_path: z.string().nullish(),
});

/** A Hugging Face `config.json` as this engine reads it. */
export type HuggingFaceModelConfig = z.output<
  typeof huggingFaceModelConfigSchema
>;

/**
 * The normalised description of a Qwen2/Llama-family decoder: RMSNorm,
 * rotate-half RoPE, SwiGLU MLP, grouped-query attention, optional q/k/v
 * biases (always on for Qwen2) and tied or untied embeddings.
 */
export type ModelConfig = {
  /** `qwen2` (q/k/v biases) or `llama` (biases only with `attention_bias`). */
  architecture: 'qwen2' | 'llama';
  /** Rows of the embedding and of the LM head. */
  vocabSize: number;
  /** Width of the residual stream. */
  hiddenSize: number;
  /** Width of the SwiGLU MLP. */
  intermediateSize: number;
  /** Number of decoder layers. */
  numLayers: number;
  /** Number of query heads. */
  numHeads: number;
  /** Number of key/value heads (divides `numHeads`). */
  numKeyValueHeads: number;
  /** Width of one head (even). */
  headDim: number;
  /** RoPE base. */
  ropeTheta: number;
  /** RMSNorm epsilon. */
  rmsNormEps: number;
  /** Whether the LM head reuses the embedding matrix. */
  tieWordEmbeddings: boolean;
  /** Whether q/k/v projections have biases. */
  attentionBias: boolean;
  /** Longest sequence the model is meant for. */
  maxPositionEmbeddings: number;
  /** Standard deviation of the random initialisation. */
  initializerRange: number;
  /** The begin-of-sequence id, if any. */
  bosTokenId: number | undefined;
  /** The end-of-sequence id(s), if any. */
  eosTokenId: number | number[] | undefined;
};

/** Options for {@link createModelConfig}: the required sizes plus optional overrides. */
export type CreateModelConfigOptions = Pick<
  ModelConfig,
  'vocabSize' | 'hiddenSize' | 'intermediateSize' | 'numLayers' | 'numHeads'
> &
  Partial<ModelConfig>;

/** Builds a {@link ModelConfig} with Qwen2 defaults for every omitted field. */
export function createModelConfig(
  options: CreateModelConfigOptions,
): ModelConfig {
  const config: ModelConfig = {
    architecture: 'qwen2',
    numKeyValueHeads: options.numHeads,
    headDim: options.hiddenSize / options.numHeads,
    ropeTheta: 10000,
    rmsNormEps: 1e-6,
    tieWordEmbeddings: true,
    attentionBias: (options.architecture ?? 'qwen2') === 'qwen2',
    maxPositionEmbeddings: 2048,
    initializerRange: 0.02,
    bosTokenId: undefined,
    eosTokenId: undefined,
    ...options,
  };
  validateModelConfig(config);
  return config;
}

/** Checks the invariants of a {@link ModelConfig}; throws `INVALID_ARGUMENT`. */
export function validateModelConfig(config: ModelConfig): void {
  const fail = (message: string): never => {
    throw new SealError({
      code: 'INVALID_ARGUMENT',
      message: `model config: ${message}`,
    });
  };
  for (const key of [
    'vocabSize',
    'hiddenSize',
    'intermediateSize',
    'numLayers',
    'numHeads',
    'numKeyValueHeads',
    'headDim',
  ] as const) {
    if (!Number.isInteger(config[key]) || config[key] <= 0)
      fail(`${key} must be a positive integer`);
  }
  if (config.numHeads % config.numKeyValueHeads !== 0) {
    fail('numHeads must be a multiple of numKeyValueHeads');
  }
  if (config.headDim % 2 !== 0) fail('headDim must be even (rotate-half RoPE)');
  if (config.architecture === 'qwen2' && !config.attentionBias) {
    fail('qwen2 always has q/k/v biases');
  }
}

/** Normalises a parsed Hugging Face config. */
export function fromHuggingFaceConfig(hf: HuggingFaceModelConfig): ModelConfig {
  const config: ModelConfig = {
    architecture: hf.model_type,
    vocabSize: hf.vocab_size,
    hiddenSize: hf.hidden_size,
    intermediateSize: hf.intermediate_size,
    numLayers: hf.num_hidden_layers,
    numHeads: hf.num_attention_heads,
    numKeyValueHeads: hf.num_key_value_heads ?? hf.num_attention_heads,
    headDim: hf.head_dim ?? hf.hidden_size / hf.num_attention_heads,
    ropeTheta: hf.rope_theta ?? 10000,
    rmsNormEps: hf.rms_norm_eps ?? 1e-6,
    tieWordEmbeddings: hf.tie_word_embeddings ?? hf.model_type === 'qwen2',
    attentionBias:
      hf.model_type === 'qwen2' ? true : (hf.attention_bias ?? false),
    maxPositionEmbeddings: hf.max_position_embeddings ?? 2048,
    initializerRange: hf.initializer_range ?? 0.02,
    bosTokenId: hf.bos_token_id ?? undefined,
    eosTokenId: hf.eos_token_id ?? undefined,
  };
  validateModelConfig(config);
  return config;
}

/** Parses `config.json` text; `INVALID_DATA` on unknown fields or unsupported values. */
export function parseModelConfig({
  text,
  source,
}: {
  text: string;
  source: string;
}): ModelConfig {
  const hf = parseJsonWithSchema({
    text,
    schema: huggingFaceModelConfigSchema,
    source,
  });
  try {
    return fromHuggingFaceConfig(hf);
  } catch (cause) {
    throw SealError.wrap({
      cause,
      code: 'INVALID_DATA',
      message: `${source}: invalid model config`,
    });
  }
}

/** The Hugging Face `config.json` object for a {@link ModelConfig}. */
export function toHuggingFaceConfig(
  config: ModelConfig,
): HuggingFaceModelConfig {
  const common = {
    vocab_size: config.vocabSize,
    hidden_size: config.hiddenSize,
    intermediate_size: config.intermediateSize,
    num_hidden_layers: config.numLayers,
    num_attention_heads: config.numHeads,
    num_key_value_heads: config.numKeyValueHeads,
    head_dim: config.headDim,
    hidden_act: 'silu' as const,
    max_position_embeddings: config.maxPositionEmbeddings,
    initializer_range: config.initializerRange,
    rms_norm_eps: config.rmsNormEps,
    rope_theta: config.ropeTheta,
    tie_word_embeddings: config.tieWordEmbeddings,
    torch_dtype: 'float32',
    ...(config.bosTokenId === undefined
      ? {}
      : { bos_token_id: config.bosTokenId }),
    ...(config.eosTokenId === undefined
      ? {}
      : { eos_token_id: config.eosTokenId }),
  };
  return config.architecture === 'qwen2'
    ? {
        architectures: ['Qwen2ForCausalLM'],
        model_type: 'qwen2',
        ...common,
        use_sliding_window: false,
      }
    : {
        architectures: ['LlamaForCausalLM'],
        model_type: 'llama',
        ...common,
        attention_bias: config.attentionBias,
        mlp_bias: false,
      };
}

/** Number of parameters of a model (tied embeddings counted once). */
export function countParameters(config: ModelConfig): number {
  const h = config.hiddenSize;
  const q = config.numHeads * config.headDim;
  const kv = config.numKeyValueHeads * config.headDim;
  const bias = config.attentionBias ? q + 2 * kv : 0;
  const layer =
    2 * h + h * q + 2 * h * kv + bias + q * h + 3 * h * config.intermediateSize;
  const embeddings = config.vocabSize * h * (config.tieWordEmbeddings ? 1 : 2);
  return embeddings + config.numLayers * layer + h;
}

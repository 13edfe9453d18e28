import * as z from 'zod';

/*
 * The JSON wire types of the Tinker REST API, as its implementations define
 * them (field names, defaults and optionality). Sources, each read at the
 * commit named in packages/tinker/PROTOCOL.md:
 * - the `tinker` Python SDK, `src/tinker/types/*.py` (request and response
 *   models) and `src/tinker/resources/*.py` (paths, bodies);
 * - SkyRL's Tinker API server, `skyrl/tinker/api.py` (pydantic request
 *   models, FastAPI routes) and `skyrl/tinker/types.py`.
 * Schemas of what we receive list what we read and accept the other
 * implementation's variants (`.nullish()`); request types we send are the
 * `z.input` of the same schemas.
 */

const tokenIds = z.array(z.number().int().nonnegative());

/** `TensorDtype`: the two dtypes the protocol carries. */
export const tinkerTensorDtypeSchema = z.enum(['int64', 'float32']);

/**
 * `TensorData`: a flat array with its dtype and shape. The SDK sends `dtype`
 * and `shape` (`[n]` for a vector); SkyRL's server reads only `data`. Sparse
 * CSR tensors (`sparse_crow_indices`, `sparse_col_indices`) are read so that
 * they can be refused by name.
 */
export const tinkerTensorDataSchema = z.object({
  /** The values, flattened (row-major). */
  data: z.array(z.number()),
  /** `int64` or `float32`. */
  dtype: tinkerTensorDtypeSchema.nullish(),
  /** The dense shape; `[n]` for a vector. */
  shape: z.array(z.number().int().nonnegative()).nullish(),
  /** CSR row pointers of a sparse tensor (not supported here). */
  sparse_crow_indices: z.array(z.number()).nullish(),
  /** CSR column indices of a sparse tensor (not supported here). */
  sparse_col_indices: z.array(z.number()).nullish(),
});

/** `TensorData` on the wire. */
export type TinkerTensorData = z.input<typeof tinkerTensorDataSchema>;

/**
 * One chunk of a `ModelInput`. Only `encoded_text` (token ids) is used here;
 * the image chunk types of the protocol are read so they can be refused.
 */
export const tinkerModelInputChunkSchema = z.object({
  /** `encoded_text` (the default), `image`, `image_asset_pointer`, ... */
  type: z.string().default('encoded_text'),
  /** Token ids of an `encoded_text` chunk. */
  tokens: tokenIds.nullish(),
});

/** `ModelInput`: a list of chunks, concatenated. */
export const tinkerModelInputSchema = z.object({
  /** The chunks, in order. */
  chunks: z.array(tinkerModelInputChunkSchema),
});

/** `ModelInput` on the wire. */
export type TinkerModelInput = z.input<typeof tinkerModelInputSchema>;

/**
 * `Datum`: the model input (tokens `0..n-1`) and the loss inputs, each a
 * `TensorData` aligned with the input: `target_tokens[i]` is the token
 * predicted at position `i` (normally input token `i + 1`), and `weights`,
 * `logprobs` (the sampler's) and `advantages` are per target.
 */
export const tinkerDatumSchema = z.object({
  /** The input tokens. */
  model_input: tinkerModelInputSchema,
  /** `target_tokens`, `weights`, `logprobs`, `advantages`, ... by name. */
  loss_fn_inputs: z.record(z.string(), tinkerTensorDataSchema),
});

/** `Datum` on the wire. */
export type TinkerDatum = z.input<typeof tinkerDatumSchema>;

/**
 * `LossFnType` of the SDK (`cross_entropy`, `importance_sampling`, `ppo`,
 * `cispo`, `dro`); SkyRL adds `gspo`, `ppo_critic` and `dppo`. Read as a
 * string so the server can name what it supports.
 */
export const tinkerLossFunctionSchema = z.string().min(1);

/** The loss functions this package sends and serves. */
export type TinkerLossFunction =
  'cross_entropy' | 'importance_sampling' | 'ppo';

/** `ForwardBackwardInput`: the batch, the loss and its config. */
export const tinkerForwardBackwardInputSchema = z.object({
  /** The batch. */
  data: z.array(tinkerDatumSchema),
  /** The loss function's name. */
  loss_fn: tinkerLossFunctionSchema,
  /** e.g. `{ clip_low_threshold: 0.8, clip_high_threshold: 1.2 }` for `ppo`. */
  loss_fn_config: z.record(z.string(), z.number()).nullish(),
});

/** `ForwardBackwardInput` on the wire. */
export type TinkerForwardBackwardInput = z.input<
  typeof tinkerForwardBackwardInputSchema
>;

/** `ForwardBackwardRequest` (`POST /api/v1/forward_backward`, JSON form). */
export const tinkerForwardBackwardRequestSchema = z.object({
  model_id: z.string().min(1),
  forward_backward_input: tinkerForwardBackwardInputSchema,
  seq_id: z.number().int().nullish(),
});

/** `ForwardRequest` (`POST /api/v1/forward`): the same input, no gradient. */
export const tinkerForwardRequestSchema = z.object({
  model_id: z.string().min(1),
  forward_input: tinkerForwardBackwardInputSchema,
  seq_id: z.number().int().nullish(),
});

/**
 * `ForwardBackwardOutput`: per datum a map of tensors (`logprobs` of the
 * targets, `elementwise_loss`), and metrics such as `loss:sum`.
 */
export const tinkerForwardBackwardOutputSchema = z.object({
  loss_fn_output_type: z.string().nullish(),
  loss_fn_outputs: z.array(z.record(z.string(), tinkerTensorDataSchema)),
  metrics: z.record(z.string(), z.number()).nullish(),
});

/** `ForwardBackwardOutput` on the wire. */
export type TinkerForwardBackwardOutput = z.input<
  typeof tinkerForwardBackwardOutputSchema
>;

/**
 * `AdamParams`, with the SDK's defaults. `grad_clip_norm` 0 means no
 * clipping (SDK; SkyRL's server does not read it).
 */
export const tinkerAdamParamsSchema = z.object({
  learning_rate: z.number().nonnegative().default(1e-4),
  beta1: z.number().min(0).lt(1).default(0.9),
  beta2: z.number().min(0).lt(1).default(0.95),
  eps: z.number().positive().default(1e-12),
  weight_decay: z.number().nonnegative().default(0),
  grad_clip_norm: z.number().nonnegative().default(0),
});

/** `AdamParams` on the wire. */
export type TinkerAdamParams = z.input<typeof tinkerAdamParamsSchema>;

/** `OptimStepRequest` (`POST /api/v1/optim_step`). */
export const tinkerOptimStepRequestSchema = z.object({
  model_id: z.string().min(1),
  adam_params: tinkerAdamParamsSchema,
  seq_id: z.number().int().nullish(),
  type: z.literal('optim_step').nullish(),
  /**
   * SEAL's exact extension (`seal serve-trainer`): PolicyV1 settings the
   * protocol lacks. Sent only to a service that lists the extension.
   */
  seal_train_options: z
    .object({
      embeddingLearningRateScale: z.number().min(0).max(1).nullish(),
      outputNormLearningRateScale: z.number().min(0).max(10000).nullish(),
      vectorLearningRateScale: z.number().min(0).max(10000).nullish(),
      outputNormUniform: z.boolean().nullish(),
    })
    .nullish(),
});

/** `OptimStepRequest` on the wire. */
export type TinkerOptimStepRequest = z.input<
  typeof tinkerOptimStepRequestSchema
>;

/** `OptimStepResponse`: optional metrics. */
export const tinkerOptimStepResponseSchema = z.object({
  metrics: z.record(z.string(), z.number()).nullish(),
});

/** `LoraConfig` (SDK: rank, seed, train_unembed, train_mlp, train_attn). */
export const tinkerLoraConfigSchema = z.object({
  rank: z.number().int().positive(),
  seed: z.number().int().nullish(),
  train_unembed: z.boolean().nullish(),
  train_mlp: z.boolean().nullish(),
  train_attn: z.boolean().nullish(),
});

/** `LoraConfig` on the wire. */
export type TinkerLoraConfig = z.input<typeof tinkerLoraConfigSchema>;

/** `CreateSessionRequest` (`POST /api/v1/create_session`). */
export const tinkerCreateSessionRequestSchema = z.object({
  tags: z.array(z.string()).nullish(),
  user_metadata: z.record(z.string(), z.unknown()).nullish(),
  sdk_version: z.string().nullish(),
  project_id: z.string().nullish(),
  type: z.literal('create_session').nullish(),
});

/** `CreateSessionResponse`. */
export const tinkerCreateSessionResponseSchema = z.object({
  session_id: z.string().min(1),
  info_message: z.string().nullish(),
  warning_message: z.string().nullish(),
  error_message: z.string().nullish(),
});

/** `SessionHeartbeatRequest` (`POST /api/v1/session_heartbeat`). */
export const tinkerSessionHeartbeatRequestSchema = z.object({
  session_id: z.string().min(1),
  type: z.literal('session_heartbeat').nullish(),
});

/** `CreateModelRequest` (`POST /api/v1/create_model`). */
export const tinkerCreateModelRequestSchema = z.object({
  session_id: z.string().min(1),
  model_seq_id: z.number().int().nullish(),
  base_model: z.string().min(1),
  user_metadata: z.record(z.string(), z.unknown()).nullish(),
  lora_config: tinkerLoraConfigSchema.nullish(),
  type: z.literal('create_model').nullish(),
});

/** `CreateModelRequest` on the wire. */
export type TinkerCreateModelRequest = z.input<
  typeof tinkerCreateModelRequestSchema
>;

/**
 * The answer to a request that starts work: the SDK reads an
 * `UntypedAPIFuture` (`request_id`, optional `model_id`); SkyRL answers
 * `FutureResponse` (`future_id`, `request_id`, `status`) and, for
 * `create_model`, `CreateModelResponse` (`model_id`, `request_id`, ...).
 */
export const tinkerUntypedFutureSchema = z.object({
  request_id: z.union([z.string().min(1), z.number().int()]).transform(String),
  model_id: z.string().nullish(),
});

/** `FutureRetrieveRequest` (`POST /api/v1/retrieve_future`). */
export const tinkerFutureRetrieveRequestSchema = z.object({
  request_id: z.union([z.string().min(1), z.number().int()]).transform(String),
  allow_metadata_only: z.boolean().nullish(),
});

/** `TryAgainResponse`: the result is not ready; ask again. */
export const tinkerTryAgainResponseSchema = z.object({
  type: z.literal('try_again'),
  request_id: z.string().nullish(),
  queue_state: z.string().nullish(),
  queue_state_reason: z.string().nullish(),
});

/** `RequestFailedResponse`: the request ran and failed. */
export const tinkerRequestFailedResponseSchema = z.object({
  error: z.string(),
  /** `unknown`, `server` or `user` (`RequestErrorCategory`). */
  category: z.string().nullish(),
});

/** `CreateModelResponse`, the result of the create_model future. */
export const tinkerCreateModelResultSchema = z.object({
  model_id: z.string().min(1),
});

/** `SaveWeightsForSamplerRequest` (`POST /api/v1/save_weights_for_sampler`). */
export const tinkerSaveWeightsForSamplerRequestSchema = z.object({
  model_id: z.string().min(1),
  path: z.string().min(1).nullish(),
  sampling_session_seq_id: z.number().int().nullish(),
  seq_id: z.number().int().nullish(),
  /** Ephemeral weights: the service may delete them after this long. */
  ttl_seconds: z.number().int().positive().nullish(),
  type: z.literal('save_weights_for_sampler').nullish(),
});

/** `SaveWeightsForSamplerResponse` (`path`, or a sampling session). */
export const tinkerSaveWeightsForSamplerResponseSchema = z.object({
  path: z.string().nullish(),
  sampling_session_id: z.string().nullish(),
});

/** `SaveWeightsRequest` (`POST /api/v1/save_weights`): a training checkpoint. */
export const tinkerSaveWeightsRequestSchema = z.object({
  model_id: z.string().min(1),
  path: z.string().min(1).nullish(),
  seq_id: z.number().int().nullish(),
  ttl_seconds: z.number().int().positive().nullish(),
  overwrite: z.boolean().nullish(),
  type: z.literal('save_weights').nullish(),
});

/** `SaveWeightsResponse`: the checkpoint's `tinker://` path. */
export const tinkerSaveWeightsResponseSchema = z.object({
  path: z.string().min(1),
});

/** `LoadWeightsRequest` (`POST /api/v1/load_weights`). */
export const tinkerLoadWeightsRequestSchema = z.object({
  model_id: z.string().min(1),
  path: z.string().min(1),
  optimizer: z.boolean().default(true),
  seq_id: z.number().int().nullish(),
  type: z.literal('load_weights').nullish(),
});

/** `UnloadModelRequest` (`POST /api/v1/unload_model`). */
export const tinkerUnloadModelRequestSchema = z.object({
  model_id: z.string().min(1),
  type: z.string().nullish(),
});

/**
 * `SamplingParams`, with the SDK's defaults: `stop` is token ids or strings
 * (SkyRL refuses a mix), `top_k` -1 is off.
 */
export const tinkerSamplingParamsSchema = z.object({
  max_tokens: z.number().int().positive().nullish(),
  seed: z.number().int().nullish(),
  stop: z
    .union([z.string(), z.array(z.string()), z.array(z.number().int())])
    .nullish(),
  temperature: z.number().nonnegative().default(1),
  top_k: z.number().int().default(-1),
  top_p: z.number().gt(0).lte(1).default(1),
});

/** `SamplingParams` on the wire. */
export type TinkerSamplingParams = z.input<typeof tinkerSamplingParamsSchema>;

/**
 * `SampleRequest` (`POST /api/v1/asample`): sample from a sampling session,
 * from saved sampler weights (`model_path`), or from the base model.
 */
export const tinkerSampleRequestSchema = z.object({
  num_samples: z.number().int().positive().default(1),
  prompt: tinkerModelInputSchema,
  sampling_params: tinkerSamplingParamsSchema,
  base_model: z.string().nullish(),
  model_path: z.string().nullish(),
  sampling_session_id: z.string().nullish(),
  seq_id: z.number().int().nullish(),
  prompt_logprobs: z.boolean().nullish(),
  topk_prompt_logprobs: z.number().int().nonnegative().nullish(),
  type: z.literal('sample').nullish(),
});

/** `SampleRequest` on the wire. */
export type TinkerSampleRequest = z.input<typeof tinkerSampleRequestSchema>;

/** `SampledSequence`: tokens, their log-probabilities, why it ended. */
export const tinkerSampledSequenceSchema = z.object({
  stop_reason: z.enum(['length', 'stop']),
  tokens: tokenIds,
  logprobs: z.array(z.number()).nullish(),
});

/** `SampleResponse`: one sequence per sample. */
export const tinkerSampleResponseSchema = z.object({
  sequences: z.array(tinkerSampledSequenceSchema),
  prompt_logprobs: z.array(z.number().nullable()).nullish(),
});

/** `SampleResponse` on the wire. */
export type TinkerSampleResponse = z.input<typeof tinkerSampleResponseSchema>;

/** `CreateSamplingSessionRequest` (`POST /api/v1/create_sampling_session`). */
export const tinkerCreateSamplingSessionRequestSchema = z.object({
  session_id: z.string().min(1),
  sampling_session_seq_id: z.number().int().nullish(),
  base_model: z.string().nullish(),
  model_path: z.string().nullish(),
  type: z.literal('create_sampling_session').nullish(),
});

/** `GetServerCapabilitiesResponse` (`GET /api/v1/get_server_capabilities`). */
export const tinkerServerCapabilitiesSchema = z.object({
  supported_models: z.array(
    z.object({
      model_name: z.string().nullish(),
      max_context_length: z.number().int().nullish(),
    }),
  ),
});

/** The body of an error answer: FastAPI's `{ detail }` (SkyRL, this server). */
export const tinkerErrorBodySchema = z.object({
  detail: z.unknown().optional(),
});

/** `GET /api/v1/seal_extensions` (SEAL's own): the extensions a SEAL service speaks. */
export const sealExtensionsResponseSchema = z.object({
  extensions: z.array(z.string()),
});

/**
 * `POST /api/v1/seal_sample_batch` (SEAL's exact extension): a batch of
 * prompts sampled in one PolicyV1 `generate` from saved sampler weights, one
 * seed for the batch (each prompt's stream derived from it as in process).
 */
export const sealSampleBatchRequestSchema = z.object({
  model_path: z.string().min(1),
  prompts: z.array(tokenIds.min(1)).min(1),
  max_tokens: z.number().int().positive(),
  temperature: z.number().nonnegative(),
  top_p: z.number().gt(0).lte(1),
  top_k: z.number().int().nonnegative(),
  seed: z.number().int(),
  stop_token_ids: tokenIds,
  stop_strings: z.array(z.string()),
  type: z.literal('seal_sample_batch').nullish(),
});

/** `seal_sample_batch` on the wire. */
export type SealSampleBatchRequest = z.input<
  typeof sealSampleBatchRequestSchema
>;

/** The result of `seal_sample_batch`: one generation per prompt. */
export const sealSampleBatchResponseSchema = z.object({
  generations: z.array(
    z.object({
      stop_reason: z.enum(['length', 'stop']),
      tokens: tokenIds,
      logprobs: z.array(z.number()),
      model_logprobs: z.array(z.number()),
    }),
  ),
});

/**
 * The name of SEAL's own protocol extension, listed by
 * `GET /api/v1/seal_extensions`: with it a SEAL client reproduces the
 * in-process engine exactly. `forward_backward` with `ppo` and
 * `loss_fn_config.seal_exact = 1` carries PolicyV1's train batch as is
 * (`weights` are the token weights, `advantages` unweighted, `ref_logprobs`
 * with `kl_coef` for PolicyV1's k3 KL term, `dual_clip_c` when set);
 * `optim_step` takes `seal_train_options` (the learning-rate scales and
 * `outputNormUniform`) and reports the engine's metrics; and
 * `POST /api/v1/seal_sample_batch` samples a batch of prompts in one
 * PolicyV1 `generate` (one seed for the batch, as in process).
 */
export const sealExactExtension = 'seal-exact-v1';

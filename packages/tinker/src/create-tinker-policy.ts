import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import {
  SealError,
  parseJsonText,
  parseWithSchema,
  policyV1GenerateOptionsSchema,
  policyV1ScoreOptionsSchema,
  policyV1TrainOptionsSchema,
  type PolicyV1,
  type PolicyV1GenerateResult,
  type PolicyV1Generation,
  type PolicyV1Tokenizer,
  type PolicyV1TrainResult,
} from '@seal/spec';
import * as z from 'zod';
import type { TinkerClient } from './tinker-client';
import { tinkerModelInput, toTinkerDatum } from './tinker-datum';
import {
  sealExactExtension,
  type TinkerDatum,
  type TinkerLoraConfig,
} from './tinker-wire';

/** Settings of {@link createTinkerPolicy}. */
export type CreateTinkerPolicySettings = {
  /** The client of the service (see `createTinkerClient`). */
  client: TinkerClient;
  /** The base model the service trains, by its name there (e.g. `Qwen/Qwen3-8B`). */
  baseModel: string;
  /**
   * The base model's tokenizer (the service takes and returns token ids
   * only). It must be the tokenizer the service's model uses.
   */
  tokenizer: PolicyV1Tokenizer;
  /**
   * Longest sequence the policy accepts. Default: the service's
   * `max_context_length` for `baseModel`; an error when it names none.
   */
  maxSequenceLength?: number;
  /** Train a LoRA adapter of this rank (and options); default: none sent. */
  lora?: {
    rank: number;
    seed?: number;
    trainUnembed?: boolean;
    trainMlp?: boolean;
    trainAttn?: boolean;
  };
  /**
   * The loss of a `ppo` objective: `ppo` (the clipped surrogate, clip
   * thresholds `1 - clipLow` and `1 + clipHigh`) or `importance_sampling`
   * (no clip). Default `ppo`.
   */
  rlLoss?: 'ppo' | 'importance_sampling';
  /**
   * What to do with train settings the protocol cannot carry
   * (`dualClipC`, `embeddingLearningRateScale`, `outputNormLearningRateScale`,
   * `outputNormUniform`): `throw` (default, `INVALID_ARGUMENT` naming them)
   * or `ignore`. A `temperature` other than 1 always throws: the protocol's
   * losses are at temperature 1.
   */
  unsupportedSettings?: 'throw' | 'ignore';
  /**
   * SEAL's exact extension (`seal serve-trainer` lists it at
   * `GET /api/v1/seal_extensions`): batched sampling with one seed per batch
   * and PolicyV1's train batch carried as is (token weights, KL term, dual
   * clip, learning-rate scales), so a run reproduces the in-process engine.
   * `auto` (default) uses it when the service lists it; `off` speaks the
   * plain protocol only.
   */
  sealExtensions?: 'auto' | 'off';
  /** Session heartbeat period (SDK: 10 s). */
  heartbeatIntervalMs?: number;
  /** `ttl_seconds` of sampler weights, for services that keep them only that long. */
  samplerTtlSeconds?: number;
  /** Tags of the session. */
  tags?: string[];
  /** Metadata of the session and the model. */
  userMetadata?: Record<string, unknown>;
};

/** A PolicyV1 over the Tinker protocol, with the ids it works under. */
export type TinkerPolicy = PolicyV1 & {
  /** The session id. */
  readonly sessionId: string;
  /** The id of the model being trained (a `load` switches to a new one). */
  readonly modelId: string;
  /** Heartbeats that failed since the last one that succeeded. */
  readonly missedHeartbeats: number;
  /** Whether SEAL's exact extension is in use (see `sealExtensions`). */
  readonly exact: boolean;
};

/** The file `save` writes into a checkpoint directory. */
export const tinkerCheckpointSchema = z.strictObject({
  schemaVersion: z.literal(1),
  type: z.literal('tinker-checkpoint'),
  /** The service's `tinker://` path of the weights and optimizer state. */
  path: z.string().min(1),
  /** The service's base URL when saved. */
  baseUrl: z.string(),
  /** The base model. */
  baseModel: z.string(),
  /** Optimizer steps applied when saved. */
  step: z.number().int().nonnegative(),
});

/** The file `save` writes into a checkpoint directory. */
export type TinkerCheckpoint = z.infer<typeof tinkerCheckpointSchema>;

/** The name of the checkpoint file in a directory written by `save`. */
export const tinkerCheckpointFileName = 'tinker-checkpoint.json';

/** JSON has no Infinity: PolicyV1's "huge means off" threshold. */
const off = 1e29;

/**
 * A `PolicyV1` whose weights live in a Tinker-compatible service: hosted
 * Tinker, SkyRL's Tinker API, or `seal serve-trainer`.
 *
 * - `train` is one `forward_backward` and one `optim_step`. `ppo` sends the
 *   sampler log-probabilities (`oldLogprobs`) as `logprobs`, and per token
 *   `advantages × tokenWeights` as `advantages` (the RL losses take no
 *   weights: a weight of 0 is an advantage of 0); `cross-entropy` sends
 *   `tokenWeights` as `weights`. `klCoef` with `refLogprobs` is folded into
 *   the advantages as tinker-cookbook's `incorporate_kl_penalty` does:
 *   `A += klCoef · (mean(d) - d)` with `d = oldLogprobs - refLogprobs` over
 *   the weighted tokens of the batch. Adam settings travel as `AdamParams`
 *   with PolicyV1's defaults made explicit.
 * - `generate` saves sampler weights when the weights changed since the last
 *   save (`save_weights_for_sampler`) and sends one `asample` per prompt
 *   (seed `seed + index`). The protocol returns one log-probability per
 *   token; it fills both `logprobs` and `modelLogprobs`. Stop strings are
 *   applied here (the protocol takes stop ids or strings, not both).
 * - `score` is `forward` with `cross_entropy` (temperature 1 only).
 * - `save` writes `tinker-checkpoint.json` (the service's path of the
 *   weights and optimizer state); `load` creates a fresh model and loads
 *   that path into it (services allow `load_weights` only on a new model).
 */
export async function createTinkerPolicy(
  settings: CreateTinkerPolicySettings,
): Promise<TinkerPolicy> {
  const { client, baseModel, tokenizer } = settings;
  const unsupported = settings.unsupportedSettings ?? 'throw';
  const rlLoss = settings.rlLoss ?? 'ppo';
  let maxSequenceLength = settings.maxSequenceLength;
  if (maxSequenceLength === undefined) {
    const capabilities = await client.capabilities();
    maxSequenceLength =
      capabilities.supported_models.find(
        (model) => model.model_name === baseModel,
      )?.max_context_length ?? undefined;
    if (maxSequenceLength === undefined) {
      throw new SealError({
        code: 'INVALID_ARGUMENT',
        message: `the Tinker service at ${client.baseUrl} names no context length for '${baseModel}' (supported: ${capabilities.supported_models.map((model) => model.model_name).join(', ') || 'none listed'}); pass maxSequenceLength`,
        details: { baseModel },
      });
    }
  }
  const exact =
    (settings.sealExtensions ?? 'auto') === 'auto' &&
    (await client.extensions()).includes(sealExactExtension);
  const sessionId = await client.createSession({
    tags: settings.tags ?? ['seal'],
    userMetadata: settings.userMetadata ?? {},
  });
  let missedHeartbeats = 0;
  const heartbeat = setInterval(() => {
    client.heartbeat(sessionId).then(
      () => {
        missedHeartbeats = 0;
      },
      () => {
        // The SDK only warns on missed heartbeats; the next call that needs
        // the service reports an outage with its own error.
        missedHeartbeats += 1;
      },
    );
  }, settings.heartbeatIntervalMs ?? 10_000);
  heartbeat.unref();

  let modelSequence = 0;
  const loraConfig: TinkerLoraConfig | undefined =
    settings.lora === undefined
      ? undefined
      : {
          rank: settings.lora.rank,
          ...(settings.lora.seed === undefined
            ? {}
            : { seed: settings.lora.seed }),
          ...(settings.lora.trainUnembed === undefined
            ? {}
            : { train_unembed: settings.lora.trainUnembed }),
          ...(settings.lora.trainMlp === undefined
            ? {}
            : { train_mlp: settings.lora.trainMlp }),
          ...(settings.lora.trainAttn === undefined
            ? {}
            : { train_attn: settings.lora.trainAttn }),
        };
  const createModel = () =>
    client.createModel({
      session_id: sessionId,
      model_seq_id: modelSequence++,
      base_model: baseModel,
      ...(settings.userMetadata
        ? { user_metadata: settings.userMetadata }
        : {}),
      ...(loraConfig ? { lora_config: loraConfig } : {}),
    });
  let modelId: string;
  try {
    modelId = await createModel();
  } catch (error) {
    clearInterval(heartbeat);
    throw error;
  }

  let step = 0;
  let weightsVersion = 0;
  let saves = 0;
  let sampler: { version: number; path: string } | undefined;
  let closed = false;
  let queue: Promise<unknown> = Promise.resolve();
  /** Runs calls one at a time, in call order (PolicyV1's ordering rule). */
  function serial<T>(run: () => Promise<T>): Promise<T> {
    const next = queue.then(() => {
      if (closed) {
        throw new SealError({
          code: 'INVALID_STATE',
          message: 'the Tinker policy is closed',
        });
      }
      return run();
    });
    queue = next.catch(() => undefined);
    return next;
  }

  async function samplerPath(): Promise<string> {
    if (sampler?.version === weightsVersion) return sampler.path;
    const path = await client.saveWeightsForSampler({
      modelId,
      name: `seal-sampler-${weightsVersion}-${saves++}`,
      ...(settings.samplerTtlSeconds === undefined
        ? {}
        : { ttlSeconds: settings.samplerTtlSeconds }),
    });
    sampler = { version: weightsVersion, path };
    return path;
  }

  const policy: TinkerPolicy = {
    specificationVersion: 'v1',
    policyId: `tinker:${baseModel}`,
    tokenizer,
    maxSequenceLength,
    trainable: true,
    get sessionId() {
      return sessionId;
    },
    get modelId() {
      return modelId;
    },
    get missedHeartbeats() {
      return missedHeartbeats;
    },
    exact,

    generate(options) {
      return serial(async (): Promise<PolicyV1GenerateResult> => {
        const parsed = parseWithSchema({
          schema: policyV1GenerateOptionsSchema,
          value: options,
          source: 'generate options',
          code: 'INVALID_ARGUMENT',
        });
        const prompts =
          parsed.prompts ??
          (parsed.chats ?? []).map(
            (chat) =>
              tokenizer.renderChat({
                messages: chat.messages,
                ...(chat.tools ? { tools: chat.tools } : {}),
                addGenerationPrompt: true,
              }).tokenIds,
          );
        if ((parsed.prompts === undefined) === (parsed.chats === undefined)) {
          throw new SealError({
            code: 'INVALID_ARGUMENT',
            message: 'generate takes exactly one of prompts and chats',
          });
        }
        const path = await samplerPath();
        const stopTokenIds = parsed.stopTokenIds ?? [...tokenizer.stopTokenIds];
        const seed = parsed.seed ?? 0;
        if (exact) {
          // One generate for the batch: the same per-prompt seeds as in process.
          const batch = await client.sampleBatch({
            model_path: path,
            prompts: prompts.map((prompt) => [...prompt]),
            max_tokens: parsed.maxTokens,
            temperature: parsed.temperature ?? 1,
            top_p: parsed.topP ?? 1,
            top_k: parsed.topK ?? 0,
            seed,
            stop_token_ids: stopTokenIds,
            stop_strings: parsed.stopStrings ?? [],
          });
          if (batch.generations.length !== prompts.length) {
            throw new SealError({
              code: 'INVALID_DATA',
              message: `the Tinker service returned ${batch.generations.length} generations for ${prompts.length} prompts`,
            });
          }
          const generations = batch.generations.map(
            (generation, index): PolicyV1Generation => ({
              tokenIds: generation.tokens,
              text: tokenizer.decode(generation.tokens),
              logprobs: generation.logprobs,
              modelLogprobs: generation.model_logprobs,
              finishReason: generation.stop_reason,
              promptTokenIds: [...prompts[index]!],
            }),
          );
          return {
            generations,
            usage: {
              promptTokens: prompts.reduce(
                (sum, prompt) => sum + prompt.length,
                0,
              ),
              completionTokens: generations.reduce(
                (sum, generation) => sum + generation.tokenIds.length,
                0,
              ),
            },
          };
        }
        const answers = await Promise.all(
          prompts.map((prompt, index) =>
            client.sample({
              prompt: tinkerModelInput(prompt),
              num_samples: 1,
              model_path: path,
              sampling_params: {
                max_tokens: parsed.maxTokens,
                seed: seed + index,
                temperature: parsed.temperature ?? 1,
                top_k: parsed.topK ? parsed.topK : -1,
                top_p: parsed.topP ?? 1,
                // Always sent, empty included: a service's default stop set
                // is not PolicyV1's.
                stop: stopTokenIds,
              },
            }),
          ),
        );
        const generations = answers.map((answer, index): PolicyV1Generation => {
          const sequence = answer.sequences[0];
          if (!sequence) {
            throw new SealError({
              code: 'INVALID_DATA',
              message: `the Tinker service returned no sequence for prompt ${index}`,
              details: { index },
            });
          }
          if (
            !sequence.logprobs ||
            sequence.logprobs.length !== sequence.tokens.length
          ) {
            throw new SealError({
              code: 'INVALID_DATA',
              message: `the Tinker service returned ${sequence.logprobs?.length ?? 'no'} log-probabilities for ${sequence.tokens.length} sampled tokens (prompt ${index}); the policy needs one per token`,
              details: { index },
            });
          }
          const cut = stopStringCut({
            tokenIds: sequence.tokens,
            stopStrings: parsed.stopStrings ?? [],
            tokenizer,
          });
          const tokenIds = sequence.tokens.slice(0, cut);
          const logprobs = sequence.logprobs.slice(0, cut);
          return {
            tokenIds,
            text: tokenizer.decode(tokenIds),
            logprobs,
            modelLogprobs: [...logprobs],
            finishReason:
              cut < sequence.tokens.length ? 'stop' : sequence.stop_reason,
            promptTokenIds: [...prompts[index]!],
          };
        });
        return {
          generations,
          usage: {
            promptTokens: prompts.reduce(
              (sum, prompt) => sum + prompt.length,
              0,
            ),
            completionTokens: generations.reduce(
              (sum, generation) => sum + generation.tokenIds.length,
              0,
            ),
          },
        };
      });
    },

    score(options) {
      return serial(async () => {
        const parsed = parseWithSchema({
          schema: policyV1ScoreOptionsSchema,
          value: options,
          source: 'score options',
          code: 'INVALID_ARGUMENT',
        });
        if ((parsed.temperature ?? 1) !== 1) {
          throw temperatureError(parsed.temperature!);
        }
        const scored = parsed.sequences.filter(
          (sequence) => sequence.length > 1,
        );
        const output =
          scored.length === 0
            ? { loss_fn_outputs: [] }
            : await client.forward({
                modelId,
                // The exact extension keeps float64 log-probabilities.
                ...(exact ? { wire: 'json' as const } : {}),
                input: {
                  loss_fn: 'cross_entropy',
                  data: scored.map((tokenIds) =>
                    toTinkerDatum({
                      tokenIds,
                      inputs: { weights: tokenIds.map(() => 1) },
                    }),
                  ),
                },
              });
        let next = 0;
        return {
          logprobs: parsed.sequences.map((tokenIds) => {
            if (tokenIds.length === 1) return [0];
            const values = targetLogprobs(output.loss_fn_outputs[next], next);
            next += 1;
            expectLength(values, tokenIds.length - 1, next - 1);
            return [0, ...values];
          }),
        };
      });
    },

    train(options) {
      return serial(async (): Promise<PolicyV1TrainResult> => {
        const parsed = parseWithSchema({
          schema: policyV1TrainOptionsSchema,
          value: options,
          source: 'train options',
          code: 'INVALID_ARGUMENT',
        });
        const settingsIn = parsed.options;
        if ((settingsIn.temperature ?? 1) !== 1) {
          throw temperatureError(settingsIn.temperature!);
        }
        const refused = [
          settingsIn.dualClipC !== undefined && settingsIn.dualClipC < off
            ? 'dualClipC'
            : undefined,
          (settingsIn.embeddingLearningRateScale ?? 1) !== 1
            ? 'embeddingLearningRateScale'
            : undefined,
          (settingsIn.outputNormLearningRateScale ?? 1) !== 1
            ? 'outputNormLearningRateScale'
            : undefined,
          settingsIn.outputNormUniform ? 'outputNormUniform' : undefined,
          (settingsIn.vectorLearningRateScale ?? 1) !== 1
            ? 'vectorLearningRateScale'
            : undefined,
        ].filter((name) => name !== undefined);
        if (refused.length > 0 && unsupported === 'throw' && !exact) {
          throw new SealError({
            code: 'INVALID_ARGUMENT',
            message: `the Tinker protocol cannot carry ${refused.join(', ')}; leave them at their defaults, or create the policy with unsupportedSettings: 'ignore'`,
            details: { settings: refused },
          });
        }
        const clipLow = settingsIn.clipLow ?? 0.2;
        const clipHigh = settingsIn.clipHigh ?? 0.2;
        const klCoef = settingsIn.klCoef ?? 0;
        const sequences = parsed.sequences;
        for (const [index, sequence] of sequences.entries()) {
          const length = sequence.tokenIds.length;
          const arrays = {
            tokenWeights: sequence.tokenWeights,
            ...(parsed.objective === 'ppo'
              ? {
                  advantages: sequence.advantages,
                  oldLogprobs: sequence.oldLogprobs,
                }
              : {}),
            ...(klCoef > 0 && parsed.objective === 'ppo'
              ? { refLogprobs: sequence.refLogprobs }
              : {}),
          };
          for (const [name, values] of Object.entries(arrays)) {
            if (values === undefined || values.length !== length) {
              throw new SealError({
                code: 'INVALID_ARGUMENT',
                message: `sequences.${index}.${name}: ${values === undefined ? 'missing' : `${values.length} values for ${length} tokens`}`,
                details: { index, name },
              });
            }
          }
        }
        let datums: TinkerDatum[];
        let lossFunction: 'cross_entropy' | 'ppo' | 'importance_sampling';
        let lossConfig: Record<string, number> | undefined;
        const advantagesUsed: number[][] = [];
        if (parsed.objective === 'cross-entropy') {
          lossFunction = 'cross_entropy';
          datums = sequences.map((sequence) =>
            toTinkerDatum({
              tokenIds: sequence.tokenIds,
              inputs: { weights: sequence.tokenWeights },
            }),
          );
        } else {
          lossFunction = rlLoss;
          lossConfig =
            rlLoss === 'ppo'
              ? {
                  clip_low_threshold: 1 - Math.min(clipLow, off),
                  clip_high_threshold: 1 + Math.min(clipHigh, off),
                }
              : undefined;
          if (exact) {
            // PolicyV1's batch as is: the server trains it like the engine.
            lossConfig = {
              ...lossConfig,
              seal_exact: 1,
              kl_coef: klCoef,
              ...(settingsIn.dualClipC === undefined
                ? {}
                : { dual_clip_c: settingsIn.dualClipC }),
            };
          }
          const klShift = exact ? [] : klAdvantageShift({ sequences, klCoef });
          datums = sequences.map((sequence, index) => {
            if (exact) {
              advantagesUsed.push(
                sequence.tokenIds.map(
                  (_, t) =>
                    sequence.tokenWeights[t]! * sequence.advantages![t]!,
                ),
              );
              return toTinkerDatum({
                tokenIds: sequence.tokenIds,
                inputs: {
                  logprobs: sequence.oldLogprobs!,
                  advantages: sequence.advantages!,
                  weights: sequence.tokenWeights,
                  ...(klCoef > 0 && sequence.refLogprobs
                    ? { ref_logprobs: sequence.refLogprobs }
                    : {}),
                },
              });
            }
            const advantages = sequence.tokenIds.map(
              (_, t) =>
                sequence.tokenWeights[t]! *
                (sequence.advantages![t]! + (klShift[index]?.[t] ?? 0)),
            );
            advantagesUsed.push(advantages);
            return toTinkerDatum({
              tokenIds: sequence.tokenIds,
              inputs: { logprobs: sequence.oldLogprobs!, advantages },
            });
          });
        }
        const output = await client.forwardBackward({
          modelId,
          ...(exact ? { wire: 'json' as const } : {}),
          input: {
            loss_fn: lossFunction,
            data: datums,
            ...(lossConfig ? { loss_fn_config: lossConfig } : {}),
          },
        });
        const metrics = trainMetrics({
          objective: parsed.objective,
          sequences,
          outputs: output.loss_fn_outputs,
          clipLow,
          clipHigh,
          rlLoss,
          advantagesUsed,
        });
        const optimized = await client.optimStep({
          modelId,
          adamParams: {
            learning_rate: settingsIn.learningRate,
            beta1: settingsIn.betas?.[0] ?? 0.9,
            beta2: settingsIn.betas?.[1] ?? 0.999,
            eps: settingsIn.eps ?? 1e-8,
            weight_decay: settingsIn.weightDecay ?? 0.01,
            grad_clip_norm:
              (settingsIn.maxGradNorm ?? 1) >= off
                ? 0
                : (settingsIn.maxGradNorm ?? 1),
          },
          ...(exact
            ? {
                sealTrainOptions: {
                  embeddingLearningRateScale:
                    settingsIn.embeddingLearningRateScale,
                  outputNormLearningRateScale:
                    settingsIn.outputNormLearningRateScale,
                  vectorLearningRateScale: settingsIn.vectorLearningRateScale,
                  outputNormUniform: settingsIn.outputNormUniform,
                },
              }
            : {}),
        });
        const skipped = optimized.metrics?.skipped === 1;
        if (!skipped) {
          step += 1;
          weightsVersion += 1;
        }
        // A service that reports its optimizer's step (seal serve-trainer
        // does, as the `step` metric) is the authority: it survives loads.
        const reported = optimized.metrics?.step;
        if (reported !== undefined && Number.isInteger(reported))
          step = reported;
        const served = optimized.metrics;
        if (exact && served?.['loss:sum'] !== undefined) {
          // The engine's own loss and metrics, as the step computed them.
          return {
            loss: served['loss:sum'],
            gradNorm: served.grad_norm ?? Number.NaN,
            skipped,
            step,
            metrics: {
              clipFraction:
                served.clip_fraction ?? metrics.metrics.clipFraction,
              kl: served.kl ?? metrics.metrics.kl,
              ratioMean: served.ratio_mean ?? metrics.metrics.ratioMean,
              negativeLogLikelihood:
                served.negative_log_likelihood ??
                metrics.metrics.negativeLogLikelihood,
              tokens: served.tokens ?? metrics.metrics.tokens,
            },
          };
        }
        return {
          loss: output.metrics?.['loss:sum'] ?? metrics.loss,
          gradNorm: optimized.metrics?.grad_norm ?? Number.NaN,
          skipped,
          step,
          metrics: metrics.metrics,
        };
      });
    },

    save({ directory }) {
      return serial(async () => {
        const path = await client.saveWeights({
          modelId,
          name: `seal-step-${step}-${saves++}`,
        });
        const checkpoint: TinkerCheckpoint = {
          schemaVersion: 1,
          type: 'tinker-checkpoint',
          path,
          baseUrl: client.baseUrl,
          baseModel,
          step,
        };
        await mkdir(directory, { recursive: true });
        const file = join(directory, tinkerCheckpointFileName);
        await writeFile(
          `${file}.tmp`,
          `${JSON.stringify(checkpoint, null, 2)}\n`,
        );
        await rename(`${file}.tmp`, file);
      });
    },

    load({ directory }) {
      return serial(async () => {
        const file = join(directory, tinkerCheckpointFileName);
        let text: string;
        try {
          text = await readFile(file, 'utf8');
        } catch (cause) {
          throw new SealError({
            code: 'FILE_NOT_FOUND',
            message: `${file} not found: a Tinker policy loads the checkpoints it saved (weights stay in the service)`,
            cause,
            details: { path: file },
          });
        }
        const checkpoint = parseWithSchema({
          schema: tinkerCheckpointSchema,
          value: parseJsonText({ text, source: file }),
          source: file,
        });
        if (checkpoint.baseModel !== baseModel) {
          throw new SealError({
            code: 'SHAPE_MISMATCH',
            message: `${file} holds a checkpoint of '${checkpoint.baseModel}', not of '${baseModel}'`,
            details: { path: file },
          });
        }
        const previous = modelId;
        const fresh = await createModel();
        await client.loadWeights({
          modelId: fresh,
          path: checkpoint.path,
          optimizer: true,
        });
        modelId = fresh;
        step = checkpoint.step;
        weightsVersion += 1;
        await client.unloadModel(previous).catch(() => {
          // The old model only holds memory on the service; an unload the
          // service refuses does not affect training.
        });
      });
    },

    close() {
      return serial(async () => {
        clearInterval(heartbeat);
        closed = true;
        await client.unloadModel(modelId).catch(() => {
          // Unloading frees the service's memory early; a service that does
          // not implement it frees the model when the session expires.
        });
      }).catch((error: unknown) => {
        if (SealError.isInstance(error) && error.code === 'INVALID_STATE')
          return;
        throw error;
      });
    },
  };
  return policy;
}

function temperatureError(temperature: number): SealError {
  return new SealError({
    code: 'INVALID_ARGUMENT',
    message: `temperature ${temperature}: the Tinker protocol's losses and log-probabilities are at temperature 1`,
    details: { temperature },
  });
}

/** The `logprobs` tensor of one datum's output. */
function targetLogprobs(
  output: Record<string, { data: number[] }> | undefined,
  index: number,
): number[] {
  const values = output?.logprobs?.data;
  if (!values) {
    throw new SealError({
      code: 'INVALID_DATA',
      message: `the Tinker service returned no logprobs for datum ${index}`,
      details: { index },
    });
  }
  return values;
}

function expectLength(values: number[], length: number, index: number): void {
  if (values.length !== length) {
    throw new SealError({
      code: 'INVALID_DATA',
      message: `the Tinker service returned ${values.length} logprobs for the ${length} targets of datum ${index}`,
      details: { index },
    });
  }
}

/**
 * tinker-cookbook's KL penalty (`rl/metrics.py`, `incorporate_kl_penalty`):
 * per weighted token `d = sampler logprob - reference logprob`, and the
 * advantage gains `klCoef · (mean(d) - d)`, the mean over the batch's
 * weighted tokens.
 */
function klAdvantageShift({
  sequences,
  klCoef,
}: {
  sequences: readonly {
    tokenWeights: readonly number[];
    oldLogprobs?: readonly number[] | undefined;
    refLogprobs?: readonly number[] | undefined;
  }[];
  klCoef: number;
}): number[][] {
  if (klCoef === 0) return [];
  let sum = 0;
  let count = 0;
  const differences = sequences.map((sequence) =>
    sequence.tokenWeights.map((weight, t) => {
      if (t === 0 || weight === 0) return 0;
      const difference = sequence.oldLogprobs![t]! - sequence.refLogprobs![t]!;
      sum += difference;
      count += 1;
      return difference;
    }),
  );
  const mean = count === 0 ? 0 : sum / count;
  return differences.map((row, index) =>
    row.map((difference, t) =>
      t === 0 || sequences[index]!.tokenWeights[t] === 0
        ? 0
        : klCoef * (mean - difference),
    ),
  );
}

/** PolicyV1's train metrics, from the log-probabilities forward_backward returned. */
function trainMetrics({
  objective,
  sequences,
  outputs,
  clipLow,
  clipHigh,
  rlLoss,
  advantagesUsed,
}: {
  objective: 'ppo' | 'cross-entropy';
  sequences: readonly {
    tokenIds: readonly number[];
    tokenWeights: readonly number[];
    oldLogprobs?: readonly number[] | undefined;
    refLogprobs?: readonly number[] | undefined;
  }[];
  outputs: readonly Record<string, { data: number[] }>[];
  clipLow: number;
  clipHigh: number;
  rlLoss: 'ppo' | 'importance_sampling';
  advantagesUsed: readonly number[][];
}): { loss: number; metrics: PolicyV1TrainResult['metrics'] } {
  let loss = 0;
  let weightSum = 0;
  let clipped = 0;
  let ratioSum = 0;
  let nll = 0;
  let kl = 0;
  let tokens = 0;
  for (const [index, sequence] of sequences.entries()) {
    const logprobs = targetLogprobs(outputs[index], index);
    expectLength(logprobs, sequence.tokenIds.length - 1, index);
    for (let t = 1; t < sequence.tokenIds.length; t++) {
      const weight = sequence.tokenWeights[t]!;
      const logprob = logprobs[t - 1]!;
      if (weight !== 0) tokens += 1;
      weightSum += weight;
      nll += weight * -logprob;
      if (objective === 'cross-entropy') {
        loss += weight * -logprob;
        ratioSum += weight;
        continue;
      }
      const ratio = Math.exp(logprob - sequence.oldLogprobs![t]!);
      const advantage = advantagesUsed[index]![t]!;
      ratioSum += weight * ratio;
      const outside = ratio < 1 - clipLow || ratio > 1 + clipHigh;
      if (rlLoss === 'ppo') {
        const bounded = Math.min(Math.max(ratio, 1 - clipLow), 1 + clipHigh);
        loss += -Math.min(ratio * advantage, bounded * advantage);
        if (outside) clipped += weight;
      } else loss += -ratio * advantage;
      const reference = sequence.refLogprobs?.[t];
      if (reference !== undefined) {
        kl +=
          weight * (Math.exp(reference - logprob) - (reference - logprob) - 1);
      }
    }
  }
  const norm = weightSum === 0 ? 1 : weightSum;
  return {
    loss,
    metrics: {
      clipFraction: clipped / norm,
      kl: kl / norm,
      ratioMean: ratioSum / norm,
      negativeLogLikelihood: nll / norm,
      tokens,
    },
  };
}

/**
 * Where a generation ends under PolicyV1's stop strings: right after the
 * token whose decoding first contains one of them (the whole length when
 * none does).
 */
function stopStringCut({
  tokenIds,
  stopStrings,
  tokenizer,
}: {
  tokenIds: readonly number[];
  stopStrings: readonly string[];
  tokenizer: PolicyV1Tokenizer;
}): number {
  if (stopStrings.length === 0) return tokenIds.length;
  const full = tokenizer.decode(tokenIds);
  if (!stopStrings.some((stop) => full.includes(stop))) return tokenIds.length;
  for (let length = 1; length <= tokenIds.length; length++) {
    const text = tokenizer.decode(tokenIds.slice(0, length));
    if (stopStrings.some((stop) => text.includes(stop))) return length;
  }
  return tokenIds.length;
}

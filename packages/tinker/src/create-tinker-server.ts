import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import {
  createServer,
  type IncomingMessage,
  type ServerResponse,
} from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as zlib from 'node:zlib';
import { HttpError, listen, readBody, sendJson } from '@seal/http';
import {
  SealError,
  parseJsonText,
  safeParseWithSchema,
  toSealError,
  type PolicyV1,
  type PolicyV1TrainSequence,
  type PolicyV1TrainSettings,
} from '@seal/spec';
import type * as z from 'zod';
import {
  fromTinkerDatum,
  modelInputTokens,
  tinkerTensor,
} from './tinker-datum';
import {
  decodeTinkerForwardBackwardRequest,
  encodeTinkerForwardBackwardOutput,
  encodeTinkerSampleResponse,
  tinkerProtobufContentType,
} from './tinker-protobuf';
import {
  tinkerCreateModelRequestSchema,
  tinkerCreateSamplingSessionRequestSchema,
  tinkerCreateSessionRequestSchema,
  tinkerForwardBackwardRequestSchema,
  tinkerForwardRequestSchema,
  tinkerFutureRetrieveRequestSchema,
  tinkerLoadWeightsRequestSchema,
  tinkerOptimStepRequestSchema,
  tinkerSampleRequestSchema,
  tinkerSaveWeightsForSamplerRequestSchema,
  tinkerSaveWeightsRequestSchema,
  tinkerSessionHeartbeatRequestSchema,
  tinkerUnloadModelRequestSchema,
  sealExactExtension,
  sealSampleBatchRequestSchema,
  type tinkerForwardBackwardInputSchema,
} from './tinker-wire';

/** Settings of {@link createTinkerServer}. */
export type CreateTinkerServerSettings = {
  /** The name clients pass as `base_model`. */
  baseModel: string;
  /**
   * Makes a fresh policy with the base model's weights: one per
   * `create_model`, and one for sampling the base model. Each model trains
   * all its weights (full fine-tuning).
   */
  createPolicy: () => Promise<PolicyV1>;
  /** Interface (default 127.0.0.1). */
  host?: string;
  /** Port (default 8088; 0 picks a free one). */
  port?: number;
  /** `max_context_length` in `get_server_capabilities` (default: the first policy's). */
  maxContextLength?: number;
  /**
   * How long `retrieve_future` holds a request for a pending future before
   * answering 408 (the SDK asks again; its own timeout is 45 s). Default 30 s.
   */
  retrieveHoldMs?: number;
  /** Largest request body (default 64 MiB). */
  maxBodyBytes?: number;
  /**
   * Where `save_weights` writes checkpoints (`<dir>/<model_id>/<name>`).
   * Default: a temporary directory removed on close.
   */
  checkpointDirectory?: string;
  /** Called with failures of our own code (answered with 500). */
  onInternalError?: (error: unknown) => void;
};

/** A listening Tinker-compatible server. */
export type TinkerServer = {
  /** `http://host:port`. */
  readonly url: string;
  /** The bound port. */
  readonly port: number;
  /** Stops listening, frees every policy and removes a temporary checkpoint directory. */
  close(): Promise<void>;
};

/** The loss functions served, and the `loss_fn_config` keys each takes. */
const servedLosses = {
  cross_entropy: [],
  importance_sampling: [],
  ppo: [
    'clip_low_threshold',
    'clip_high_threshold',
    // SEAL's exact extension (see `sealExactExtension`).
    'seal_exact',
    'kl_coef',
    'dual_clip_c',
  ],
} as const satisfies Record<string, readonly string[]>;

type ServedLoss = keyof typeof servedLosses;

/** PolicyV1's "huge means off" (JSON has no Infinity). */
const off = 1e30;

const namePattern = /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/;

type Future = {
  status: 'pending' | 'done' | 'failed';
  value?: unknown;
  error?: string;
  category?: 'user' | 'server';
  waiters: Set<() => void>;
};

/** Gradients waiting for the next optim_step: a PolicyV1 batch. */
type PendingBatch = {
  objective: 'ppo' | 'cross-entropy';
  loss: ServedLoss;
  clipLow: number;
  clipHigh: number;
  /** Set by the exact extension: PolicyV1's own KL and dual clip. */
  exact?: { klCoef: number; dualClipC: number | undefined };
  sequences: PolicyV1TrainSequence[];
};

type Model = {
  id: string;
  ready: Promise<PolicyV1>;
  queue: Promise<unknown>;
  pending: PendingBatch | undefined;
  /** Bumped by each applied optimizer step and each load. */
  version: number;
  /** Sampler weights by name: the version they were saved at. */
  samplers: Map<string, number>;
};

/**
 * Serves a PolicyV1 (our engine) as a Tinker-compatible service: the REST
 * endpoints of the Tinker API in their JSON form (SkyRL's server accepts the
 * same), with futures kept in memory under numeric-string ids and retrieved
 * by long poll.
 *
 * Supported: full fine-tuning only (`create_model` with a `lora_config` is
 * refused with 400); losses `cross_entropy`, `importance_sampling` and
 * `ppo` (with `clip_low_threshold` / `clip_high_threshold`); next-token
 * targets (`target_tokens` = `model_input` shifted by one); token-id prompts.
 * `forward_backward` computes the loss and log-probabilities at once and
 * keeps the batch; `optim_step` applies the kept batches in one PolicyV1
 * `train` (losses are sums, so that equals accumulated gradients) and
 * reports `grad_norm`, `skipped` and `step` as metrics. Requests of a model
 * run in arrival order. Sampler weights are the model's current weights:
 * sampling a sampler path saved before a later optimizer step is refused.
 */
export async function createTinkerServer(
  settings: CreateTinkerServerSettings,
): Promise<TinkerServer> {
  const { baseModel } = settings;
  const retrieveHoldMs = settings.retrieveHoldMs ?? 30_000;
  const maxBodyBytes = settings.maxBodyBytes ?? 64 * 1024 * 1024;
  const ownCheckpoints = settings.checkpointDirectory === undefined;
  const checkpointRoot =
    settings.checkpointDirectory ??
    (await mkdtemp(join(tmpdir(), 'seal-tinker-')));
  const sessions = new Set<string>();
  const samplingSessions = new Map<
    string,
    { modelPath: string | undefined; baseModel: string | undefined }
  >();
  const models = new Map<string, Model>();
  const futures = new Map<string, Future>();
  const policies = new Set<PolicyV1>();
  let closing: Promise<void> | undefined;
  let basePolicy: Promise<PolicyV1> | undefined;
  let counter = 0;
  const started = Date.now().toString(36);
  let maxContextLength = settings.maxContextLength;

  function newPolicy(): Promise<PolicyV1> {
    return settings.createPolicy().then(async (policy) => {
      // A policy made after close (its creation was slow) is freed at once.
      if (closing !== undefined) {
        await policy.close();
        throw new SealError({
          code: 'INVALID_STATE',
          message: 'the server is closed',
        });
      }
      maxContextLength ??= policy.maxSequenceLength;
      policies.add(policy);
      return policy;
    });
  }

  function startFuture(run: () => Promise<unknown>): string {
    const id = String(++counter);
    const future: Future = { status: 'pending', waiters: new Set() };
    futures.set(id, future);
    run()
      .then(
        (value) => {
          future.status = 'done';
          future.value = value;
        },
        (error: unknown) => {
          const sealError = toSealError(error);
          future.status = 'failed';
          future.error = sealError.message;
          future.category = userCodes.has(sealError.code) ? 'user' : 'server';
          if (future.category === 'server') settings.onInternalError?.(error);
        },
      )
      .finally(() => {
        for (const wake of future.waiters) wake();
        future.waiters.clear();
      });
    return id;
  }

  /** Queues work on a model (arrival order) and returns the future's id. */
  function modelFuture(
    model: Model,
    run: (policy: PolicyV1) => Promise<unknown>,
  ): string {
    const work = model.queue.then(async () => run(await model.ready));
    model.queue = work.catch(() => undefined);
    return startFuture(() => work);
  }

  function futureAnswer(id: string) {
    return { request_id: id, future_id: id, status: 'pending' };
  }

  function getModel(id: string): Model {
    const model = models.get(id);
    if (!model)
      throw new HttpError({ status: 404, message: `model '${id}' not found` });
    return model;
  }

  function checkBaseModel(name: string): void {
    if (name !== baseModel) {
      throw new HttpError({
        status: 400,
        message: `base_model '${name}' is not served here; supported: '${baseModel}'`,
      });
    }
  }

  /** Converts and scores a forward(_backward) input; returns outputs and the PolicyV1 batch. */
  async function forwardPass(
    policy: PolicyV1,
    input: z.output<typeof tinkerForwardBackwardInputSchema>,
    where: string,
  ) {
    const loss = input.loss_fn;
    if (!(loss in servedLosses)) {
      throw new SealError({
        code: 'INVALID_ARGUMENT',
        message: `${where}.loss_fn '${loss}' is not supported; this server supports ${Object.keys(servedLosses).join(', ')}`,
        details: { loss },
      });
    }
    const served = loss as ServedLoss;
    const config = input.loss_fn_config ?? {};
    const allowed: readonly string[] = servedLosses[served];
    const extra = Object.keys(config).filter((key) => !allowed.includes(key));
    if (extra.length > 0) {
      throw new SealError({
        code: 'INVALID_ARGUMENT',
        message: `${where}.loss_fn_config: ${extra.join(', ')} not accepted for loss_fn '${served}' (accepted: ${allowed.join(', ') || 'none'})`,
        details: { keys: extra },
      });
    }
    const lowThreshold = config.clip_low_threshold ?? 0.8;
    const highThreshold = config.clip_high_threshold ?? 1.2;
    if (served === 'ppo' && (lowThreshold > 1 || highThreshold < 1)) {
      throw new SealError({
        code: 'INVALID_ARGUMENT',
        message: `${where}.loss_fn_config: clip_low_threshold must be at most 1 and clip_high_threshold at least 1 (got ${lowThreshold}, ${highThreshold})`,
      });
    }
    const clipLow = served === 'ppo' ? 1 - lowThreshold : off;
    const clipHigh = served === 'ppo' ? highThreshold - 1 : off;
    const exact =
      served === 'ppo' && config.seal_exact === 1
        ? {
            klCoef: config.kl_coef ?? 0,
            dualClipC: config.dual_clip_c,
          }
        : undefined;
    if (input.data.length === 0) {
      throw new SealError({
        code: 'INVALID_ARGUMENT',
        message: `${where}.data: at least one datum is needed`,
      });
    }
    const sequences = input.data.map((datum, index): PolicyV1TrainSequence => {
      const at = `${where}.data.${index}`;
      const { tokenIds, inputs } = fromTinkerDatum(datum, at);
      if (served === 'cross_entropy') {
        return {
          tokenIds,
          tokenWeights:
            inputs.weights ?? tokenIds.map((_, t) => (t === 0 ? 0 : 1)),
        };
      }
      for (const name of ['logprobs', 'advantages'] as const) {
        if (!inputs[name]) {
          throw new SealError({
            code: 'INVALID_ARGUMENT',
            message: `${at}.loss_fn_inputs.${name} is required for loss_fn '${served}'`,
          });
        }
      }
      const advantages = inputs.advantages!;
      return {
        tokenIds,
        // The RL losses take no weights in Tinker (a zero advantage masks a
        // token); SkyRL reads `weights` as a mask when sent.
        tokenWeights:
          inputs.weights ??
          advantages.map((value, t) => (t > 0 && value !== 0 ? 1 : 0)),
        advantages,
        oldLogprobs: inputs.logprobs!,
        ...(exact && inputs.ref_logprobs
          ? { refLogprobs: inputs.ref_logprobs }
          : {}),
      };
    });
    if (
      sequences.some(
        (sequence) => sequence.tokenIds.length > policy.maxSequenceLength,
      )
    ) {
      throw new SealError({
        code: 'CONTEXT_LENGTH_EXCEEDED',
        message: `${where}: a datum is longer than the model's ${policy.maxSequenceLength} tokens`,
      });
    }
    const { logprobs } = await policy.score({
      sequences: sequences.map((sequence) => sequence.tokenIds),
    });
    let lossSum = 0;
    const outputs = sequences.map((sequence, index) => {
      const row = logprobs[index]!;
      const elementwise: number[] = [];
      for (let t = 1; t < sequence.tokenIds.length; t++) {
        const weight = sequence.tokenWeights[t]!;
        const logprob = row[t]!;
        let value: number;
        if (served === 'cross_entropy') value = -weight * logprob;
        else {
          const ratio = Math.exp(logprob - sequence.oldLogprobs![t]!);
          const advantage = sequence.advantages![t]!;
          value =
            served === 'ppo'
              ? -weight *
                Math.min(
                  ratio * advantage,
                  Math.min(Math.max(ratio, lowThreshold), highThreshold) *
                    advantage,
                )
              : -weight * ratio * advantage;
        }
        elementwise.push(value);
        lossSum += value;
      }
      return {
        logprobs: tinkerTensor(row.slice(1), 'float32'),
        elementwise_loss: tinkerTensor(elementwise, 'float32'),
      };
    });
    return {
      output: {
        loss_fn_output_type: 'scalar',
        loss_fn_outputs: outputs,
        metrics: { 'loss:sum': lossSum },
      },
      batch: {
        objective: served === 'cross_entropy' ? 'cross-entropy' : 'ppo',
        loss: served,
        clipLow,
        clipHigh,
        ...(exact ? { exact } : {}),
        sequences,
      } satisfies PendingBatch,
    };
  }

  /** Sampler weights must have been saved at the model's current version. */
  function checkSampler(model: Model, name: string): void {
    const version = model.samplers.get(name);
    if (version === undefined) {
      throw new SealError({
        code: 'NOT_FOUND',
        message: `sampler weights '${name}' of ${model.id} were never saved (save_weights_for_sampler first)`,
      });
    }
    if (version !== model.version) {
      throw new SealError({
        code: 'INVALID_STATE',
        message: `sampler weights '${name}' of ${model.id} predate its latest optimizer step; this server samples a model's current weights only (save_weights_for_sampler again)`,
      });
    }
  }

  function samplerSource(path: string): { model: Model; name: string } {
    const match = /^tinker:\/\/([^/]+)\/(?:sampler_weights\/)?([^/]+)$/.exec(
      path,
    );
    if (!match) {
      throw new HttpError({
        status: 400,
        message: `model_path must be tinker://model_id/sampler_weights/name (got '${path}')`,
      });
    }
    const model = getModel(match[1]!);
    return { model, name: match[2]! };
  }

  const routes: Record<string, (body: unknown) => Promise<unknown> | unknown> =
    {
      'GET /api/v1/healthz': () => ({ status: 'ok' }),
      'GET /api/v1/seal_extensions': () => ({
        extensions: [sealExactExtension],
      }),
      'POST /api/v1/seal_sample_batch': (body) => {
        const request = parse(sealSampleBatchRequestSchema, body);
        const { model, name } = samplerSource(request.model_path);
        return futureAnswer(
          modelFuture(model, async (policy) => {
            checkSampler(model, name);
            const result = await policy.generate({
              prompts: request.prompts,
              maxTokens: request.max_tokens,
              temperature: request.temperature,
              topP: request.top_p,
              topK: request.top_k,
              seed: request.seed,
              stopTokenIds: request.stop_token_ids,
              stopStrings: request.stop_strings,
            });
            return {
              type: 'seal_sample_batch',
              generations: result.generations.map((generation) => ({
                stop_reason: generation.finishReason,
                tokens: generation.tokenIds,
                logprobs: generation.logprobs,
                model_logprobs: generation.modelLogprobs,
              })),
            };
          }),
        );
      },
      'GET /api/v1/get_server_capabilities': async () => {
        // The context length is the policy's: make the base policy once.
        if (maxContextLength === undefined) {
          basePolicy ??= newPolicy();
          await basePolicy;
        }
        return {
          supported_models: [
            {
              model_name: baseModel,
              ...(maxContextLength === undefined
                ? {}
                : { max_context_length: maxContextLength }),
            },
          ],
        };
      },
      'POST /api/v1/client/config': () => ({
        pjwt_auth_enabled: false,
        // SDK 0.25 then sends protobuf forward_backward bodies uncompressed.
        proto_compress_fwdbwd: false,
      }),
      'POST /api/v1/telemetry': () => ({ status: 'accepted' }),
      'POST /api/v1/create_session': (body) => {
        parse(tinkerCreateSessionRequestSchema, body);
        const id = `session_${++counter}`;
        sessions.add(id);
        return { type: 'create_session', session_id: id };
      },
      'POST /api/v1/session_heartbeat': (body) => {
        const request = parse(tinkerSessionHeartbeatRequestSchema, body);
        if (!sessions.has(request.session_id)) {
          throw new HttpError({ status: 404, message: 'Session not found' });
        }
        return { type: 'session_heartbeat' };
      },
      'POST /api/v1/create_sampling_session': (body) => {
        const request = parse(tinkerCreateSamplingSessionRequestSchema, body);
        if (!sessions.has(request.session_id)) {
          throw new HttpError({ status: 404, message: 'Session not found' });
        }
        if ((request.base_model == null) === (request.model_path == null)) {
          throw new HttpError({
            status: 400,
            message: 'Exactly one of base_model or model_path must be provided',
          });
        }
        if (request.base_model != null) checkBaseModel(request.base_model);
        if (request.model_path != null) samplerSource(request.model_path);
        const id = `sampling_${++counter}`;
        samplingSessions.set(id, {
          modelPath: request.model_path ?? undefined,
          baseModel: request.base_model ?? undefined,
        });
        return { type: 'create_sampling_session', sampling_session_id: id };
      },
      'POST /api/v1/create_model': (body) => {
        const request = parse(tinkerCreateModelRequestSchema, body);
        if (!sessions.has(request.session_id)) {
          throw new HttpError({ status: 404, message: 'Session not found' });
        }
        checkBaseModel(request.base_model);
        if (request.lora_config != null) {
          throw new HttpError({
            status: 400,
            message: `LoRA is not supported here (lora_config with rank ${request.lora_config.rank}): this server trains all weights of '${baseModel}' (full fine-tuning); omit lora_config`,
          });
        }
        // Unique across restarts: checkpoints outlive a server when
        // checkpointDirectory is kept, and a restarted one must not reuse ids.
        const id = `model_${started}_${++counter}`;
        const model: Model = {
          id,
          ready: newPolicy(),
          queue: Promise.resolve(),
          pending: undefined,
          version: 0,
          samplers: new Map(),
        };
        models.set(id, model);
        const requestId = startFuture(async () => {
          await model.ready;
          return {
            type: 'create_model',
            model_id: id,
            base_model: baseModel,
          };
        });
        return {
          model_id: id,
          request_id: requestId,
          base_model: baseModel,
          status: 'created',
        };
      },
      'POST /api/v1/get_info': (body) => {
        const request = parse(tinkerUnloadModelRequestSchema, body);
        getModel(request.model_id);
        return {
          type: 'get_info',
          model_id: request.model_id,
          status: 'ready',
          model_data: {
            base_model: baseModel,
            lora_config: null,
            model_name: baseModel,
          },
          is_lora: false,
        };
      },
      'POST /api/v1/unload_model': (body) => {
        const request = parse(tinkerUnloadModelRequestSchema, body);
        const model = getModel(request.model_id);
        return futureAnswer(
          modelFuture(model, async (policy) => {
            models.delete(model.id);
            policies.delete(policy);
            await policy.close();
            return {
              type: 'unload_model',
              model_id: model.id,
              status: 'unloaded',
            };
          }),
        );
      },
      'POST /api/v1/forward_backward': (body) => {
        const request = parse(tinkerForwardBackwardRequestSchema, body);
        const model = getModel(request.model_id);
        return futureAnswer(
          modelFuture(model, async (policy) => {
            const { output, batch } = await forwardPass(
              policy,
              request.forward_backward_input,
              'forward_backward_input',
            );
            const pending = model.pending;
            if (
              pending &&
              (pending.loss !== batch.loss ||
                pending.clipLow !== batch.clipLow ||
                pending.clipHigh !== batch.clipHigh ||
                JSON.stringify(pending.exact) !== JSON.stringify(batch.exact))
            ) {
              throw new SealError({
                code: 'INVALID_ARGUMENT',
                message: `forward_backward with loss_fn '${batch.loss}' after '${pending.loss}' (or other clip thresholds) before optim_step: this server accumulates one loss per optimizer step`,
              });
            }
            if (pending) pending.sequences.push(...batch.sequences);
            else model.pending = batch;
            return output;
          }),
        );
      },
      'POST /api/v1/forward': (body) => {
        const request = parse(tinkerForwardRequestSchema, body);
        const model = getModel(request.model_id);
        return futureAnswer(
          modelFuture(model, async (policy) => {
            const { output } = await forwardPass(
              policy,
              request.forward_input,
              'forward_input',
            );
            return output;
          }),
        );
      },
      'POST /api/v1/optim_step': (body) => {
        const request = parse(tinkerOptimStepRequestSchema, body);
        const model = getModel(request.model_id);
        return futureAnswer(
          modelFuture(model, async (policy) => {
            const pending = model.pending;
            model.pending = undefined;
            if (!pending) {
              throw new SealError({
                code: 'INVALID_STATE',
                message: `optim_step on ${model.id} with no forward_backward since the last step: there are no gradients to apply`,
              });
            }
            const adam = request.adam_params;
            const options: PolicyV1TrainSettings = {
              learningRate: adam.learning_rate,
              betas: [adam.beta1, adam.beta2],
              eps: adam.eps,
              weightDecay: adam.weight_decay,
              maxGradNorm: adam.grad_clip_norm > 0 ? adam.grad_clip_norm : off,
              clipLow: pending.clipLow,
              clipHigh: pending.clipHigh,
              dualClipC: off,
              klCoef: 0,
            };
            if (pending.exact) {
              // PolicyV1's own KL term and dual clip (the engine's default
              // when the client set none), and the settings Tinker lacks.
              options.klCoef = pending.exact.klCoef;
              if (pending.exact.dualClipC === undefined)
                delete options.dualClipC;
              else options.dualClipC = pending.exact.dualClipC;
              const extra = request.seal_train_options;
              if (extra?.embeddingLearningRateScale != null)
                options.embeddingLearningRateScale =
                  extra.embeddingLearningRateScale;
              if (extra?.outputNormLearningRateScale != null)
                options.outputNormLearningRateScale =
                  extra.outputNormLearningRateScale;
              if (extra?.vectorLearningRateScale != null)
                options.vectorLearningRateScale = extra.vectorLearningRateScale;
              if (extra?.outputNormUniform != null)
                options.outputNormUniform = extra.outputNormUniform;
            }
            const result = await policy.train({
              objective: pending.objective,
              sequences: pending.sequences,
              options,
            });
            if (!result.skipped) model.version += 1;
            return {
              type: 'optim_step',
              metrics: {
                ...(Number.isFinite(result.gradNorm)
                  ? { grad_norm: result.gradNorm }
                  : {}),
                ...(Number.isFinite(result.loss)
                  ? { 'loss:sum': result.loss }
                  : {}),
                skipped: result.skipped ? 1 : 0,
                step: result.step,
                // The engine's own metrics (the exact extension reads them).
                ...(pending.exact
                  ? {
                      clip_fraction: result.metrics.clipFraction,
                      kl: result.metrics.kl,
                      ratio_mean: result.metrics.ratioMean,
                      negative_log_likelihood:
                        result.metrics.negativeLogLikelihood,
                      tokens: result.metrics.tokens,
                    }
                  : {}),
              },
            };
          }),
        );
      },
      'POST /api/v1/save_weights_for_sampler': (body) => {
        const request = parse(tinkerSaveWeightsForSamplerRequestSchema, body);
        const model = getModel(request.model_id);
        const name =
          request.path ??
          (request.sampling_session_seq_id != null && request.seq_id != null
            ? `ss${request.sampling_session_seq_id}_seq${request.seq_id}`
            : undefined);
        if (name === undefined || !namePattern.test(name)) {
          throw new HttpError({
            status: 400,
            message:
              name === undefined
                ? "Either 'path' or both 'sampling_session_seq_id' and 'seq_id' must be provided"
                : `path '${name}' must match ${namePattern.source}`,
          });
        }
        return futureAnswer(
          modelFuture(model, async () => {
            model.samplers.set(name, model.version);
            const path = `tinker://${model.id}/sampler_weights/${name}`;
            let samplingSessionId: string | undefined;
            if (request.sampling_session_seq_id != null) {
              samplingSessionId = `sampling_${++counter}`;
              samplingSessions.set(samplingSessionId, {
                modelPath: path,
                baseModel: undefined,
              });
            }
            return {
              type: 'save_weights_for_sampler',
              path,
              ...(samplingSessionId
                ? { sampling_session_id: samplingSessionId }
                : {}),
            };
          }),
        );
      },
      'POST /api/v1/save_weights': (body) => {
        const request = parse(tinkerSaveWeightsRequestSchema, body);
        const model = getModel(request.model_id);
        const name = request.path ?? `checkpoint_${started}_${++counter}`;
        if (!namePattern.test(name)) {
          throw new HttpError({
            status: 400,
            message: `path '${name}' must match ${namePattern.source}`,
          });
        }
        return futureAnswer(
          modelFuture(model, async (policy) => {
            await policy.save({
              directory: join(checkpointRoot, model.id, name),
            });
            return {
              type: 'save_weights',
              path: `tinker://${model.id}/weights/${name}`,
            };
          }),
        );
      },
      'POST /api/v1/load_weights': (body) => {
        const request = parse(tinkerLoadWeightsRequestSchema, body);
        const model = getModel(request.model_id);
        const match = /^tinker:\/\/([^/]+)\/weights\/([^/]+)$/.exec(
          request.path,
        );
        if (
          !match ||
          !namePattern.test(match[1]!) ||
          !namePattern.test(match[2]!)
        ) {
          throw new HttpError({
            status: 400,
            message:
              'request.path must be in format tinker://source_model_id/weights/checkpoint_id',
          });
        }
        if (!request.optimizer) {
          throw new HttpError({
            status: 400,
            message:
              'this server restores a checkpoint with its optimizer state; pass optimizer: true',
          });
        }
        const directory = join(checkpointRoot, match[1]!, match[2]!);
        if (!existsSync(directory)) {
          throw new HttpError({
            status: 404,
            message: `checkpoint ${request.path} not found`,
          });
        }
        return futureAnswer(
          modelFuture(model, async (policy) => {
            await policy.load({ directory });
            model.pending = undefined;
            model.version += 1;
            return { type: 'load_weights', path: request.path };
          }),
        );
      },
      'POST /api/v1/asample': async (body) => {
        const request = parse(tinkerSampleRequestSchema, body);
        let modelPath = request.model_path ?? undefined;
        let base = request.base_model ?? undefined;
        if (request.sampling_session_id != null) {
          const session = samplingSessions.get(request.sampling_session_id);
          if (!session) {
            throw new HttpError({
              status: 404,
              message: 'Sampling session not found',
            });
          }
          modelPath = session.modelPath;
          base = session.baseModel;
        } else if ((base === undefined) === (modelPath === undefined)) {
          throw new HttpError({
            status: 400,
            message:
              "When 'sampling_session_id' is not provided, exactly one of 'base_model' or 'model_path' must be provided",
          });
        }
        const params = request.sampling_params;
        if (params.max_tokens == null) {
          throw new HttpError({
            status: 400,
            message: 'max_tokens is currently required',
          });
        }
        const prompt = modelInputTokens(request.prompt, 'prompt');
        if (prompt.length === 0) {
          throw new HttpError({
            status: 400,
            message: 'prompt: at least one token is needed',
          });
        }
        const stop = params.stop;
        const stopList =
          stop == null ? undefined : typeof stop === 'string' ? [stop] : stop;
        const sample = async (policy: PolicyV1) => {
          const result = await policy.generate({
            prompts: Array.from({ length: request.num_samples }, () => prompt),
            maxTokens: params.max_tokens!,
            temperature: params.temperature,
            topP: params.top_p,
            topK: params.top_k > 0 ? params.top_k : 0,
            seed: params.seed ?? 0,
            ...(stopList === undefined
              ? {}
              : stopList.every((item) => typeof item === 'number')
                ? { stopTokenIds: stopList as number[] }
                : stopList.every((item) => typeof item === 'string')
                  ? { stopTokenIds: [], stopStrings: stopList as string[] }
                  : {}),
          });
          const promptLogprobs =
            request.prompt_logprobs || (request.topk_prompt_logprobs ?? 0) > 0
              ? [
                  null,
                  ...(
                    await policy.score({ sequences: [prompt] })
                  ).logprobs[0]!.slice(1),
                ]
              : undefined;
          return {
            type: 'sample',
            sequences: result.generations.map((generation) => ({
              stop_reason: generation.finishReason,
              tokens: generation.tokenIds,
              logprobs: generation.logprobs,
            })),
            ...(promptLogprobs ? { prompt_logprobs: promptLogprobs } : {}),
          };
        };
        if (base !== undefined) {
          checkBaseModel(base);
          basePolicy ??= newPolicy();
          const ready = basePolicy;
          return futureAnswer(startFuture(async () => sample(await ready)));
        }
        const { model, name } = samplerSource(modelPath!);
        return futureAnswer(
          modelFuture(model, async (policy) => {
            checkSampler(model, name);
            return sample(policy);
          }),
        );
      },
    };

  async function retrieveFuture(
    body: unknown,
    response: ServerResponse,
    accept: string,
  ) {
    const request = parse(tinkerFutureRetrieveRequestSchema, body);
    const future = futures.get(request.request_id);
    if (!future)
      throw new HttpError({ status: 404, message: 'Future not found' });
    if (future.status === 'pending') {
      await new Promise<void>((resolve) => {
        const timer = setTimeout(done, retrieveHoldMs);
        function done() {
          clearTimeout(timer);
          future!.waiters.delete(done);
          resolve();
        }
        future.waiters.add(done);
        response.once('close', done);
      });
    }
    if (future.status === 'pending') {
      sendJson({
        response,
        status: 408,
        body: {
          detail: 'Timeout waiting for result',
          type: 'try_again',
          request_id: request.request_id,
          queue_state: 'active',
        },
      });
    } else if (future.status === 'failed') {
      sendJson({
        response,
        status: 200,
        body: { error: future.error, category: future.category },
      });
    } else if (
      accept.includes(tinkerProtobufContentType) &&
      protobufResult(future.value) !== undefined
    ) {
      const bytes = protobufResult(future.value)!;
      response.writeHead(200, {
        'content-type': tinkerProtobufContentType,
        'content-length': String(bytes.length),
      });
      response.end(bytes);
    } else sendJson({ response, status: 200, body: future.value ?? null });
  }

  /**
   * A `forward_backward` body sent as protobuf (SDK 0.25): decoded into the
   * JSON form, forward-only passes routed to `forward`. A zstd body is
   * decompressed where Node has zstd (22.15 and later); this server's
   * `client/config` never asks for compression, so the SDK sends none.
   */
  async function protobufBody(
    request: IncomingMessage,
    path: string,
  ): Promise<{ key: string; body: unknown }> {
    if (path !== '/api/v1/forward_backward') {
      request.resume();
      throw new HttpError({
        status: 415,
        message: `${path} takes a JSON body; protobuf is spoken for /api/v1/forward_backward only (as the SDK sends it)`,
      });
    }
    let bytes = await readBytes(request, maxBodyBytes);
    const encoding = String(request.headers['content-encoding'] ?? '')
      .trim()
      .toLowerCase();
    if (encoding === 'zstd') {
      const decompress = (
        zlib as { zstdDecompressSync?: (input: Uint8Array) => Buffer }
      ).zstdDecompressSync;
      if (decompress === undefined) {
        throw new HttpError({
          status: 415,
          message: `this server's Node ${process.version} has no zstd (Node 22.15 or later has); send the body uncompressed (this server's client/config sets proto_compress_fwdbwd false)`,
        });
      }
      try {
        bytes = decompress(bytes);
      } catch (error) {
        throw new HttpError({
          status: 422,
          message: `failed to zstd-decompress the body: ${toSealError(error).message}`,
        });
      }
    } else if (encoding !== '' && encoding !== 'identity') {
      throw new HttpError({
        status: 415,
        message: `content-encoding '${encoding}' is not supported (zstd or none)`,
      });
    }
    const decoded = decodeTinkerForwardBackwardRequest(bytes);
    return decoded.forward_only
      ? {
          key: 'POST /api/v1/forward',
          body: {
            model_id: decoded.model_id,
            forward_input: decoded.forward_backward_input,
            seq_id: decoded.seq_id,
          },
        }
      : {
          key: 'POST /api/v1/forward_backward',
          body: {
            model_id: decoded.model_id,
            forward_backward_input: decoded.forward_backward_input,
            seq_id: decoded.seq_id,
          },
        };
  }

  async function handle(request: IncomingMessage, response: ServerResponse) {
    const path = (request.url ?? '/').split('?')[0]!;
    let key = `${request.method ?? 'GET'} ${path}`;
    let body: unknown = {};
    const type = String(request.headers['content-type'] ?? '');
    if (request.method === 'POST' && type.includes(tinkerProtobufContentType)) {
      ({ key, body } = await protobufBody(request, path));
    } else if (request.method === 'POST') {
      if (request.headers['content-encoding']) {
        request.resume();
        throw new HttpError({
          status: 415,
          message:
            'compressed JSON bodies are not supported (only a protobuf forward_backward may be zstd-compressed)',
        });
      }
      const read = await readBody({
        request,
        limit: maxBodyBytes,
        drainLimit: maxBodyBytes * 2,
      });
      if ('tooLarge' in read) {
        throw new HttpError({
          status: 413,
          message: `request body over ${maxBodyBytes} bytes`,
          closeConnection: read.cut,
        });
      }
      body =
        read.text === ''
          ? {}
          : parseJsonText({ text: read.text, source: path });
    }
    if (key === 'POST /api/v1/retrieve_future')
      return retrieveFuture(
        body,
        response,
        String(request.headers.accept ?? ''),
      );
    const route = routes[key];
    if (!route) {
      const known = Object.keys(routes).some((name) =>
        name.endsWith(` ${path}`),
      );
      throw new HttpError({
        status: known ? 405 : 404,
        message: known
          ? `${request.method} is not allowed on ${path}`
          : `no endpoint ${path}`,
      });
    }
    sendJson({ response, status: 200, body: await route(body) });
  }

  const server = createServer((request, response) => {
    handle(request, response).catch((error: unknown) => {
      if (response.headersSent) return;
      if (HttpError.isInstance(error)) {
        sendJson({
          response,
          status: error.status,
          body: { detail: error.message },
          headers: {
            ...error.headers,
            ...(error.closeConnection ? { connection: 'close' } : {}),
          },
        });
        return;
      }
      const sealError = toSealError(error);
      const status =
        sealError.code === 'INVALID_DATA'
          ? 422
          : sealError.code === 'NOT_FOUND'
            ? 404
            : userCodes.has(sealError.code)
              ? 400
              : 500;
      if (status === 500) settings.onInternalError?.(error);
      sendJson({ response, status, body: { detail: sealError.message } });
    });
  });
  let listening: Awaited<ReturnType<typeof listen>>;
  try {
    listening = await listen({
      server,
      host: settings.host ?? '127.0.0.1',
      port: settings.port ?? 8088,
    });
  } catch (error) {
    if (ownCheckpoints)
      await rm(checkpointRoot, { recursive: true, force: true });
    throw error;
  }
  return {
    url: listening.url,
    port: listening.port,
    close() {
      closing ??= (async () => {
        await listening.close();
        const all = [...policies];
        policies.clear();
        await Promise.allSettled(all.map((policy) => policy.close()));
        if (ownCheckpoints)
          await rm(checkpointRoot, { recursive: true, force: true });
      })();
      return closing;
    },
  };
}

/** Codes that mean the request was wrong (a `user` failure, 400). */
const userCodes = new Set<string>([
  'INVALID_ARGUMENT',
  'INVALID_DATA',
  'INVALID_STATE',
  'NOT_FOUND',
  'FILE_NOT_FOUND',
  'SHAPE_MISMATCH',
  'MISSING_WEIGHT',
  'CONTEXT_LENGTH_EXCEEDED',
  'PAYLOAD_TOO_LARGE',
]);

function parse<T>(schema: z.ZodType<T>, value: unknown): T {
  const result = safeParseWithSchema({ schema, value, source: 'request body' });
  if (!result.success) throw result.error;
  return result.value;
}

/**
 * A finished future's value as protobuf, for the results SDK 0.25 asks for
 * that way: forward / forward_backward (`ForwardBackwardOutput`) and sample
 * (`SampleResponse`); undefined for every other result (sent as JSON).
 */
function protobufResult(value: unknown): Uint8Array | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  if ('loss_fn_outputs' in value && Array.isArray(value.loss_fn_outputs))
    return encodeTinkerForwardBackwardOutput(
      value as Parameters<typeof encodeTinkerForwardBackwardOutput>[0],
    );
  if ('sequences' in value && Array.isArray(value.sequences))
    return encodeTinkerSampleResponse(
      value as Parameters<typeof encodeTinkerSampleResponse>[0],
    );
  return undefined;
}

/** A request body as bytes; over `limit` is 413. */
function readBytes(request: IncomingMessage, limit: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    request.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size <= limit) chunks.push(chunk);
    });
    request.on('end', () =>
      size > limit
        ? reject(
            new HttpError({
              status: 413,
              message: `request body over ${limit} bytes`,
            }),
          )
        : resolve(Buffer.concat(chunks)),
    );
    request.on('error', reject);
  });
}

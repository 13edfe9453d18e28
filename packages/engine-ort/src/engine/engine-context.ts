import { availableParallelism } from 'node:os';
import type { MatmulPrecision } from '../graph/graph-builder';
import type { DecodeAttention } from '../model/graph-families';
import type { ModelConfig } from '../model/model-config';
import type { ExecutionProvider, WebGpuValidation } from './ort-session';
import { resolveResidency } from './device';
import type { LossScalingSettings, Precision } from './precision';
import type { PrefixCache } from './prefix-cache';
import type { ModelResidency } from './residency';
import type { SessionCache } from './session-cache';

/** Settings of an {@link OrtEngine}. */
export type OrtEngineSettings = {
  /** Execution provider. Default `cpu`. */
  executionProvider?: ExecutionProvider;
  /** Intra-op threads for training, scoring and prefill. Default: all cores. */
  threads?: number;
  /** Intra-op threads for decode steps at batch < 8 (tiny kernels prefer 1). Default 1. */
  decodeThreads?: number;
  /** Token budget of one training/scoring micro-batch (rows × bucket length). Default 2048. */
  microBatchTokens?: number;
  /**
   * Train rows that continue the same prefix with the shared-prefix graph:
   * the prefix's forward and backward run once for all of them (the
   * rollouts of one prompt share it; decision engine-011). A row's prefix is
   * its tokens before the first one with a loss weight; rows whose prefixes
   * are equal and at least 64 tokens long share it. The same loss and
   * gradients up to float summation order. Default false: a micro-batch is
   * 0.6–0.8× as long warm, but the shapes multiply (prefix × continuation ×
   * rows), and at the embedded default the extra sessions' creation and
   * first runs cost more than sharing saves (decision engine-011).
   */
  sharePrefixes?: boolean;
  /**
   * Run the final norm, the LM head and the log-softmax of a grad graph only
   * at the token slots with a loss weight (the generated tokens of a PPO
   * batch, the answer tokens of a cross-entropy one), gathered from the
   * decoder's output: up to an eighth, a quarter or half of a micro-batch's
   * slots, else all of them. The same loss and gradients up to float
   * summation order (decision engine-012). Default false: at the embedded
   * default's lengths (about 768 tokens a row) attention outweighs the
   * vocabulary, and a warm micro-batch gains 3–6% (up to 19% at 256
   * tokens), while any change of float order gives the default run another
   * trajectory, so it waits until the default run is verified again with it.
   */
  weightedSlotsOnly?: boolean;
  /** Most prompts decoded together; larger generate calls are split. Default 64. */
  maxGenerateBatch?: number;
  /**
   * Sessions kept alive (least recently used are released). Default 512:
   * decode and extend shapes vary with prompt lengths (a 12-step default run
   * meets about 175 of them), and rebuilding a session costs tens of
   * milliseconds. Generation sessions keep no memory arena, so each one
   * holds little: in that run, 512 instead of 96 created 196 sessions
   * instead of 345, spent 5.2 s instead of 9.7 s creating them, and peaked
   * 0.14 GB higher. The same graphs, so the same numbers.
   */
  maxSessions?: number;
  /**
   * Byte budget of the prefix cache: the keys and values of sequences already
   * generated, reused when a later prompt extends one (multi-turn episodes).
   * 0 disables it. Default 256 MiB.
   */
  prefixCacheBytes?: number;
  /**
   * Record where each node ran on the first session of every graph family
   * (ORT's profile of its first run), readable from
   * `OrtEngine.placements`. Default false: profiling slows that run.
   */
  recordPlacement?: boolean;
  /**
   * Keep the weights, the Adam moments and the gradient accumulators on the
   * device between runs: the optimizer's and the grad graph's outputs stay
   * device-located and are fed back as inputs, so a step moves only tokens
   * and scalars between host and device. The host copies (`currentWeights`,
   * `optimizerState`) are then refreshed by `OrtEngine.syncToHost`.
   * Generation's decode steps keep their KV cache on the device likewise and
   * read back only logits and each step's new keys and values.
   * Default: true on WebGPU, false on the CPU (where it runs the same code
   * with ORT-owned host tensors). Always false on CUDA, whatever is asked:
   * onnxruntime-node keeps outputs on the device for WebGPU only, so state
   * there is host-fed (`OrtEngine.residencyNote` says so; see
   * `resolveResidency`).
   */
  resident?: boolean;
  /**
   * How decode steps attend to the KV cache and write it (decision
   * engine-013): `where`, the engine's own attention with a `Where` that
   * writes the step's slot by copying the whole cache (engine-010); or
   * `gqa`, ONNX Runtime's `GroupQueryAttention`, which writes the slot in
   * place. Default: `where` on every device. `gqa` matches `where` on the
   * CPU EP, but ORT 1.30's WebGPU kernel gave log-probabilities 0.6–0.9 nats
   * off (and no speed-up) on an H200, and CUDA's `GroupQueryAttention` takes
   * only fp16/bf16 (our cache is fp32: the node would run on the CPU).
   */
  decodeAttention?: DecodeAttention;
  /**
   * Precision of the matrix products (projections, attention products, LM
   * head; forward and backward): `fp32` (default), or `fp16` / `bf16` with
   * the weights, Adam moments and update in fp32 (decision engine-008). On
   * the CPU EP the reduced products are emulated (rounding only, no speed-up);
   * `bf16` on WebGPU throws `BACKEND_UNAVAILABLE`.
   */
  precision?: Precision;
  /** Dynamic loss scaling of `fp16` training (ignored otherwise); defaults as PyTorch's `GradScaler`. */
  lossScaling?: Partial<LossScalingSettings>;
  /** The WebGPU EP's validation mode (see {@link SessionSettings.webgpuValidation}); default ORT's (`basic`). */
  webgpuValidation?: WebGpuValidation | undefined;
};

/** {@link OrtEngineSettings} with defaults applied (loss scaling is the loss scaler's, in `optimizer.ts`). */
export type ResolvedEngineSettings = Required<
  Omit<OrtEngineSettings, 'lossScaling' | 'webgpuValidation'>
> & {
  webgpuValidation: WebGpuValidation | undefined;
  /** Why `resident` is off on this device although it was asked for or is a GPU's default (CUDA); undefined otherwise. */
  residencyNote: string | undefined;
};

/** Applies the defaults of {@link OrtEngineSettings}. */
export function resolveEngineSettings(
  settings: OrtEngineSettings,
): ResolvedEngineSettings {
  const executionProvider = settings.executionProvider ?? 'cpu';
  const residency = resolveResidency({
    device: executionProvider,
    requested: settings.resident,
  });
  return {
    executionProvider,
    threads: settings.threads ?? availableParallelism(),
    decodeThreads: settings.decodeThreads ?? 1,
    microBatchTokens: settings.microBatchTokens ?? 2048,
    sharePrefixes: settings.sharePrefixes ?? false,
    weightedSlotsOnly: settings.weightedSlotsOnly ?? false,
    maxGenerateBatch: settings.maxGenerateBatch ?? 64,
    maxSessions: settings.maxSessions ?? 512,
    prefixCacheBytes: settings.prefixCacheBytes ?? 256 * 2 ** 20,
    recordPlacement: settings.recordPlacement ?? false,
    resident: residency.resident,
    residencyNote: residency.note,
    decodeAttention: settings.decodeAttention ?? 'where',
    precision: settings.precision ?? 'fp32',
    webgpuValidation: settings.webgpuValidation,
  };
}

/**
 * What the engine's parts share: the model, the settings, the session cache,
 * the weights and Adam state (host and resident) and the prefix cache. The
 * score, train and generate modules take it; `OrtEngine` composes it.
 */
export type EngineContext = {
  readonly config: ModelConfig;
  readonly settings: ResolvedEngineSettings;
  /** How the reduced-precision products run; undefined for fp32. */
  readonly matmulPrecision: MatmulPrecision | undefined;
  readonly sessions: SessionCache;
  readonly residency: ModelResidency;
  /** Keys and values of earlier generations; valid for the current weights only, so cleared whenever they change. */
  readonly prefixCache: PrefixCache;
};

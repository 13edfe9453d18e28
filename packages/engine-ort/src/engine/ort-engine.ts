import { SealError, type PolicyV1TrainResult } from '@seal/spec';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  buildGradGraph,
  buildOptimizerGraph,
  buildScoreGraph,
  buildSharedPrefixGradGraph,
  scoredSlots,
  type BuiltGraph,
  type SequenceBucket,
  type SharedPrefixBucket,
  type TrainObjective,
} from '../model/graph-families';
import type { ModelConfig } from '../model/model-config';
import { FlatTensors, listWeightSpecs, size } from '../model/model-weights';
import {
  generateChunk,
  type EngineGenerateOptions,
  type EngineGeneration,
  type GenerationRuntime,
} from './generate-chunk';
import {
  PrefixCache,
  prefixMaxNewTokens,
  prefixMinTokens,
} from './prefix-cache';
import {
  buildSequenceFeeds,
  buildSharedPrefixFeeds,
  lengthBucket,
  type SequenceFeeds,
  nextPowerOfTwo,
} from './sequence-feeds';
import {
  createOrtSession,
  floatTensor,
  ort,
  type ExecutionProvider,
  type WebGpuValidation,
} from './ort-session';
import { readPlacementProfile, type GraphPlacement } from './placement';
import {
  matmulPrecisionFor,
  nextLossScale,
  resolveLossScaling,
  type LossScaleState,
  type LossScalingSettings,
  type Precision,
} from './precision';
import type { MatmulPrecision } from '../graph/graph-builder';
import {
  buildCopyGraph,
  disposeTensors,
  pickTensors,
  prefixTensors,
  residentGroups,
  type ResidentState,
  type TensorSet,
} from './resident-weights';

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
   * {@link OrtEngine.placements}. Default false: profiling slows that run.
   */
  recordPlacement?: boolean;
  /**
   * Keep the weights, the Adam moments and the gradient accumulators on the
   * device between runs: the optimizer's and the grad graph's outputs stay
   * device-located and are fed back as inputs, so a step moves only tokens
   * and scalars between host and device. The host copies (`currentWeights`,
   * `optimizerState`) are then refreshed by {@link OrtEngine.syncToHost}.
   * Generation's decode steps keep their KV cache on the device likewise and
   * read back only logits and each step's new keys and values.
   * Default: true on a GPU, false on the CPU (where it runs the same code
   * with ORT-owned host tensors).
   */
  resident?: boolean;
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

/** One training sequence, validated, all arrays aligned with `tokenIds`. */
export type EngineTrainSequence = {
  tokenIds: readonly number[];
  tokenWeights: readonly number[];
  advantages?: readonly number[] | undefined;
  oldLogprobs?: readonly number[] | undefined;
  refLogprobs?: readonly number[] | undefined;
};

/** Loss and optimizer settings with defaults applied. */
export type EngineTrainSettings = {
  learningRate: number;
  clipLow: number;
  clipHigh: number;
  dualClipC: number;
  klCoef: number;
  maxGradNorm: number;
  weightDecay: number;
  /** Learning-rate multiplier of the embedding tensors (0 freezes them; default 1). */
  embeddingLearningRateScale?: number;
  /**
   * Learning-rate multiplier of the final norm's gain, which scales every
   * logit (the policy's inverse temperature; default 1).
   */
  outputNormLearningRateScale?: number;
  /**
   * Learning-rate multiplier of the other norm gains and the biases
   * (default 1).
   */
  vectorLearningRateScale?: number;
  /**
   * The final norm's gain moves only as a whole: one scale for every logit,
   * stepped multiplicatively (default false: each element on its own).
   */
  outputNormUniform?: boolean;
  betas: [number, number];
  eps: number;
  /** The loss's log-probabilities are those of `softmax(logits / temperature)`. */
  temperature: number;
};

/** The outcome of one training step: the policy contract's result, field for field. */
export type EngineTrainResult = PolicyV1TrainResult;

export type { EngineGenerateOptions, EngineGeneration };

type Session = ort.InferenceSession;

/** Adam state and step counter. */
type OptimizerState = { m: FlatTensors; v: FlatTensors; step: number };

/**
 * The in-process policy engine: owns the weights (one flat buffer with a view
 * per tensor, plus a spare buffer for ping-pong updates), the Adam moments,
 * and a cache of ORT sessions keyed by graph family and shape bucket. All
 * methods are sequential; run it inside a worker to keep the event loop free.
 */
export class OrtEngine {
  /** The model description. */
  readonly config: ModelConfig;
  private weights: FlatTensors;
  private spareWeights: FlatTensors;
  private optimizer: OptimizerState;
  private spareMoments: { m: FlatTensors; v: FlatTensors };
  private accumulators: [FlatTensors, FlatTensors] | undefined;
  private readonly sessions = new Map<string, Promise<Session>>();
  private readonly settings: Required<
    Omit<OrtEngineSettings, 'lossScaling' | 'webgpuValidation'>
  > & { webgpuValidation: WebGpuValidation | undefined };
  /** How the reduced-precision products run; undefined for fp32. */
  readonly matmulPrecision: MatmulPrecision | undefined;
  private readonly lossScaling: LossScalingSettings;
  /** The loss scaler's state (fp16 only). */
  private lossScale: LossScaleState | undefined;
  private readonly tensorCache = new WeakMap<
    FlatTensors,
    Record<string, ort.Tensor>
  >();
  /** The device-resident state (with `resident`), uploaded at first use; undefined until then and after the host copies change. */
  private residentState: ResidentState | undefined;
  /** Whether the host copies of weights and moments are behind the resident state. */
  private hostStale = false;
  /** The copy graphs' sessions, outside the LRU: their outputs may live as long as the engine. */
  private readonly copySessions = new Map<
    'upload' | 'download',
    Promise<Session>
  >();
  /** Placements recorded so far, by graph family (with `recordPlacement`). */
  private readonly placementsByFamily = new Map<string, GraphPlacement>();
  /** Keys and values of earlier generations; valid for the current weights only, so cleared whenever they change. */
  private readonly prefixCache: PrefixCache;

  constructor({
    config,
    weights,
    settings = {},
  }: {
    config: ModelConfig;
    weights: FlatTensors;
    settings?: OrtEngineSettings;
  }) {
    this.config = config;
    this.weights = weights;
    this.spareWeights = new FlatTensors(weights.specs);
    const specs = weights.specs;
    this.optimizer = {
      m: new FlatTensors(specs),
      v: new FlatTensors(specs),
      step: 0,
    };
    this.spareMoments = {
      m: new FlatTensors(specs),
      v: new FlatTensors(specs),
    };
    this.settings = {
      executionProvider: settings.executionProvider ?? 'cpu',
      threads: settings.threads ?? availableParallelism(),
      decodeThreads: settings.decodeThreads ?? 1,
      microBatchTokens: settings.microBatchTokens ?? 2048,
      sharePrefixes: settings.sharePrefixes ?? false,
      weightedSlotsOnly: settings.weightedSlotsOnly ?? false,
      maxGenerateBatch: settings.maxGenerateBatch ?? 64,
      maxSessions: settings.maxSessions ?? 512,
      prefixCacheBytes: settings.prefixCacheBytes ?? 256 * 2 ** 20,
      recordPlacement: settings.recordPlacement ?? false,
      resident:
        settings.resident ?? (settings.executionProvider ?? 'cpu') !== 'cpu',
      precision: settings.precision ?? 'fp32',
      webgpuValidation: settings.webgpuValidation,
    };
    this.matmulPrecision = matmulPrecisionFor({
      precision: this.settings.precision,
      executionProvider: this.settings.executionProvider,
    });
    this.lossScaling = resolveLossScaling(settings.lossScaling);
    this.lossScale =
      this.settings.precision === 'fp16'
        ? { scale: this.lossScaling.initialScale, goodSteps: 0 }
        : undefined;
    this.prefixCache = new PrefixCache(this.settings.prefixCacheBytes);
  }

  // ------------------------------------------------------------------ state

  /**
   * The current weights (views into the live buffer; copy before keeping).
   * With `resident`, call {@link OrtEngine.syncToHost} first.
   */
  get currentWeights(): FlatTensors {
    return this.weights;
  }

  /** Optimizer moments and step. */
  get optimizerState(): Readonly<OptimizerState> {
    return this.optimizer;
  }

  /** Precision of the matrix products. */
  get precision(): Precision {
    return this.settings.precision;
  }

  /** The loss scaler's state (a copy); undefined unless the precision is fp16. */
  get lossScaleState(): LossScaleState | undefined {
    return this.lossScale === undefined ? undefined : { ...this.lossScale };
  }

  /**
   * Replaces the loss scaler's state (from a checkpoint); undefined restarts
   * it at the initial scale. Ignored unless the precision is fp16.
   */
  setLossScaleState(state: LossScaleState | undefined): void {
    if (this.lossScale === undefined) return;
    if (
      state !== undefined &&
      !(
        Number.isFinite(state.scale) &&
        state.scale > 0 &&
        Number.isInteger(state.goodSteps) &&
        state.goodSteps >= 0
      )
    ) {
      throw new SealError({
        code: 'INVALID_ARGUMENT',
        message: `loss scale state must have a positive scale and a count of good steps, got ${JSON.stringify(state)}`,
      });
    }
    this.lossScale =
      state === undefined
        ? { scale: this.lossScaling.initialScale, goodSteps: 0 }
        : { ...state };
  }

  /** Replaces the weights (copied). */
  setWeights(weights: FlatTensors): void {
    this.syncBeforeHostWrite();
    this.weights.buffer.set(weights.buffer);
    this.dropResident();
    this.prefixCache.clear();
  }

  /** Empties the prefix cache: the next generation prefills every prompt from its first token. */
  clearPrefixCache(): void {
    this.prefixCache.clear();
  }

  /** Prompts served from the prefix cache and the prompt tokens they reused. */
  get prefixCacheStats(): Readonly<{ hits: number; reusedTokens: number }> {
    return { ...this.prefixCache.stats };
  }

  /** Replaces the optimizer state (copied). */
  setOptimizerState({
    m,
    v,
    step,
  }: {
    m: Float32Array;
    v: Float32Array;
    step: number;
  }): void {
    this.syncBeforeHostWrite();
    this.dropResident();
    this.optimizer.m.buffer.set(m);
    this.optimizer.v.buffer.set(v);
    this.optimizer.step = step;
  }

  /**
   * Builds the session for a graph family once per shape bucket. Generation
   * graphs (prefill, decode) pass `memoryArena: false`: their shapes vary with
   * every batch of prompts, and an arena per session keeps each one's peak (a
   * 64-row prefill holds GiBs of attention scores), so a long run grew past
   * 13 GiB; without it memory goes back after each run, at no measured cost to
   * generation speed. Training and scoring keep the arena (30% faster steps;
   * decision 0011).
   */
  private session(
    key: string,
    build: () => BuiltGraph,
    threads: number,
    {
      memoryArena = true,
      deviceOutputs,
    }: { memoryArena?: boolean; deviceOutputs?: readonly string[] } = {},
  ): Promise<Session> {
    const cached = this.sessions.get(key);
    if (cached !== undefined) {
      // Refresh LRU order.
      this.sessions.delete(key);
      this.sessions.set(key, cached);
      return cached;
    }
    // The first session of each graph family is profiled for its first run
    // only, to record where its nodes ran.
    const family = key.split(':')[0]!;
    const profileDirectory =
      this.settings.recordPlacement && !this.placementsByFamily.has(family)
        ? mkdtempSync(join(tmpdir(), 'seal-placement-'))
        : undefined;
    if (profileDirectory !== undefined) {
      this.placementsByFamily.set(family, {
        family,
        key,
        device: this.settings.executionProvider,
        nodes: [],
      });
    }
    const created = createOrtSession({
      model: build().model,
      settings: {
        executionProvider: this.settings.executionProvider,
        threads,
        optimizationLevel: 'all',
        memoryArena,
        ...(deviceOutputs === undefined ? {} : { deviceOutputs }),
        ...(this.settings.webgpuValidation === undefined
          ? {}
          : { webgpuValidation: this.settings.webgpuValidation }),
        ...(profileDirectory === undefined
          ? {}
          : { profileFilePrefix: join(profileDirectory, 'profile') }),
      },
    }).then((session) =>
      profileDirectory === undefined
        ? session
        : this.recordFirstRun({ session, family, profileDirectory }),
    );
    created.catch(() => this.sessions.delete(key));
    this.sessions.set(key, created);
    while (this.sessions.size > this.settings.maxSessions) {
      const oldest = this.sessions.keys().next().value!;
      const evicted = this.sessions.get(oldest)!;
      this.sessions.delete(oldest);
      void evicted.then((session) => session.release()).catch(() => undefined);
    }
    return created;
  }

  /**
   * Wraps the session's `run` so that its first run ends profiling, reads
   * where each node ran and removes the profile.
   */
  private recordFirstRun({
    session,
    family,
    profileDirectory,
  }: {
    session: Session;
    family: string;
    profileDirectory: string;
  }): Session {
    const run = session.run.bind(session);
    session.run = (async (...args: Parameters<Session['run']>) => {
      session.run = run;
      let output: Awaited<ReturnType<Session['run']>>;
      try {
        output = await run(...args);
      } finally {
        session.endProfiling();
      }
      try {
        const file = readdirSync(profileDirectory).find((name) =>
          name.endsWith('.json'),
        );
        const nodes =
          file === undefined
            ? []
            : readPlacementProfile(
                readFileSync(join(profileDirectory, file), 'utf8'),
              );
        this.placementsByFamily.set(family, {
          ...this.placementsByFamily.get(family)!,
          nodes,
        });
      } finally {
        rmSync(profileDirectory, { recursive: true, force: true });
      }
      return output;
    }) as Session['run'];
    return session;
  }

  /**
   * Where the nodes of each graph family ran, recorded on the family's first
   * session (with the `recordPlacement` setting), in order of first use.
   */
  get placements(): GraphPlacement[] {
    return [...this.placementsByFamily.values()].filter(
      (placement) => placement.nodes.length > 0,
    );
  }

  /** The execution provider this engine runs on. */
  get executionProvider(): ExecutionProvider {
    return this.settings.executionProvider;
  }

  // ------------------------------------------------------------------ resident state

  /**
   * The weight feeds of a run: the resident weights (uploaded at first use)
   * with `resident`, else tensors over the host buffer.
   */
  private async modelWeightFeeds(): Promise<TensorSet> {
    return this.settings.resident
      ? (await this.resident()).weights
      : this.weightFeeds(this.weights);
  }

  private copySession(kind: 'upload' | 'download'): Promise<Session> {
    let session = this.copySessions.get(kind);
    if (session === undefined) {
      const groups =
        kind === 'upload' ? residentGroups : residentGroups.slice(0, 3);
      const graph = buildCopyGraph({ specs: this.weights.specs, groups });
      session = createOrtSession({
        model: graph.model,
        settings: {
          executionProvider: this.settings.executionProvider,
          threads: this.settings.threads,
          optimizationLevel: 'disabled',
          memoryArena: false,
          ...(kind === 'upload' ? { deviceOutputs: graph.outputs } : {}),
        },
      });
      session.catch(() => this.copySessions.delete(kind));
      this.copySessions.set(kind, session);
    }
    return session;
  }

  /** The resident state, uploading the host weights and moments (and the zeros) if it is not there. */
  private async resident(): Promise<ResidentState> {
    if (this.residentState !== undefined) return this.residentState;
    const session = await this.copySession('upload');
    const zeros = new FlatTensors(this.weights.specs);
    const sources = {
      weights: this.weights,
      m: this.optimizer.m,
      v: this.optimizer.v,
      zeros,
    };
    const feeds: TensorSet = {};
    for (const group of residentGroups)
      Object.assign(
        feeds,
        prefixTensors(this.weightFeeds(sources[group]), `in.${group}.`),
      );
    const output = await session.run(feeds);
    const specs = this.weights.specs;
    const pick = (group: string): TensorSet =>
      pickTensors({ output, prefix: `out.${group}.`, specs });
    this.residentState = {
      weights: pick('weights'),
      m: pick('m'),
      v: pick('v'),
      zeros: pick('zeros'),
    };
    return this.residentState;
  }

  /**
   * Reads the resident weights and Adam moments back into the host buffers
   * (`currentWeights`, `optimizerState`), through a graph with host-located
   * outputs. Nothing to do without `resident` or when the host is current.
   */
  async syncToHost(): Promise<void> {
    const state = this.residentState;
    if (state === undefined || !this.hostStale) return;
    const session = await this.copySession('download');
    const feeds: TensorSet = {
      ...prefixTensors(state.weights, 'in.weights.'),
      ...prefixTensors(state.m, 'in.m.'),
      ...prefixTensors(state.v, 'in.v.'),
    };
    const fetches: Record<string, ort.Tensor> = {
      ...prefixTensors(this.weightFeeds(this.weights), 'out.weights.'),
      ...prefixTensors(this.weightFeeds(this.optimizer.m), 'out.m.'),
      ...prefixTensors(this.weightFeeds(this.optimizer.v), 'out.v.'),
    };
    await session.run(feeds, fetches);
    this.hostStale = false;
  }

  private syncBeforeHostWrite(): void {
    // A partial host write (weights only, or moments only) over stale host
    // copies would lose the other half; callers replace both or sync first.
    if (this.hostStale) {
      throw new SealError({
        code: 'INTERNAL',
        message:
          'OrtEngine: the host copies are behind the resident state; call syncToHost() before setWeights/setOptimizerState',
      });
    }
  }

  /** Forgets the resident state (the host copies are current), so the next run uploads again. */
  private dropResident(): void {
    if (this.residentState === undefined) return;
    const { weights, m, v, zeros } = this.residentState;
    disposeTensors(weights, m, v, zeros);
    this.residentState = undefined;
    this.hostStale = false;
  }

  /** Releases every session. */
  async close(): Promise<void> {
    // GPU tensors go before the sessions that made them (onnxruntime-node 1.30).
    if (this.residentState !== undefined) {
      const { weights, m, v, zeros } = this.residentState;
      disposeTensors(weights, m, v, zeros);
      this.residentState = undefined;
    }
    for (const session of this.copySessions.values()) {
      try {
        await (await session).release();
      } catch {
        // A session that failed to build has nothing to release.
      }
    }
    this.copySessions.clear();
    const sessions = [...this.sessions.values()];
    this.sessions.clear();
    for (const session of sessions) {
      try {
        await (await session).release();
      } catch {
        // A session that failed to build has nothing to release.
      }
    }
  }

  private weightFeeds(
    weights: FlatTensors,
    prefix = '',
  ): Record<string, ort.Tensor> {
    let cached = this.tensorCache.get(weights);
    if (cached === undefined) {
      cached = {};
      for (const spec of weights.specs)
        cached[spec.name] = floatTensor(weights.get(spec.name), spec.shape);
      this.tensorCache.set(weights, cached);
    }
    if (prefix === '') return cached;
    return Object.fromEntries(
      Object.entries(cached).map(([name, tensor]) => [
        `${prefix}${name}`,
        tensor,
      ]),
    );
  }

  // ------------------------------------------------------------------ batching

  /** Groups sequences (longest first) into micro-batches of at most `microBatchTokens`. */
  private microBatches(
    lengths: readonly number[],
    bucketOf: (length: number) => number = lengthBucket,
  ): Array<{ bucket: SequenceBucket; indices: number[] }> {
    const order = lengths
      .map((_, i) => i)
      .sort((a, b) => lengths[b]! - lengths[a]! || a - b);
    const groups: Array<{ bucket: SequenceBucket; indices: number[] }> = [];
    let position = 0;
    while (position < order.length) {
      const length = bucketOf(lengths[order[position]!]!);
      const maxRows = Math.max(
        1,
        2 **
          Math.floor(
            Math.log2(Math.max(1, this.settings.microBatchTokens / length)),
          ),
      );
      const indices = order.slice(position, position + maxRows);
      position += indices.length;
      groups.push({
        bucket: {
          batch: Math.min(nextPowerOfTwo(indices.length), maxRows),
          length,
        },
        indices,
      });
    }
    return groups;
  }

  /**
   * The micro-batches of a training batch. With `sharePrefixes`, rows whose
   * tokens before their first weighted one are equal (and at least
   * {@link minSharedPrefix} long) go to the shared-prefix graph, each
   * cut to its continuation; the other rows, and all of them without it, go
   * to the plain grad graph in {@link microBatches}.
   */
  private trainMicroBatches(
    sequences: readonly EngineTrainSequence[],
  ): TrainMicroBatch[] {
    const plain: number[] = [];
    const groups = new Map<string, number[]>();
    sequences.forEach((sequence, i) => {
      const prefixLength = this.settings.sharePrefixes
        ? weightlessPrefixLength(sequence)
        : 0;
      if (prefixLength < minSharedPrefix) {
        plain.push(i);
        return;
      }
      const key = sequence.tokenIds.slice(0, prefixLength).join(',');
      groups.set(key, [...(groups.get(key) ?? []), i]);
    });
    const batches: TrainMicroBatch[] = [];
    for (const members of groups.values()) {
      if (members.length < 2) {
        plain.push(...members);
        continue;
      }
      const first = sequences[members[0]!]!;
      const prefixLength = weightlessPrefixLength(first);
      const prefix = first.tokenIds.slice(0, prefixLength);
      const continuations = members.map((i) =>
        continuationOf(sequences[i]!, prefixLength),
      );
      // Coarser buckets than the plain graph's: every shape is a session
      // with its own arena, and prefix × continuation × rows shapes multiply.
      for (const { bucket, indices } of this.microBatches(
        continuations.map((row) => row.tokenIds.length),
        sharedBucket,
      )) {
        batches.push({
          bucket,
          rows: indices.map((k) => continuations[k]!),
          prefix,
          prefixBucket: sharedBucket(prefixLength),
        });
      }
    }
    plain.sort((a, b) => a - b);
    for (const { bucket, indices } of this.microBatches(
      plain.map((i) => sequences[i]!.tokenIds.length),
    )) {
      batches.push({ bucket, rows: indices.map((k) => sequences[plain[k]!]!) });
    }
    return batches;
  }

  private checkTokens(sequence: readonly number[], where: string): void {
    for (const id of sequence) {
      if (!Number.isInteger(id) || id < 0 || id >= this.config.vocabSize) {
        throw new SealError({
          code: 'INVALID_ARGUMENT',
          message: `${where}: token id ${id} is outside the model vocabulary [0, ${this.config.vocabSize})`,
        });
      }
    }
    if (sequence.length > this.config.maxPositionEmbeddings) {
      throw new SealError({
        code: 'INVALID_ARGUMENT',
        message: `${where}: ${sequence.length} tokens exceed the model's ${this.config.maxPositionEmbeddings} positions`,
      });
    }
  }

  // ------------------------------------------------------------------ score

  /**
   * Per-token log-probabilities aligned with each sequence (`[0] = 0`), under
   * `softmax(logits / temperature)` (default 1).
   */
  async score(
    sequences: ReadonlyArray<readonly number[]>,
    { temperature = 1 }: { temperature?: number } = {},
  ): Promise<number[][]> {
    checkTemperature(temperature, 'score');
    sequences.forEach((sequence, i) =>
      this.checkTokens(sequence, `sequences[${i}]`),
    );
    const inverseTemperature = inverseTemperatureTensor(temperature);
    const results: number[][] = sequences.map((sequence) =>
      new Array<number>(sequence.length).fill(0),
    );
    for (const { bucket, indices } of this.microBatches(
      sequences.map((s) => s.length),
    )) {
      const session = await this.session(
        `score:${bucket.batch}:${bucket.length}`,
        () =>
          buildScoreGraph({
            config: this.config,
            bucket,
            matmulPrecision: this.matmulPrecision,
          }),
        this.settings.threads,
      );
      const rows = indices.map((i) => sequences[i]!);
      const feeds = this.sequenceFeedTensors(bucket, rows);
      const output = await session.run({
        ...(await this.modelWeightFeeds()),
        ...feeds,
        inverse_temperature: inverseTemperature,
      });
      const logprobs = output.logprobs!.data as Float32Array;
      indices.forEach((index, row) => {
        const out = results[index]!;
        for (let t = 1; t < out.length; t++)
          out[t] = logprobs[row * bucket.length + t - 1]!;
      });
    }
    return results;
  }

  /** The rows' tensors; with `slots` (`bucket.selected` of them), also `slots` and their targets only. */
  private sequenceFeedTensors(
    bucket: SequenceBucket,
    rows: ReadonlyArray<readonly number[]>,
    slots?: Int32Array,
  ): Record<string, ort.Tensor> {
    const feeds = buildSequenceFeeds({
      config: this.config,
      bucket,
      sequences: rows,
      floatType: 'float32',
    });
    const tensors = this.rowTensors(bucket, feeds, bucket.length);
    if (slots === undefined) return tensors;
    const targets = new BigInt64Array(slots.length);
    const indices = new BigInt64Array(slots.length);
    slots.forEach((slot, k) => {
      targets[k] = feeds.targets[slot]!;
      indices[k] = BigInt(slot);
    });
    return {
      ...tensors,
      targets: new ort.Tensor('int64', targets, [slots.length, 1]),
      slots: new ort.Tensor('int64', indices, [slots.length]),
    };
  }

  /** The rows' `input_ids`, `targets`, RoPE tables and bias (over `keys` key slots) as tensors. */
  private rowTensors(
    { batch, length }: SequenceBucket,
    feeds: SequenceFeeds,
    keys: number,
  ): Record<string, ort.Tensor> {
    const half = this.config.headDim / 2;
    return {
      input_ids: new ort.Tensor('int64', feeds.inputIds, [batch * length]),
      targets: new ort.Tensor('int64', feeds.targets, [batch * length, 1]),
      rope_cos: floatTensor(feeds.cos, [batch, length, 1, half]),
      rope_sin: floatTensor(feeds.sin, [batch, length, 1, half]),
      attention_bias: floatTensor(feeds.bias, [batch, 1, 1, length, keys]),
    };
  }

  private sharedPrefixFeedTensors(
    bucket: SharedPrefixBucket,
    prefix: readonly number[],
    rows: ReadonlyArray<readonly number[]>,
  ): Record<string, ort.Tensor> {
    const feeds = buildSharedPrefixFeeds({
      config: this.config,
      bucket,
      prefix,
      rows,
      floatType: 'float32',
    });
    const slots = bucket.prefix;
    const half = this.config.headDim / 2;
    return {
      prefix_ids: new ort.Tensor('int64', feeds.prefixIds, [slots]),
      prefix_cos: floatTensor(feeds.prefixCos, [1, slots, 1, half]),
      prefix_sin: floatTensor(feeds.prefixSin, [1, slots, 1, half]),
      prefix_bias: floatTensor(feeds.prefixBias, [1, 1, 1, slots, slots]),
      ...this.rowTensors(bucket, feeds, slots + bucket.length),
    };
  }

  // ------------------------------------------------------------------ train

  /**
   * One optimizer step: gradients accumulated over micro-batches, then
   * global-norm clipping and AdamW into the spare buffers, which become
   * current only when the loss and the gradient norm are finite.
   */
  async train({
    objective,
    sequences,
    settings,
  }: {
    objective: TrainObjective;
    sequences: readonly EngineTrainSequence[];
    settings: EngineTrainSettings;
  }): Promise<EngineTrainResult> {
    this.validateTrainBatch(objective, sequences, settings);
    const specs = this.weights.specs;
    this.accumulators ??= [new FlatTensors(specs), new FlatTensors(specs)];
    let [accumulatorIn, accumulatorOut] = this.accumulators;
    accumulatorIn.buffer.fill(0);
    let loss = 0;
    let sumClipped = 0;
    let sumRatio = 0;
    let sumKl = 0;
    let sumNll = 0;
    let weightSum = 0;
    let tokens = 0;
    for (const sequence of sequences) {
      for (let t = 1; t < sequence.tokenWeights.length; t++) {
        weightSum += sequence.tokenWeights[t]!;
        if (sequence.tokenWeights[t] !== 0) tokens++;
      }
    }
    // With `resident`, the accumulated gradients are the grad graph's
    // device-located outputs, fed to the next micro-batch; the first one
    // adds to the resident zeros.
    const resident = this.settings.resident ? await this.resident() : undefined;
    let residentGradients: TensorSet | undefined;
    const gradientNames = specs.map((spec) => `grad.${spec.name}`);
    for (const microBatch of this.trainMicroBatches(sequences)) {
      const { rows } = microBatch;
      const slots =
        microBatch.prefix === undefined && this.settings.weightedSlotsOnly
          ? weightedSlots(microBatch.bucket, rows)
          : undefined;
      const bucket: SequenceBucket =
        slots === undefined
          ? microBatch.bucket
          : { ...microBatch.bucket, selected: slots.length };
      const lossScaling = this.lossScale !== undefined;
      const session = await this.session(
        microBatch.prefix === undefined
          ? slots === undefined
            ? `grad-${objective}:${bucket.batch}:${bucket.length}`
            : `grad-${objective}-slots:${bucket.batch}:${bucket.length}:${slots.length}`
          : `grad-shared-${objective}:${microBatch.prefixBucket}:${bucket.batch}:${bucket.length}`,
        () =>
          microBatch.prefix === undefined
            ? buildGradGraph({
                config: this.config,
                bucket,
                objective,
                matmulPrecision: this.matmulPrecision,
                lossScaling,
              })
            : buildSharedPrefixGradGraph({
                config: this.config,
                bucket: { prefix: microBatch.prefixBucket, ...bucket },
                objective,
                matmulPrecision: this.matmulPrecision,
                lossScaling,
              }),
        this.settings.threads,
        resident === undefined ? {} : { deviceOutputs: gradientNames },
      );
      const tokenRows = rows.map((row) => row.tokenIds);
      const feeds: Record<string, ort.Tensor> = {
        ...(resident === undefined
          ? this.weightFeeds(this.weights)
          : resident.weights),
        ...(resident === undefined
          ? this.weightFeeds(accumulatorIn, 'acc.')
          : prefixTensors(residentGradients ?? resident.zeros, 'acc.')),
        ...(microBatch.prefix === undefined
          ? this.sequenceFeedTensors(bucket, tokenRows, slots)
          : this.sharedPrefixFeedTensors(
              { prefix: microBatch.prefixBucket, ...bucket },
              microBatch.prefix,
              tokenRows,
            )),
        ...this.lossFeeds({ objective, bucket, rows, settings, slots }),
        ...(this.lossScale === undefined
          ? {}
          : {
              loss_scale: floatTensor(
                Float32Array.of(this.lossScale.scale),
                [],
              ),
            }),
      };
      let output: Record<string, ort.Tensor>;
      if (resident === undefined) {
        const fetches: Record<string, ort.Tensor | null> = {
          loss: null,
          sum_clipped: null,
          sum_ratio: null,
          sum_kl: null,
          sum_nll: null,
          ...this.weightFeeds(accumulatorOut, 'grad.'),
        };
        output = await session.run(feeds, fetches);
        [accumulatorIn, accumulatorOut] = [accumulatorOut, accumulatorIn];
      } else {
        output = await session.run(feeds);
        disposeTensors(residentGradients);
        residentGradients = pickTensors({ output, prefix: 'grad.', specs });
      }
      const scalar = (name: string): number =>
        Number((output[name]!.data as Float32Array)[0]);
      loss += scalar('loss');
      sumClipped += scalar('sum_clipped');
      sumRatio += scalar('sum_ratio');
      sumKl += scalar('sum_kl');
      sumNll += scalar('sum_nll');
    }
    const normaliser = weightSum === 0 ? 1 : weightSum;
    const metrics = {
      clipFraction: sumClipped / normaliser,
      kl: sumKl / normaliser,
      ratioMean: sumRatio / normaliser,
      negativeLogLikelihood: sumNll / normaliser,
      tokens,
    };
    const skipped = (gradNorm: number): EngineTrainResult => ({
      loss,
      gradNorm,
      skipped: true,
      step: this.optimizer.step,
      metrics,
    });
    let gradNorm: number;
    try {
      if (!Number.isFinite(loss)) return skipped(Number.NaN);
      gradNorm =
        residentGradients === undefined
          ? await this.applyOptimizer({ gradients: accumulatorIn, settings })
          : await this.applyResidentOptimizer({
              gradients: residentGradients,
              settings,
            });
    } finally {
      disposeTensors(residentGradients);
    }
    // Dynamic loss scaling: inf/nan gradients under a finite loss are an
    // overflow of the scaled gradients (the step was skipped): shrink the scale.
    if (this.lossScale !== undefined)
      this.lossScale = nextLossScale(
        this.lossScale,
        Number.isFinite(gradNorm),
        this.lossScaling,
      );
    if (!Number.isFinite(gradNorm)) return skipped(gradNorm);
    return {
      loss,
      gradNorm,
      skipped: false,
      step: this.optimizer.step,
      metrics,
    };
  }

  private lossFeeds({
    objective,
    bucket,
    rows,
    settings,
    slots,
  }: {
    objective: TrainObjective;
    bucket: SequenceBucket;
    rows: readonly EngineTrainSequence[];
    settings: EngineTrainSettings;
    /** The scored slots of a `bucket.selected` graph; the per-token inputs are theirs only. */
    slots?: Int32Array | undefined;
  }): Record<string, ort.Tensor> {
    const tokens = bucket.batch * bucket.length;
    // Slot t of a row predicts token t + 1, so per-token arrays shift by one.
    const shifted = (
      pick: (row: EngineTrainSequence) => readonly number[] | undefined,
    ): Float32Array => {
      const out = new Float32Array(tokens);
      rows.forEach((row, r) => {
        const values = pick(row);
        if (values === undefined) return;
        for (let t = 1; t < row.tokenIds.length; t++)
          out[r * bucket.length + t - 1] = values[t]!;
      });
      return slots === undefined
        ? out
        : Float32Array.from(slots, (slot) => out[slot]!);
    };
    const feeds: Record<string, ort.Tensor> = {
      token_weights: floatTensor(
        shifted((row) => row.tokenWeights),
        [scoredSlots(bucket)],
      ),
      inverse_temperature: inverseTemperatureTensor(settings.temperature),
    };
    if (objective === 'ppo') {
      const scalar = (x: number): ort.Tensor =>
        floatTensor(Float32Array.of(x), []);
      feeds.advantages = floatTensor(
        shifted((row) => row.advantages),
        [scoredSlots(bucket)],
      );
      feeds.old_logprobs = floatTensor(
        shifted((row) => row.oldLogprobs),
        [scoredSlots(bucket)],
      );
      feeds.ref_logprobs = floatTensor(
        shifted((row) => row.refLogprobs ?? row.oldLogprobs),
        [scoredSlots(bucket)],
      );
      feeds.clip_low = scalar(settings.clipLow);
      feeds.clip_high = scalar(settings.clipHigh);
      // An infinite cap would make -A·c = NaN at A = 0; 1e30 is "no cap" in fp32.
      feeds.dual_clip = scalar(Math.min(settings.dualClipC, 1e30));
      feeds.kl_coef = scalar(settings.klCoef);
    }
    return feeds;
  }

  private validateTrainBatch(
    objective: TrainObjective,
    sequences: readonly EngineTrainSequence[],
    settings: EngineTrainSettings,
  ): void {
    if (sequences.length === 0) {
      throw new SealError({
        code: 'INVALID_ARGUMENT',
        message: 'train: the batch is empty',
      });
    }
    checkTemperature(settings.temperature, 'train');
    sequences.forEach((sequence, i) => {
      const where = `sequences[${i}]`;
      this.checkTokens(sequence.tokenIds, where);
      const n = sequence.tokenIds.length;
      if (n < 2) {
        throw new SealError({
          code: 'INVALID_ARGUMENT',
          message: `${where}: needs at least 2 tokens`,
        });
      }
      const check = (
        name: string,
        values: readonly number[] | undefined,
        required: boolean,
      ): void => {
        if (values === undefined) {
          if (required) {
            throw new SealError({
              code: 'INVALID_ARGUMENT',
              message: `${where}.${name} is required for objective '${objective}'`,
            });
          }
          return;
        }
        if (values.length !== n) {
          throw new SealError({
            code: 'SHAPE_MISMATCH',
            message: `${where}.${name} has ${values.length} entries but tokenIds has ${n}`,
            details: { field: name, length: values.length, expected: n },
          });
        }
      };
      check('tokenWeights', sequence.tokenWeights, true);
      const ppo = objective === 'ppo';
      check('advantages', sequence.advantages, ppo);
      check('oldLogprobs', sequence.oldLogprobs, ppo);
      check('refLogprobs', sequence.refLogprobs, ppo && settings.klCoef > 0);
    });
  }

  private async applyOptimizer({
    gradients,
    settings,
  }: {
    gradients: FlatTensors;
    settings: EngineTrainSettings;
  }): Promise<number> {
    const session = await this.session(
      'optimizer',
      () => buildOptimizerGraph({ specs: listWeightSpecs(this.config) }),
      this.settings.threads,
    );
    const step = this.optimizer.step + 1;
    const feeds: Record<string, ort.Tensor> = {
      ...this.weightFeeds(this.weights, 'param.'),
      ...this.weightFeeds(gradients, 'grad.'),
      ...this.weightFeeds(this.optimizer.m, 'm.'),
      ...this.weightFeeds(this.optimizer.v, 'v.'),
      ...optimizerScalars(settings, step),
    };
    const fetches: Record<string, ort.Tensor | null> = {
      grad_norm: null,
      ...this.weightFeeds(this.spareWeights, 'new_param.'),
      ...this.weightFeeds(this.spareMoments.m, 'new_m.'),
      ...this.weightFeeds(this.spareMoments.v, 'new_v.'),
    };
    const output = await session.run(feeds, fetches);
    const gradNorm = Number((output.grad_norm!.data as Float32Array)[0]);
    if (!Number.isFinite(gradNorm)) return gradNorm;
    // Ping-pong: the freshly written buffers become current.
    [this.weights, this.spareWeights] = [this.spareWeights, this.weights];
    this.prefixCache.clear();
    const { m, v } = this.optimizer;
    this.optimizer = { m: this.spareMoments.m, v: this.spareMoments.v, step };
    this.spareMoments = { m, v };
    return gradNorm;
  }

  /**
   * AdamW on the resident state: the optimizer graph's new weights and
   * moments stay on the device and replace the old ones when the gradient
   * norm is finite; only the norm comes back to the host.
   */
  private async applyResidentOptimizer({
    gradients,
    settings,
  }: {
    gradients: TensorSet;
    settings: EngineTrainSettings;
  }): Promise<number> {
    const specs = this.weights.specs;
    const session = await this.session(
      'optimizer',
      () => buildOptimizerGraph({ specs: listWeightSpecs(this.config) }),
      this.settings.threads,
      {
        deviceOutputs: ['new_param.', 'new_m.', 'new_v.'].flatMap((prefix) =>
          specs.map((spec) => `${prefix}${spec.name}`),
        ),
      },
    );
    const state = await this.resident();
    const step = this.optimizer.step + 1;
    const output = await session.run({
      ...prefixTensors(state.weights, 'param.'),
      ...prefixTensors(gradients, 'grad.'),
      ...prefixTensors(state.m, 'm.'),
      ...prefixTensors(state.v, 'v.'),
      ...optimizerScalars(settings, step),
    });
    const gradNorm = Number((output.grad_norm!.data as Float32Array)[0]);
    const updated = {
      weights: pickTensors({ output, prefix: 'new_param.', specs }),
      m: pickTensors({ output, prefix: 'new_m.', specs }),
      v: pickTensors({ output, prefix: 'new_v.', specs }),
    };
    if (!Number.isFinite(gradNorm)) {
      disposeTensors(updated.weights, updated.m, updated.v);
      return gradNorm;
    }
    disposeTensors(state.weights, state.m, state.v);
    this.residentState = { ...updated, zeros: state.zeros };
    this.hostStale = true;
    this.optimizer.step = step;
    this.prefixCache.clear();
    return gradNorm;
  }

  // ------------------------------------------------------------------ generate

  /** What generation needs of this engine (see {@link generateChunk}). */
  private get generationRuntime(): GenerationRuntime {
    return {
      config: this.config,
      prefixCache: this.prefixCache,
      threads: this.settings.threads,
      decodeThreads: this.settings.decodeThreads,
      matmulPrecision: this.matmulPrecision,
      residentCache: this.settings.resident,
      modelWeightFeeds: () => this.modelWeightFeeds(),
      session: (key, build, threads, options) =>
        this.session(key, build, threads, options),
    };
  }

  /**
   * Batched generation: a left-padded prefill, then one decode step per
   * token against a static KV cache. A prompt that extends a sequence this
   * engine generated before with the same weights (the next call of a
   * multi-turn episode) skips the prefill: its cached keys and values are
   * copied in and only its new tokens run, in one extend step. Finished rows
   * leave the batch: when at most half the rows are active, the batch is
   * compacted to a smaller bucket. Every prompt samples from its own seeded
   * stream, so results do not depend on which prompts share a batch.
   */
  async generate(options: EngineGenerateOptions): Promise<EngineGeneration[]> {
    options.prompts.forEach((prompt, i) => {
      if (prompt.length === 0) {
        throw new SealError({
          code: 'INVALID_ARGUMENT',
          message: `prompts[${i}] is empty`,
        });
      }
      this.checkTokens(prompt, `prompts[${i}]`);
      if (
        prompt.length + options.maxTokens >
        this.config.maxPositionEmbeddings
      ) {
        throw new SealError({
          code: 'INVALID_ARGUMENT',
          message: `prompts[${i}]: ${prompt.length} prompt tokens plus maxTokens ${options.maxTokens} exceed the model's ${this.config.maxPositionEmbeddings} positions`,
        });
      }
    });
    // Prompts that extend a cached sequence run only their new tokens (one
    // extend step against the cached keys and values); the others are
    // prefilled. The two kinds are decoded in separate batches.
    const hits = options.prompts.map((prompt) => {
      const hit = this.prefixCache.match(prompt, prefixMinTokens);
      return hit !== undefined &&
        prompt.length - hit.length <= prefixMaxNewTokens
        ? hit
        : undefined;
    });
    const results = new Array<EngineGeneration>(options.prompts.length);
    const chunk = this.settings.maxGenerateBatch;
    for (const cached of [false, true]) {
      const indices = options.prompts
        .map((_, i) => i)
        .filter((i) => (hits[i] !== undefined) === cached);
      for (let start = 0; start < indices.length; start += chunk) {
        const part = indices.slice(start, start + chunk);
        const generations = await generateChunk({
          runtime: this.generationRuntime,
          options,
          indices: part,
          past: cached ? part.map((i) => hits[i]!) : undefined,
        });
        part.forEach((index, k) => (results[index] = generations[k]!));
      }
    }
    return results;
  }
}

/** The scalar feeds of the optimizer graph for `step` (1-based). */
function optimizerScalars(
  settings: EngineTrainSettings,
  step: number,
): Record<string, ort.Tensor> {
  const [beta1, beta2] = settings.betas;
  const scalar = (x: number): ort.Tensor => floatTensor(Float32Array.of(x), []);
  return {
    learning_rate: scalar(settings.learningRate),
    embedding_learning_rate: scalar(
      settings.learningRate * (settings.embeddingLearningRateScale ?? 1),
    ),
    output_norm_learning_rate: scalar(
      settings.learningRate * (settings.outputNormLearningRateScale ?? 1),
    ),
    vector_learning_rate: scalar(
      settings.learningRate * (settings.vectorLearningRateScale ?? 1),
    ),
    output_norm_uniform: scalar(settings.outputNormUniform ? 1 : 0),
    beta1: scalar(beta1),
    beta2: scalar(beta2),
    bias_correction1: scalar(1 / (1 - beta1 ** step)),
    bias_correction2: scalar(1 / (1 - beta2 ** step)),
    eps: scalar(settings.eps),
    weight_decay: scalar(settings.weightDecay),
    max_grad_norm: scalar(Math.min(settings.maxGradNorm, 3e38)),
  };
}

/** Size in bytes of the model weights. */
export function weightBytes(weights: FlatTensors): number {
  return weights.specs.reduce((sum, spec) => sum + size(spec.shape) * 4, 0);
}

function checkTemperature(temperature: number, where: string): void {
  if (!(Number.isFinite(temperature) && temperature > 0)) {
    throw new SealError({
      code: 'INVALID_ARGUMENT',
      message: `${where}: temperature must be a positive number, got ${temperature}`,
    });
  }
}

/** The scalar `inverse_temperature` feed; exactly 1 at temperature 1, so scores are unchanged there. */
function inverseTemperatureTensor(temperature: number): ort.Tensor {
  return floatTensor(Float32Array.of(1 / temperature), []);
}

/** The shared-prefix graph's bucket of a prefix or continuation length: multiples of 128. */
function sharedBucket(length: number): number {
  return Math.max(128, Math.ceil(length / 128) * 128);
}

/**
 * The slots of a plain micro-batch whose token has a loss weight (slot
 * `r·S + t − 1` predicts token `t` of row `r`), padded with slot 0 (its
 * weight is 0) to an eighth, a quarter or half of the batch's slots,
 * whichever first holds them; undefined when they need more. Few sizes, so
 * few sessions: each size is its own graph.
 */
export function weightedSlots(
  { batch, length }: SequenceBucket,
  rows: ReadonlyArray<{ tokenWeights: readonly number[] }>,
): Int32Array | undefined {
  const tokens = batch * length;
  const found: number[] = [];
  rows.forEach((row, r) => {
    for (let t = 1; t < row.tokenWeights.length; t++)
      if (row.tokenWeights[t] !== 0) found.push(r * length + t - 1);
  });
  for (const share of [8, 4, 2]) {
    const size = tokens / share;
    if (!Number.isInteger(size) || found.length > size) continue;
    const slots = new Int32Array(size);
    slots.set(found);
    return slots;
  }
  return undefined;
}

/** Shortest prefix that rows share through the shared-prefix grad graph (shorter ones gain little). */
export const minSharedPrefix = 64;

/** A training micro-batch: plain rows, or the continuations of one shared prefix. */
type TrainMicroBatch = {
  bucket: SequenceBucket;
  rows: EngineTrainSequence[];
} & (
  | { prefix?: undefined; prefixBucket?: undefined }
  | {
      /** The shared prefix's tokens. */
      prefix: readonly number[];
      /** The prefix's bucket (its padded length). */
      prefixBucket: number;
    }
);

/**
 * The tokens of a row before the first token it is trained on, less one:
 * the row's continuation starts at the token whose slot predicts the first
 * weighted token. 0 when no token is weighted.
 */
function weightlessPrefixLength(sequence: EngineTrainSequence): number {
  for (let t = 1; t < sequence.tokenWeights.length; t++)
    if (sequence.tokenWeights[t] !== 0) return t - 1;
  return 0;
}

/** A row from position `offset` on: its tokens and per-token values, cut alike. */
function continuationOf(
  sequence: EngineTrainSequence,
  offset: number,
): EngineTrainSequence {
  return {
    tokenIds: sequence.tokenIds.slice(offset),
    tokenWeights: sequence.tokenWeights.slice(offset),
    advantages: sequence.advantages?.slice(offset),
    oldLogprobs: sequence.oldLogprobs?.slice(offset),
    refLogprobs: sequence.refLogprobs?.slice(offset),
  };
}

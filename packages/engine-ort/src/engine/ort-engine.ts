import type { MatmulPrecision } from '../graph/graph-builder';
import type { TrainObjective } from '../model/graph-families';
import type { ModelConfig } from '../model/model-config';
import { size, type FlatTensors } from '../model/model-weights';
import {
  resolveEngineSettings,
  type EngineContext,
  type OrtEngineSettings,
} from './engine-context';
import { generate } from './generate';
import type { EngineGenerateOptions, EngineGeneration } from './generate-chunk';
import { LossScaler, type OptimizerState } from './optimizer';
import type { ExecutionProvider } from './ort-session';
import type { GraphPlacement } from './placement';
import {
  matmulPrecisionFor,
  type LossScaleState,
  type Precision,
} from './precision';
import { PrefixCache } from './prefix-cache';
import { ModelResidency } from './residency';
import { scoreSequences } from './score';
import { SessionCache } from './session-cache';
import {
  Trainer,
  type EngineTrainResult,
  type EngineTrainSequence,
  type EngineTrainSettings,
} from './train';

export type { OrtEngineSettings } from './engine-context';
export type {
  EngineTrainResult,
  EngineTrainSequence,
  EngineTrainSettings,
} from './train';
export type { EngineGenerateOptions, EngineGeneration };
export { minSharedPrefix, weightedSlots } from './micro-batches';

/** Whether this process has warned of host-fed state (once per process). */
let residencyNoted = false;

/**
 * The in-process policy engine: owns the weights (one flat buffer with a view
 * per tensor, plus a spare buffer for ping-pong updates), the Adam moments,
 * and a cache of ORT sessions keyed by graph family and shape bucket. All
 * methods are sequential; run it inside a worker to keep the event loop free.
 *
 * A facade over its parts: the session cache (`session-cache.ts`), the
 * weights and Adam state on the host and the device (`residency.ts`), the
 * optimizer and loss scaling (`optimizer.ts`), the training step
 * (`train.ts`), scoring (`score.ts`) and generation (`generate.ts`).
 */
export class OrtEngine {
  /** The model description. */
  readonly config: ModelConfig;
  /** How the reduced-precision products run; undefined for fp32. */
  readonly matmulPrecision: MatmulPrecision | undefined;
  private readonly context: EngineContext;
  private readonly lossScaler: LossScaler;
  private readonly trainer: Trainer;

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
    const resolved = resolveEngineSettings(settings);
    this.matmulPrecision = matmulPrecisionFor({
      precision: resolved.precision,
      executionProvider: resolved.executionProvider,
    });
    this.context = {
      config,
      settings: resolved,
      matmulPrecision: this.matmulPrecision,
      sessions: new SessionCache(resolved),
      residency: new ModelResidency(weights, resolved),
      prefixCache: new PrefixCache(resolved.prefixCacheBytes),
    };
    this.lossScaler = new LossScaler(resolved.precision, settings.lossScaling);
    this.trainer = new Trainer(this.context, this.lossScaler);
    if (resolved.residencyNote !== undefined && !residencyNoted) {
      residencyNoted = true;
      process.emitWarning(resolved.residencyNote, {
        code: 'SEAL_HOST_FED_STATE',
      });
    }
  }

  /**
   * Why the weights and optimizer state are host-fed although the device is
   * a GPU (CUDA: see `resolveResidency`); undefined otherwise. Emitted once
   * per process as a warning too.
   */
  get residencyNote(): string | undefined {
    return this.context.settings.residencyNote;
  }

  // ------------------------------------------------------------------ state

  /**
   * The current weights (views into the live buffer; copy before keeping).
   * With `resident`, call {@link OrtEngine.syncToHost} first.
   */
  get currentWeights(): FlatTensors {
    return this.context.residency.hostWeights;
  }

  /** Optimizer moments and step. */
  get optimizerState(): Readonly<OptimizerState> {
    return this.context.residency.hostOptimizer;
  }

  /** Precision of the matrix products. */
  get precision(): Precision {
    return this.context.settings.precision;
  }

  /** The loss scaler's state (a copy); undefined unless the precision is fp16. */
  get lossScaleState(): LossScaleState | undefined {
    return this.lossScaler.state;
  }

  /**
   * Replaces the loss scaler's state (from a checkpoint); undefined restarts
   * it at the initial scale. Ignored unless the precision is fp16.
   */
  setLossScaleState(state: LossScaleState | undefined): void {
    this.lossScaler.setState(state);
  }

  /** Replaces the weights (copied). */
  setWeights(weights: FlatTensors): void {
    this.context.residency.setWeights(weights);
    this.context.prefixCache.clear();
  }

  /** Empties the prefix cache: the next generation prefills every prompt from its first token. */
  clearPrefixCache(): void {
    this.context.prefixCache.clear();
  }

  /** Prompts served from the prefix cache and the prompt tokens they reused. */
  get prefixCacheStats(): Readonly<{ hits: number; reusedTokens: number }> {
    return { ...this.context.prefixCache.stats };
  }

  /** Replaces the optimizer state (copied). */
  setOptimizerState(state: {
    m: Float32Array;
    v: Float32Array;
    step: number;
  }): void {
    this.context.residency.setOptimizerState(state);
  }

  /**
   * Where the nodes of each graph family ran, recorded on the family's first
   * session (with the `recordPlacement` setting), in order of first use.
   */
  get placements(): GraphPlacement[] {
    return this.context.sessions.placements;
  }

  /** The execution provider this engine runs on. */
  get executionProvider(): ExecutionProvider {
    return this.context.settings.executionProvider;
  }

  /**
   * Reads the resident weights and Adam moments back into the host buffers
   * (`currentWeights`, `optimizerState`), through a graph with host-located
   * outputs. Nothing to do without `resident` or when the host is current.
   */
  syncToHost(): Promise<void> {
    return this.context.residency.syncToHost();
  }

  /** Releases every session. */
  async close(): Promise<void> {
    // GPU tensors go before the sessions that made them (onnxruntime-node 1.30).
    await this.context.residency.close();
    await this.context.sessions.close();
  }

  // ------------------------------------------------------------------ score

  /**
   * Per-token log-probabilities aligned with each sequence (`[0] = 0`), under
   * `softmax(logits / temperature)` (default 1).
   */
  score(
    sequences: ReadonlyArray<readonly number[]>,
    { temperature = 1 }: { temperature?: number } = {},
  ): Promise<number[][]> {
    return scoreSequences(this.context, sequences, temperature);
  }

  // ------------------------------------------------------------------ train

  /**
   * One optimizer step: gradients accumulated over micro-batches, then
   * global-norm clipping and AdamW into the spare buffers, which become
   * current only when the loss and the gradient norm are finite.
   */
  train(options: {
    objective: TrainObjective;
    sequences: readonly EngineTrainSequence[];
    settings: EngineTrainSettings;
  }): Promise<EngineTrainResult> {
    return this.trainer.train(options);
  }

  // ------------------------------------------------------------------ generate

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
  generate(options: EngineGenerateOptions): Promise<EngineGeneration[]> {
    return generate(this.context, options);
  }
}

/** Size in bytes of the model weights. */
export function weightBytes(weights: FlatTensors): number {
  return weights.specs.reduce((sum, spec) => sum + size(spec.shape) * 4, 0);
}

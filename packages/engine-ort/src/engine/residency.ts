import { SealError } from '@seal/spec';
import { FlatTensors } from '../model/model-weights';
import type { OptimizerState } from './optimizer';
import {
  createOrtSession,
  floatTensor,
  type ExecutionProvider,
  type ort,
} from './ort-session';
import {
  buildCopyGraph,
  disposeTensors,
  pickTensors,
  prefixTensors,
  residentGroups,
  type ResidentState,
  type TensorSet,
} from './resident-weights';
import type { Session } from './session-cache';

/**
 * Where the engine's weights and Adam state live: host buffers (the weights
 * and a spare buffer for ping-pong updates, the moments and their spares),
 * and with `resident` their device copies, uploaded at first use and read
 * back by {@link ModelResidency.syncToHost}.
 */
export class ModelResidency {
  private weights: FlatTensors;
  private spareWeights: FlatTensors;
  private optimizer: OptimizerState;
  private spareMoments: { m: FlatTensors; v: FlatTensors };
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

  constructor(
    weights: FlatTensors,
    private readonly settings: {
      executionProvider: ExecutionProvider;
      threads: number;
      resident: boolean;
    },
  ) {
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
  }

  /** Whether the weights and Adam state are kept on the device. */
  get isResident(): boolean {
    return this.settings.resident;
  }

  /** The host weights (views into the live buffer). */
  get hostWeights(): FlatTensors {
    return this.weights;
  }

  /** The host Adam moments and step. */
  get hostOptimizer(): OptimizerState {
    return this.optimizer;
  }

  /** The spare buffers an optimizer run on the host writes into (see {@link commitHostUpdate}). */
  get spares(): { weights: FlatTensors; m: FlatTensors; v: FlatTensors } {
    return { weights: this.spareWeights, ...this.spareMoments };
  }

  /** Replaces the weights (copied). */
  setWeights(weights: FlatTensors): void {
    this.syncBeforeHostWrite();
    this.weights.buffer.set(weights.buffer);
    this.dropResident();
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

  /** Ping-pong: the spare buffers, just written by the optimizer, become current at `step`. */
  commitHostUpdate(step: number): void {
    [this.weights, this.spareWeights] = [this.spareWeights, this.weights];
    const { m, v } = this.optimizer;
    this.optimizer = { m: this.spareMoments.m, v: this.spareMoments.v, step };
    this.spareMoments = { m, v };
  }

  /** The optimizer's device-located outputs replace the resident weights and moments at `step`. */
  commitResidentUpdate(
    updated: { weights: TensorSet; m: TensorSet; v: TensorSet },
    step: number,
  ): void {
    const state = this.residentState!;
    disposeTensors(state.weights, state.m, state.v);
    this.residentState = { ...updated, zeros: state.zeros };
    this.hostStale = true;
    this.optimizer.step = step;
  }

  /**
   * The weight feeds of a run: the resident weights (uploaded at first use)
   * with `resident`, else tensors over the host buffer.
   */
  async modelWeightFeeds(): Promise<TensorSet> {
    return this.settings.resident
      ? (await this.resident()).weights
      : this.weightFeeds(this.weights);
  }

  /** Tensors over a host buffer's views (made once per buffer), named `<prefix><weight>`. */
  weightFeeds(weights: FlatTensors, prefix = ''): Record<string, ort.Tensor> {
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
  async resident(): Promise<ResidentState> {
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
   * Reads the resident weights and Adam moments back into the host buffers,
   * through a graph with host-located outputs. Nothing to do without
   * `resident` or when the host is current.
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

  /** Disposes the resident tensors, then releases the copy sessions that made them. */
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
  }
}

import { performance } from 'node:perf_hooks';
import type { PolicyV1, TrainStepEvent } from '@seal/spec';

/**
 * Model time (ms) summed by {@link timed} policies, reset at each step, and
 * the time inside each kind of call.
 */
export type ModelClock = { model: number; calls?: Record<string, number> };

/**
 * Busy time of this thread's event loop (Node's `performance`), where the
 * runtime has it; rollouts count it as the environment's time.
 */
const eventLoopUtilization = (
  performance as typeof performance & {
    eventLoopUtilization?: (previous?: {
      active: number;
      idle: number;
      utilization: number;
    }) => { active: number; idle: number; utilization: number };
  }
).eventLoopUtilization?.bind(performance);

/**
 * A policy whose calls are timed (to split model work from the rest of a
 * step); each call kind's time also goes to `clock.calls`, under
 * `prefix` + the method's name.
 */
export function timed(
  policy: PolicyV1,
  clock: ModelClock,
  prefix = '',
): PolicyV1 {
  const wrap =
    <A extends unknown[], R>(
      name: string,
      fn: (...args: A) => PromiseLike<R>,
    ) =>
    async (...args: A): Promise<R> => {
      const start = performance.now();
      try {
        return await fn(...args);
      } finally {
        const elapsed = performance.now() - start;
        clock.model += elapsed;
        const calls = (clock.calls ??= {});
        calls[prefix + name] = (calls[prefix + name] ?? 0) + elapsed;
      }
    };
  return {
    ...policy,
    tokenizer: policy.tokenizer,
    generate: wrap('generate', policy.generate.bind(policy)),
    score: wrap('score', policy.score.bind(policy)),
    train: wrap('train', policy.train.bind(policy)),
    save: wrap('save', policy.save.bind(policy)),
    load: wrap('load', policy.load.bind(policy)),
    ...(policy.resetCache === undefined
      ? {}
      : { resetCache: policy.resetCache.bind(policy) }),
  };
}

/**
 * Runs `work` without counting its policy calls as model time (writing or
 * reading weights is I/O, not model compute).
 */
export async function untimed<T>(
  clock: ModelClock,
  work: () => PromiseLike<T>,
): Promise<T> {
  const before = clock.model;
  const result = await work();
  clock.model = before;
  return result;
}

/**
 * The clock of one training step: its phases (`parts`, ms) and its split of
 * wall time into model time and the rest. Starting one resets the model
 * clock.
 */
export class StepClock {
  /** Time per phase (ms). */
  readonly parts: Record<string, number> = {};
  private readonly started = performance.now();

  constructor(private readonly clock: ModelClock) {
    clock.model = 0;
    clock.calls = {};
  }

  /** Adds the time since `since` (a `performance.now()`) to phase `name`. */
  mark(name: string, since: number): void {
    this.parts[name] = (this.parts[name] ?? 0) + performance.now() - since;
  }

  /**
   * Runs the step's rollouts and counts their time as the environment's
   * (`parts.environment`) and the model's. The environment's work (episodes,
   * parsing, execution, context assembly) runs on this thread while the
   * policies generate in their workers, so it is this thread's busy time;
   * the rest of the phase is waiting for the model. Two policies generating
   * at once overlap each other and this thread's work, which is why their
   * summed call times cannot be used.
   */
  async rollouts<T>(work: () => Promise<T>): Promise<T> {
    const t0 = performance.now();
    const modelBefore = this.clock.model;
    const loopBefore = eventLoopUtilization?.();
    const result = await work();
    const rolloutWall = performance.now() - t0;
    const environment =
      loopBefore === undefined
        ? Math.max(0, rolloutWall - (this.clock.model - modelBefore))
        : Math.min(rolloutWall, eventLoopUtilization!(loopBefore).active);
    this.clock.model = modelBefore + rolloutWall - environment;
    // A step with refill rounds rolls out more than once: the phases add up.
    this.parts['environment'] = (this.parts['environment'] ?? 0) + environment;
    return result;
  }

  /** The step's timing so far, for its event. */
  timing(): TrainStepEvent['timing'] {
    const total = performance.now() - this.started;
    return {
      model: this.clock.model,
      other: total - this.clock.model,
      total,
      parts: this.parts,
      calls: { ...this.clock.calls },
    };
  }
}

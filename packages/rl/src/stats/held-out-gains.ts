import type { EvalEvent } from '@seal/spec';
import { pairedBootstrap, type PairedEstimate } from './bootstrap';

/** One run's held-out gain on one evaluation set under one measure: its last evaluation against its first. */
export type HeldOutGain = {
  set: string;
  /** Greedy pass@1 (the primary measure) or sampled pass@1. */
  measure: 'greedy' | 'sampled';
  /** The steps compared: the first evaluation (the warm start) and the last. */
  fromStep: number;
  toStep: number;
  /** Tasks scored at both steps (the pairs). */
  tasks: number;
  /** Mean success over those tasks at each step (fractions). */
  meanBefore: number;
  meanAfter: number;
  /** The mean paired difference with its 95% paired bootstrap interval over the tasks. */
  estimate: PairedEstimate;
  /** Sampled only: samples per task at the last step. */
  samples?: number;
  /** Sampled only: the sampling temperatures of the first and last evaluation. */
  temperatures?: { before: number; after: number };
};

/**
 * The held-out gains of one training run: for each evaluation set, its last
 * evaluation against its first (the warm start) on the tasks both scored,
 * greedy pass@1 first and sampled pass@1 beside it where both evaluations
 * sampled, each with a paired bootstrap 95% interval over the tasks. One run
 * is one seed: the interval covers the tasks only, not the variation
 * between training runs. Sets evaluated once are left out. Deterministic
 * for `seed` (1: the seed `seal compare` uses, so it reproduces these).
 */
export function heldOutGains({
  evaluations,
  seed = 1,
}: {
  evaluations: readonly EvalEvent[];
  seed?: number;
}): HeldOutGain[] {
  const gains: HeldOutGain[] = [];
  const mean = (values: readonly number[]) =>
    values.reduce((a, b) => a + b, 0) / Math.max(1, values.length);
  for (const set of [...new Set(evaluations.map((e) => e.set))]) {
    const events = evaluations.filter((e) => e.set === set);
    const first = events[0];
    const last = events.at(-1);
    if (!first || !last || first === last) continue;
    for (const measure of ['greedy', 'sampled'] as const) {
      const before =
        measure === 'greedy' ? first.taskSuccess : first.sampled?.taskSuccess;
      const after =
        measure === 'greedy' ? last.taskSuccess : last.sampled?.taskSuccess;
      if (!before || !after) continue;
      const ids = Object.keys(before).filter((id) => id in after);
      if (ids.length === 0) continue;
      const beforeValues = ids.map((id) => before[id]!);
      const afterValues = ids.map((id) => after[id]!);
      gains.push({
        set,
        measure,
        fromStep: first.step,
        toStep: last.step,
        tasks: ids.length,
        meanBefore: mean(beforeValues),
        meanAfter: mean(afterValues),
        estimate: pairedBootstrap({
          before: beforeValues,
          after: afterValues,
          seed,
        }),
        ...(measure === 'sampled' && first.sampled && last.sampled
          ? {
              samples: last.sampled.samples,
              temperatures: {
                before: first.sampled.temperature,
                after: last.sampled.temperature,
              },
            }
          : {}),
      });
    }
  }
  return gains;
}

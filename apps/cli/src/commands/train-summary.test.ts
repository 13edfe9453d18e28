import { pairedBootstrap, formatPoints } from '@seal/rl';
import type { EvalEvent } from '@seal/spec';
import { describe, expect, it } from 'vitest';
import { formatLogitScale, summaryHeadline } from './train-summary';

/** Ten tasks `t0..t9`, `k` of them solved. */
const solved = (k: number): Record<string, number> =>
  Object.fromEntries(
    Array.from({ length: 10 }, (_, i) => [`t${i}`, i < k ? 1 : 0]),
  );

const event = (
  step: number,
  set: string,
  greedy: Record<string, number>,
  sampled?: Record<string, number>,
): EvalEvent => ({
  schemaVersion: 1,
  type: 'eval',
  step,
  set,
  accuracy: 0,
  overall: 0,
  categories: {},
  tagCounts: {},
  overlayHash: '',
  taskSuccess: greedy,
  ...(sampled
    ? {
        sampled: {
          samples: 4,
          temperature: 1,
          accuracy: 0,
          taskSuccess: sampled,
        },
      }
    : {}),
});

describe('summaryHeadline', () => {
  it('should lead with greedy before → after and its CI as one seed, sampled beside it, the logit scale as a temperature and where the pooled figures are', () => {
    const lines = summaryHeadline({
      evaluations: [
        event(0, 'test-id', solved(6), solved(3)),
        event(0, 'test-ood', solved(2)),
        event(72, 'test-id', solved(5), solved(6)),
        event(72, 'test-ood', solved(2)),
      ],
      seed: 1,
      logitScaleLine: formatLogitScale({ scale: 1.337, step: 72 }),
    });
    const greedy = formatPoints(
      pairedBootstrap({
        before: Object.values(solved(6)),
        after: Object.values(solved(5)),
        seed: 1,
      }),
    );
    expect(lines).toEqual([
      'greedy pass@1 (the primary measure), one seed (RL seed 1), step 0 → 72:',
      `  test-id   60.0% → 50.0%  ${greedy} points, 95% CI includes 0 (paired bootstrap over 10 tasks; one seed)`,
      '  test-ood  20.0% → 20.0%  +0.0 [+0.0, +0.0] points, 95% CI includes 0 (paired bootstrap over 10 tasks; one seed)',
      'sampled pass@1 beside it, 4 samples, sampled at T=1 vs warm start at T=1 (not temperature-matched):',
      '  test-id   30.0% → 60.0%  +30.0 [+0.0, +60.0] points, 95% CI includes 0 (one seed)',
      "learned logit scale ×1.337 = sampling temperature 0.75 of the warm start's logits (the final norm's gain, step 0 → 72); not counted as learning",
      "these are one seed's figures; pooled figures (seeds 1–5, crossed two-way intervals, t over seeds, MDE) are recorded in bench/RESULTS.md (`pnpm bench learning`)",
    ]);
    expect(greedy).toBe('-10.0 [-30.0, +0.0]');
  });

  it('should print nothing for a run evaluated once, and leave out what the run did not learn or sample', () => {
    expect(
      summaryHeadline({
        evaluations: [event(0, 'test-id', solved(3))],
        seed: 2,
      }),
    ).toEqual([]);
    const lines = summaryHeadline({
      evaluations: [event(0, 'eval', solved(3)), event(8, 'eval', solved(4))],
      seed: 2,
    });
    expect(lines[0]).toBe(
      'greedy pass@1 (the primary measure), one seed (RL seed 2), step 0 → 8:',
    );
    expect(lines.some((line) => line.includes('sampled'))).toBe(false);
    expect(lines.some((line) => line.includes('logit scale'))).toBe(false);
    expect(lines.at(-1)).toContain('bench/RESULTS.md');
  });
});

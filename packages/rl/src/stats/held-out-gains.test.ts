import type { EvalEvent } from '@seal/spec';
import { describe, expect, it } from 'vitest';
import { pairedBootstrap } from './bootstrap';
import { heldOutGains } from './held-out-gains';

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

describe('heldOutGains', () => {
  it('should pair the last evaluation with the first on their shared tasks, greedy first, sampled beside it', () => {
    const gains = heldOutGains({
      evaluations: [
        event(0, 'test-id', { a: 0, b: 1, c: 0 }, { a: 0.25, b: 0.5, c: 0 }),
        event(0, 'test-ood', { x: 1 }),
        event(6, 'test-id', { a: 0, b: 0, c: 1 }),
        event(12, 'test-id', { a: 1, b: 1, c: 1 }, { a: 1, b: 0.75, c: 0.5 }),
      ],
    });
    // test-ood was evaluated once: no gain.
    expect(gains.map((g) => [g.set, g.measure])).toEqual([
      ['test-id', 'greedy'],
      ['test-id', 'sampled'],
    ]);
    const [greedy, sampled] = gains;
    expect(greedy).toMatchObject({
      fromStep: 0,
      toStep: 12,
      tasks: 3,
      meanBefore: 1 / 3,
      meanAfter: 1,
    });
    expect(greedy!.estimate).toEqual(
      pairedBootstrap({ before: [0, 1, 0], after: [1, 1, 1], seed: 1 }),
    );
    expect(greedy!.temperatures).toBeUndefined();
    expect(sampled).toMatchObject({
      samples: 4,
      temperatures: { before: 1, after: 1 },
      meanBefore: 0.25,
      meanAfter: 0.75,
    });
  });

  it('should leave out a measure one side lacks', () => {
    const gains = heldOutGains({
      evaluations: [
        event(0, 'test-id', { a: 0 }),
        event(4, 'test-id', { a: 1 }, { a: 1 }),
      ],
    });
    expect(gains.map((g) => g.measure)).toEqual(['greedy']);
  });
});

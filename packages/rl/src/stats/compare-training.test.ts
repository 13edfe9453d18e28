import { describe, expect, it } from 'vitest';
import { clusteredPairedBootstrap } from './bootstrap';
import { compareTraining, type TrainingCell } from './compare-training';

const cell = (
  run: string,
  category: string,
  frozen: number,
  policy: number,
): TrainingCell => ({
  run,
  step: 1,
  taskId: `${category}-${frozen}-${policy}`,
  category,
  episodes: 8,
  frozen: { success: frozen, spurious: 0, emptyTurns: 1 - frozen },
  policy: { success: policy, spurious: 0, emptyTurns: 1 - policy },
});

describe('compareTraining', () => {
  it('should give each side its mean over the cells and the difference pooled over runs, by category and over all', () => {
    const cells = [
      cell('a', 'base', 0.5, 0.75),
      cell('a', 'miss_param', 0.5, 0.25),
      cell('b', 'base', 0, 0.5),
    ];
    const results = compareTraining({ cells });
    const success = (category: string) =>
      results.find((r) => r.category === category && r.measure === 'success')!;
    expect(success('base')).toMatchObject({
      cells: 2,
      episodes: 16,
      frozen: 0.25,
      policy: 0.625,
    });
    expect(success('base').difference).toEqual(
      clusteredPairedBootstrap({
        clusters: [
          { before: [0.5], after: [0.75] },
          { before: [0], after: [0.5] },
        ],
        seed: 1,
      }),
    );
    expect(success('miss_param').difference.mean).toBe(-0.25);
    expect(success('all').difference.mean).toBeCloseTo(
      (0.25 - 0.25 + 0.5) / 3,
      12,
    );
    expect(
      results.find((r) => r.category === 'all' && r.measure === 'emptyTurns')!
        .difference.mean,
    ).toBeCloseTo(-(0.25 - 0.25 + 0.5) / 3, 12);
    expect(results.map((r) => r.category)).toEqual([
      'base',
      'base',
      'base',
      'miss_param',
      'miss_param',
      'miss_param',
      'all',
      'all',
      'all',
    ]);
  });
});

import type { EvalEvent } from '@seal/spec';
import { describe, expect, it } from 'vitest';
import { clusteredPairedBootstrap, pairedBootstrap } from './bootstrap';
import {
  compareRuns,
  pairRuns,
  taskInCategory,
  type ComparedRun,
} from './compare-runs';
import { compareCrossed } from './crossed-bootstrap';

const ids = [
  't_multi_turn_base_0',
  't_multi_turn_base_1',
  't_multi_turn_miss_param_0',
  't_multi_turn_miss_param_1',
];

function evaluation(
  step: number,
  greedy: readonly number[],
  sampled?: readonly number[],
  set = 'test-id',
): EvalEvent {
  const record = (values: readonly number[]) =>
    Object.fromEntries(ids.map((id, i) => [id, values[i]!]));
  return {
    schemaVersion: 1,
    type: 'eval',
    step,
    set,
    accuracy: greedy.reduce((a, b) => a + b, 0) / greedy.length,
    overall: 0,
    categories: {},
    tagCounts: {},
    overlayHash: 'none',
    taskSuccess: record(greedy),
    ...(sampled
      ? {
          sampled: {
            samples: 4,
            temperature: 1,
            accuracy: 0,
            taskSuccess: record(sampled),
          },
        }
      : {}),
  };
}

const run = (
  name: string,
  seed: number | undefined,
  ...evaluations: EvalEvent[]
): ComparedRun => ({ name, seed, evaluations });

describe('compareRuns', () => {
  it("should give one run's gain over its own step 0 at its last evaluation, as seal train's summary computes it", () => {
    const before = [1, 0, 0, 1];
    const after = [1, 1, 0, 1];
    const [greedy, sampled] = compareRuns({
      runs: [
        run(
          'a',
          1,
          evaluation(0, before, [0.5, 0, 0.25, 1]),
          evaluation(2, [0, 0, 0, 0]),
          evaluation(4, after, [0.75, 0.5, 0.25, 1]),
        ),
      ],
    });
    expect(sampled).toMatchObject({
      set: 'test-id',
      measure: 'sampled',
      meanBefore: 0.4375,
      meanAfter: 0.625,
    });
    expect(sampled!.pairs).toEqual([
      {
        run: 'a',
        seed: 1,
        before: 0,
        after: 4,
        tasks: 4,
        meanBefore: 0.4375,
        meanAfter: 0.625,
        gain: 0.1875,
      },
    ]);
    expect(greedy!.pooled.mean).toBe(0.25);
    const {
      resamples: _r,
      n: _n,
      ...single
    } = pairedBootstrap({ before, after, seed: 1 });
    expect(greedy!.pooled).toMatchObject(single);
    expect(greedy!.pooled.design).toBe('crossed');
    expect(greedy!.tInterval).toBeUndefined();
    expect(greedy!.minimumDetectableEffect?.over).toBe('design');
    expect(greedy!.minimumDetectableEffect?.value).toBeCloseTo(
      2.8015834 * greedy!.pooled.standardError!,
      5,
    );
    // The sampled figure says what it compares: T = 1 against T = 1, not matched.
    expect(sampled!.temperatures).toEqual({
      runs: 1,
      baseline: 1,
      matched: false,
    });
    expect(greedy!.temperatures).toBeUndefined();
  });

  it('should give pass@k: whether any of the k samples of a task succeeds, falling where pass@1 rises on fewer tasks', () => {
    const measures = compareRuns({
      runs: [
        run(
          'a',
          1,
          evaluation(0, [1, 0, 0, 1], [0.5, 0.25, 0.25, 0]),
          evaluation(4, [1, 0, 0, 1], [1, 1, 0, 0]),
        ),
      ],
    });
    expect(measures.map((measure) => measure.measure)).toEqual([
      'greedy',
      'sampled',
      'pass@k',
    ]);
    const [, sampled, passAtK] = measures;
    expect(sampled!.pooled.mean).toBe(0.25);
    expect(passAtK).toMatchObject({
      measure: 'pass@k',
      samples: 4,
      meanBefore: 0.75,
      meanAfter: 0.5,
    });
    expect(passAtK!.pooled.mean).toBe(-0.25);
    // Different k before and after is not a paired measure: it is left out.
    const other = evaluation(4, [1, 0, 0, 1], [1, 1, 0, 0]);
    const eight = { ...other, sampled: { ...other.sampled!, samples: 8 } };
    expect(
      compareRuns({
        runs: [
          run('b', 1, evaluation(0, [1, 0, 0, 1], [0.5, 0.25, 0.25, 0]), eight),
        ],
      }).map((measure) => measure.measure),
    ).toEqual(['greedy', 'sampled']);
  });

  it('should pair runs with controls by seed whatever their order, and pool the cells with the crossed bootstrap and the t-interval over runs', () => {
    const runs = [
      run('p2', 2, evaluation(0, [0, 0, 0, 0]), evaluation(3, [1, 1, 0, 0])),
      run('p1', 1, evaluation(0, [0, 0, 0, 0]), evaluation(3, [1, 0, 0, 0])),
    ];
    const controls = [
      run('c1', 1, evaluation(0, [0, 0, 0, 0]), evaluation(3, [0, 0, 0, 0])),
      run('c2', 2, evaluation(0, [0, 0, 0, 0]), evaluation(3, [1, 0, 0, 0])),
    ];
    expect(
      pairRuns({ runs, controls }).map(([a, b]) => `${a.name}-${b.name}`),
    ).toEqual(['p2-c2', 'p1-c1']);
    const [greedy] = compareRuns({ runs, controls });
    expect(
      greedy!.pairs.map((pair) => [pair.run, pair.control, pair.gain]),
    ).toEqual([
      ['p2', 'c2', 0.25],
      ['p1', 'c1', 0.25],
    ]);
    expect(greedy!.pooled.mean).toBe(0.25);
    // Every run scored on the same four tasks: a crossed design.
    const expected = compareCrossed({
      rows: [
        { before: [1, 0, 0, 0], after: [1, 1, 0, 0] },
        { before: [0, 0, 0, 0], after: [1, 0, 0, 0] },
      ],
      seed: 1,
    });
    const { seeds: _s, tasks: _t, ...crossed } = expected.crossed;
    expect(greedy!.pooled).toEqual({ ...crossed, runs: 2, design: 'crossed' });
    // Two runs with equal gains: a t-interval of width 0 over the runs.
    expect(greedy!.tInterval).toMatchObject({
      mean: 0.25,
      low: 0.25,
      high: 0.25,
    });
    expect(greedy!.minimumDetectableEffect).toEqual({
      value: expected.minimumDetectableEffect,
      over: 'design',
    });
  });

  it('should fall back to the nested bootstrap when the runs are scored on different tasks', () => {
    const shifted = (step: number, greedy: readonly number[]): EvalEvent => {
      const event = evaluation(step, greedy);
      event.taskSuccess = Object.fromEntries(
        Object.entries(event.taskSuccess!).map(([id, v]) => [`other_${id}`, v]),
      );
      return event;
    };
    const runs = [
      run('a', 1, evaluation(0, [0, 0, 0, 0]), evaluation(3, [1, 1, 0, 0])),
      run('b', 2, shifted(0, [0, 0, 1, 0]), shifted(3, [1, 0, 0, 0])),
    ];
    const [greedy] = compareRuns({ runs });
    expect(greedy!.pooled).toEqual({
      ...(({ clusters: _c, ...rest }) => rest)(
        clusteredPairedBootstrap({
          clusters: [
            { before: [0, 0, 0, 0], after: [1, 1, 0, 0] },
            { before: [0, 0, 1, 0], after: [1, 0, 0, 0] },
          ],
          seed: 1,
        }),
      ),
      runs: 2,
      design: 'nested',
    });
    expect(greedy!.tInterval?.n).toBe(2);
    expect(greedy!.minimumDetectableEffect?.over).toBe('runs');
  });

  it('should pair by position when the seeds do not tell the runs apart', () => {
    const runs = [run('a', 1), run('b', 1)];
    const controls = [run('x', undefined), run('y', 3)];
    expect(
      pairRuns({ runs, controls }).map(([a, b]) => a.name + b.name),
    ).toEqual(['ax', 'by']);
  });

  it('should restrict to a category, and leave out a measure a paired evaluation lacks', () => {
    const measures = compareRuns({
      runs: [
        run(
          'a',
          1,
          evaluation(0, [0, 0, 0, 1]),
          evaluation(5, [1, 1, 1, 1], [1, 1, 1, 1]),
        ),
      ],
      category: 'miss_param',
    });
    expect(measures.map((m) => m.measure)).toEqual(['greedy']);
    expect(measures[0]!.pairs[0]).toMatchObject({
      tasks: 2,
      meanBefore: 0.5,
      meanAfter: 1,
    });
    expect(
      taskInCategory('gen_test-id_multi_turn_long_context_12', 'long_context'),
    ).toBe(true);
    expect(taskInCategory('multi_turn_base_3', 'miss_func')).toBe(false);
  });

  it('should refuse runs it cannot pair, naming the run and what is wrong', () => {
    const a = run(
      'a',
      1,
      evaluation(0, [0, 0, 0, 0]),
      evaluation(4, [1, 0, 0, 0]),
    );
    expect(() => compareRuns({ runs: [a], step: 3 })).toThrow(
      "a: no 'test-id' evaluation at step 3 (recorded at steps 0, 4)",
    );
    expect(() => compareRuns({ runs: [a], sets: ['test-ood'] })).toThrow(
      "a: no 'test-ood' evaluation recorded",
    );
    expect(() => compareRuns({ runs: [a], controls: [] })).toThrow(
      '1 runs against 0 controls',
    );
    expect(() =>
      compareRuns({
        runs: [a],
        controls: [run('c', 2, evaluation(0, [0, 0, 0, 0]))],
      }),
    ).toThrow(
      "a (seed 1) has no control of the same seed (controls' seeds: 2)",
    );
    expect(() => compareRuns({ runs: [a], category: 'irrelevance' })).toThrow(
      "unknown category 'irrelevance'",
    );
    expect(() => compareRuns({ runs: [] })).toThrow('no runs to compare');
    const other = evaluation(4, [1, 0, 0, 0]);
    other.taskSuccess = { ...other.taskSuccess, extra_task: 1 };
    expect(() =>
      compareRuns({ runs: [run('b', 1, evaluation(0, [0, 0, 0, 0]), other)] }),
    ).toThrow(
      "b: the 'test-id' evaluations cover different tasks ('extra_task' is in one only)",
    );
  });
});

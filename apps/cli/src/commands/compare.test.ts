import { mkdtemp, mkdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { clusteredPairedBootstrap, pairedBootstrap } from '@seal/rl';
import type { EvalEvent } from '@seal/spec';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createOutput } from '../ui/output';
import { runCompare } from './compare';
import {
  compareRuns,
  pairRuns,
  taskInCategory,
  type ComparedRun,
} from './compare-runs';

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
    const [sampled, greedy] = compareRuns({
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
    expect(greedy!.minimumDetectableEffect?.over).toBe('tasks');
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
      'sampled',
      'greedy',
      'pass@k',
    ]);
    const [sampled, , passAtK] = measures;
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
    ).toEqual(['sampled', 'greedy']);
  });

  it('should pair runs with controls by seed whatever their order, and pool the cells in two stages', () => {
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
    const expected = clusteredPairedBootstrap({
      clusters: [
        { before: [1, 0, 0, 0], after: [1, 1, 0, 0] },
        { before: [0, 0, 0, 0], after: [1, 0, 0, 0] },
      ],
      seed: 1,
    });
    expect(greedy!.pooled).toEqual(expected);
    // Two runs with equal gains: a spread of 0 over runs says nothing of the spread
    // between runs, so the MDE falls back to the cells rather than print 0.
    expect(greedy!.minimumDetectableEffect?.over).toBe('tasks');
    expect(greedy!.minimumDetectableEffect!.value).toBeGreaterThan(0.25);
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

describe('runCompare', () => {
  let root: string;
  const output = () => {
    const stdout = new PassThrough();
    let text = '';
    stdout.on('data', (chunk: Buffer) => (text += chunk.toString()));
    return {
      output: createOutput({ json: false, stdout, stderr: new PassThrough() }),
      text: () => text,
    };
  };
  const writeRun = async (
    name: string,
    seed: number,
    events: EvalEvent[],
  ): Promise<string> => {
    const directory = join(root, name);
    await mkdir(directory, { recursive: true });
    await writeFile(
      join(directory, 'config.json'),
      JSON.stringify({
        schemaVersion: 1,
        runId: name,
        seed,
        method: 'grpo',
        steps: 4,
      }),
    );
    await writeFile(
      join(directory, 'events.jsonl'),
      events.map((event) => JSON.stringify(event)).join('\n') + '\n',
    );
    return directory;
  };

  beforeAll(async () => {
    root = await mkdtemp(join(tmpdir(), 'seal-compare-'));
  });
  afterAll(async () => {
    await rm(root, { recursive: true, force: true });
  });

  it('should print each pair and the pooled gain with its interval and minimum detectable effect', async () => {
    const probe = await writeRun('probe', 1, [
      evaluation(0, [0, 0, 1, 1], [0, 0, 0.5, 1]),
      evaluation(4, [1, 1, 1, 1], [1, 0.5, 0.5, 1]),
    ]);
    const control = await writeRun('control', 1, [
      evaluation(0, [0, 0, 1, 1], [0, 0, 0.5, 1]),
      evaluation(4, [0, 1, 1, 1], [0.25, 0.5, 0.5, 1]),
    ]);
    const { output: out, text } = output();
    expect(
      await runCompare({ argv: [probe, '--against', control], output: out }),
    ).toBe(0);
    expect(text()).toContain('1 run against 1 control');
    expect(text()).toContain('test-id, sampled pass@1');
    expect(text()).toMatch(
      /pooled over 1 run and 4 cells: \+18\.8 \[\+0\.0, \+56\.3\] points \(56\.3% → 75\.0%\)/,
    );
    expect(text()).toMatch(
      /test-id, greedy\n[\s\S]*pooled over 1 run and 4 cells: \+25\.0 \[\+0\.0, \+75\.0\]/,
    );
  });

  it('should refuse a directory that is not a run and flags it cannot use', async () => {
    const { output: out } = output();
    await expect(
      runCompare({ argv: [root], output: out }),
    ).rejects.toMatchObject({ code: 'NOT_FOUND' });
    await expect(runCompare({ argv: [], output: out })).rejects.toMatchObject({
      code: 'INVALID_ARGUMENT',
    });
    await expect(
      runCompare({ argv: [root, '--against-step', '3'], output: out }),
    ).rejects.toMatchObject({
      code: 'INVALID_ARGUMENT',
      message: '--against-step needs --against',
    });
    await expect(
      runCompare({ argv: [root, '--category', 'multi'], output: out }),
    ).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
  });
});

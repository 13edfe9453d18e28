import { runConfigSchema } from '@seal/spec';
import { describe, expect, it } from 'vitest';
import {
  dynamicSamplingOf,
  gradientGroups,
  refillBatch,
  refillStream,
  stepSamplingSeed,
  type GroupOutcomes,
} from './dynamic-sampling';

/**
 * Scripted groups of 3 rollouts: each task's rewards, and its turn verdicts
 * (rollout × turn). `flat*` tasks' rewards all agree (no gradient); `mixed*`
 * tasks' differ; `turns` agrees on the episode but not on its second turn.
 */
const script: Record<string, { rewards: number[]; turns?: number[][] }> = {
  mixedA: { rewards: [1, 0, 1] },
  flatB: { rewards: [0, 0, 0] },
  flatC: { rewards: [1, 1, 1] },
  mixedD: { rewards: [0, 1, 0] },
  flatE: { rewards: [0, 0, 0] },
  mixedF: { rewards: [1, 0, 0] },
  flatG: { rewards: [1, 1, 1] },
  mixedH: { rewards: [0, 0, 1] },
  turns: {
    rewards: [0, 0, 0],
    turns: [
      [1, 0],
      [1, 1],
      [1, 0],
    ],
  },
};

type ScriptTask = { id: string };

/** A round's outcomes, as the training loop's rollouts and verdicts give them. */
function outcomes(tasks: readonly ScriptTask[]): GroupOutcomes {
  const groups: string[] = [];
  const rewards: number[] = [];
  const turnRewards: number[][] = [];
  for (const task of tasks) {
    const { rewards: taskRewards, turns } = script[task.id]!;
    taskRewards.forEach((reward, i) => {
      groups.push(task.id);
      rewards.push(reward);
      turnRewards.push(turns?.[i] ?? [reward]);
    });
  }
  return { groups, rewards, turnRewards };
}

/** Runs the refill on scripted outcomes, recording each round's draw. */
async function refill({
  scheduled,
  stream,
  maxRefillRounds,
  turnCredit = false,
}: {
  scheduled: string[];
  stream: string[];
  maxRefillRounds: number;
  turnCredit?: boolean;
}) {
  const draws: { round: number; tasks: string[] }[] = [];
  const result = await refillBatch({
    first: outcomes(scheduled.map((id) => ({ id }))),
    target: scheduled.length,
    stream: stream.map((id) => ({ id })),
    maxRefillRounds,
    turnCredit,
    draw: (tasks, round) => {
      draws.push({ round, tasks: tasks.map((task) => task.id) });
      return Promise.resolve(outcomes(tasks));
    },
  });
  const inBatch = result.parts.flatMap((part) =>
    gradientGroups(part, { turnCredit }),
  );
  return { ...result, draws, inBatch };
}

describe('refillBatch', () => {
  it('should replace groups whose rewards all agree with fresh groups until the batch carries gradient', async () => {
    // 4 scheduled groups, 2 flat: round 1 draws 2 tasks (flatE, mixedF: one
    // useful), round 2 draws the 1 still missing (flatG: none), round 3 the
    // next (mixedH): 4 groups with gradient after 4 extra groups.
    const result = await refill({
      scheduled: ['mixedA', 'flatB', 'flatC', 'mixedD'],
      stream: ['flatE', 'mixedF', 'flatG', 'mixedH', 'turns'],
      maxRefillRounds: 3,
    });
    expect(result.draws).toEqual([
      { round: 1, tasks: ['flatE', 'mixedF'] },
      { round: 2, tasks: ['flatG'] },
      { round: 3, tasks: ['mixedH'] },
    ]);
    expect(result.inBatch).toEqual(['mixedA', 'mixedD', 'mixedF', 'mixedH']);
    expect(result.refilledGroups).toBe(4);
    expect(result.rounds).toBe(3);
    expect(result.gradientGroups).toBe(4);
  });

  it('should stop at the cap on rounds and keep what it has', async () => {
    const result = await refill({
      scheduled: ['mixedA', 'flatB', 'flatC', 'mixedD'],
      stream: ['flatE', 'mixedF', 'flatG', 'mixedH'],
      maxRefillRounds: 2,
    });
    expect(result.draws.map((draw) => draw.tasks)).toEqual([
      ['flatE', 'mixedF'],
      ['flatG'],
    ]);
    expect(result.inBatch).toEqual(['mixedA', 'mixedD', 'mixedF']);
    expect(result.refilledGroups).toBe(3);
    expect(result.rounds).toBe(2);
    expect(result.gradientGroups).toBe(3);
  });

  it('should stop at the end of the stream', async () => {
    const result = await refill({
      scheduled: ['flatB', 'flatC'],
      stream: ['flatE'],
      maxRefillRounds: 3,
    });
    expect(result.draws).toEqual([{ round: 1, tasks: ['flatE'] }]);
    expect(result.inBatch).toEqual([]);
    expect(result.refilledGroups).toBe(1);
    expect(result.gradientGroups).toBe(0);
  });

  it('should draw nothing when every scheduled group carries gradient, or with no rounds allowed', async () => {
    for (const [scheduled, maxRefillRounds] of [
      [['mixedA', 'mixedD'], 3],
      [['mixedA', 'flatB'], 0],
    ] as const) {
      const result = await refill({
        scheduled: [...scheduled],
        stream: ['mixedF'],
        maxRefillRounds,
      });
      expect(result.draws).toEqual([]);
      expect(result.parts).toHaveLength(1);
      expect(result.refilledGroups).toBe(0);
      expect(result.rounds).toBe(0);
    }
  });

  it('should count a group whose episodes agree but whose turns differ as carrying gradient under turn-level credit only', async () => {
    const scheduled = ['turns', 'mixedA'];
    const episodeOnly = await refill({
      scheduled,
      stream: ['mixedF'],
      maxRefillRounds: 3,
    });
    expect(episodeOnly.inBatch).toEqual(['mixedA', 'mixedF']);
    expect(episodeOnly.refilledGroups).toBe(1);
    const turnCredit = await refill({
      scheduled,
      stream: ['mixedF'],
      maxRefillRounds: 3,
      turnCredit: true,
    });
    expect(turnCredit.inBatch).toEqual(['turns', 'mixedA']);
    expect(turnCredit.refilledGroups).toBe(0);
  });

  it('should be deterministic for the seed: the same stream and draws, step by step', async () => {
    const pool = Object.keys(script).map((id) => ({ id }));
    const scheduled = [{ id: 'flatB' }, { id: 'flatC' }, { id: 'mixedA' }];
    const stream = (seed: number, step: number) =>
      refillStream({ seed, step, pool, scheduled }).map((task) => task.id);
    // The stream leaves out the step's own tasks and holds every other once.
    expect(stream(7, 3).sort()).toEqual(
      Object.keys(script)
        .filter((id) => !['flatB', 'flatC', 'mixedA'].includes(id))
        .sort(),
    );
    // Fixed by the seed and the step alone (a resumed run redraws it).
    expect(stream(7, 3)).toEqual(stream(7, 3));
    const orders = new Set(
      [1, 2, 3, 4, 5, 6].map((step) => stream(7, step).join()),
    );
    expect(orders.size).toBeGreaterThan(1);
    expect(stream(8, 3)).not.toEqual(stream(7, 3));
    const run = () =>
      refill({
        scheduled: scheduled.map((task) => task.id),
        stream: stream(7, 3),
        maxRefillRounds: 3,
      });
    const [first, second] = [await run(), await run()];
    expect(second.draws).toEqual(first.draws);
    expect(second.inBatch).toEqual(first.inBatch);
    // Refill rounds sample with seeds of their own, distinct from the scheduled batch's.
    const seeds = [0, 1, 2, 3].map((round) =>
      stepSamplingSeed({ seed: 7, step: 3, round }),
    );
    expect(new Set(seeds).size).toBe(4);
  });
});

describe('dynamicSamplingOf', () => {
  const parse = (dynamicSampling?: unknown) =>
    runConfigSchema.parse({
      runId: 'r',
      steps: 1,
      ...(dynamicSampling === undefined ? {} : { dynamicSampling }),
    });

  it('should read the default as off and keep it as written before', () => {
    const config = parse();
    expect(config.dynamicSampling).toBe(false);
    expect(dynamicSamplingOf(config)).toBeUndefined();
  });

  it('should read the earlier true as dropping without refill, and the settings object with its defaults', () => {
    expect(dynamicSamplingOf(parse(true))).toEqual({
      maxRefillRounds: 0,
      recorded: false,
    });
    expect(dynamicSamplingOf(parse({}))).toEqual({
      maxRefillRounds: 3,
      recorded: true,
    });
    expect(dynamicSamplingOf(parse({ maxRefillRounds: 5 }))).toEqual({
      maxRefillRounds: 5,
      recorded: true,
    });
    expect(dynamicSamplingOf(parse({ enabled: false }))).toBeUndefined();
  });

  it('should refuse malformed settings', () => {
    expect(() => parse({ maxRefillRounds: -1 })).toThrow();
    expect(() => parse({ rounds: 3 })).toThrow();
    expect(() => parse('yes')).toThrow();
  });
});

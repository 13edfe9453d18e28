import type { Task } from '@seal/spec';
import { describe, expect, it } from 'vitest';
import { trainConfigSchema } from '../config/train-config';
import { scheduleBatch } from './batch-schedule';

const categories = [
  'multi_turn_base',
  'multi_turn_miss_func',
  'multi_turn_miss_param',
  'multi_turn_long_context',
] as const;

function pool(sizes: Record<(typeof categories)[number], number>): Task[] {
  return categories.flatMap((category) =>
    Array.from({ length: sizes[category] }, (_, index) => ({
      schemaVersion: 1 as const,
      id: `${category}_${index}`,
      category,
      source: 'generated' as const,
      turns: [[{ role: 'user' as const, content: 'hi' }]],
      tools: [],
      holdouts: [],
      backend: {
        kind: 'bfcl' as const,
        involvedClasses: ['TicketAPI'],
        initialConfig: '{}',
        longContext: false,
      },
      groundTruth: [[]],
    })),
  );
}

const config = (input: Record<string, unknown>) =>
  trainConfigSchema.parse({ runId: 'r', steps: 1, tasksPerStep: 8, ...input });

function epoch(tasks: Task[], settings: Record<string, unknown>): Task[][] {
  const { perEpoch } = scheduleBatch({
    step: 1,
    config: config(settings),
    pool: tasks,
  });
  return Array.from(
    { length: perEpoch },
    (_, index) =>
      scheduleBatch({ step: index + 1, config: config(settings), pool: tasks })
        .batch,
  );
}

const counts = (batch: Task[]) =>
  categories.map(
    (category) => batch.filter((task) => task.category === category).length,
  );

describe('scheduleBatch', () => {
  const equal = pool({
    multi_turn_base: 10,
    multi_turn_miss_func: 10,
    multi_turn_miss_param: 10,
    multi_turn_long_context: 10,
  });

  it("should default to the papers' shuffle", () => {
    expect(config({}).batchOrder).toBe('shuffle');
  });

  it.each(['shuffle', 'stratified'] as const)(
    'should visit every task once per epoch (%s)',
    (batchOrder) => {
      const steps = epoch(equal, { seed: 3, batchOrder });
      expect(steps).toHaveLength(5);
      expect(new Set(steps.flat().map((task) => task.id)).size).toBe(40);
    },
  );

  it('should give every step of a stratified epoch two tasks of each of four equal categories', () => {
    for (const seed of [1, 2, 3]) {
      for (const batch of epoch(equal, { seed, batchOrder: 'stratified' }))
        expect(counts(batch)).toEqual([2, 2, 2, 2]);
    }
    // The shuffle does not: some step of these seeds holds a category zero or three or more times.
    const unbalanced = [1, 2, 3]
      .flatMap((seed) => epoch(equal, { seed }))
      .some((batch) => counts(batch).some((count) => count !== 2));
    expect(unbalanced).toBe(true);
  });

  it('should repeat with the seed, and change with the seed and the epoch', () => {
    const ids = (seed: number, step: number) =>
      scheduleBatch({
        step,
        config: config({ seed, batchOrder: 'stratified' }),
        pool: equal,
      }).batch.map((task) => task.id);
    expect(ids(1, 1)).toEqual(ids(1, 1));
    expect(ids(1, 1)).not.toEqual(ids(2, 1));
    expect(ids(1, 1)).not.toEqual(ids(1, 6));
  });

  it('should keep every task of unequal categories, the surplus last', () => {
    const tasks = pool({
      multi_turn_base: 12,
      multi_turn_miss_func: 4,
      multi_turn_miss_param: 8,
      multi_turn_long_context: 8,
    });
    const steps = epoch(tasks, { seed: 5, batchOrder: 'stratified' });
    expect(new Set(steps.flat().map((task) => task.id)).size).toBe(32);
    expect(counts(steps[0]!)).toEqual([2, 2, 2, 2]);
    // The last step holds the surplus: no miss_func left, base from the last rounds.
    expect(counts(steps[3]!)[1]).toBe(0);
    expect(counts(steps[3]!)[0]).toBeGreaterThanOrEqual(5);
  });
});

describe('scheduleBatch with a task mix', () => {
  const tasks = pool({
    multi_turn_base: 10,
    multi_turn_miss_func: 10,
    multi_turn_miss_param: 10,
    multi_turn_long_context: 10,
  });
  const mixed = (settings: Record<string, unknown>, step: number) =>
    scheduleBatch({ step, config: config(settings), pool: tasks }).batch;

  it('should give every step the weights’ shares: 4 of 8 for weight 3 of 6, 2 for 2, 1 and 1', () => {
    const taskMix = {
      multi_turn_miss_func: 3,
      multi_turn_base: 1,
      multi_turn_miss_param: 1,
      multi_turn_long_context: 1,
    };
    // Hand-computed smooth weighted round robin over 8 slots, total 6:
    // miss_func takes 8 × 3/6 = 4, the others 8 × 1/6 each = 1.33: two get 1, one gets 2.
    for (let step = 1; step <= 12; step += 1) {
      const [base, missFunc, missParam, longContext] = counts(
        mixed({ seed: 4, taskMix }, step),
      );
      expect(missFunc).toBe(4);
      expect(base! + missParam! + longContext!).toBe(4);
      expect(Math.min(base!, missParam!, longContext!)).toBe(1);
    }
  });

  it('should train only on the weighted categories, each task once per pass of its category, never twice in a step', () => {
    const taskMix = { multi_turn_miss_func: 1, multi_turn_base: 0 };
    const steps = Array.from({ length: 5 }, (_, index) =>
      mixed({ seed: 2, taskMix }, index + 1),
    );
    for (const batch of steps) {
      expect(counts(batch)).toEqual([0, 8, 0, 0]);
      expect(new Set(batch.map((task) => task.id)).size).toBe(8);
    }
    // 10 miss_func tasks: the first 10 slots are one pass over all of them.
    expect(
      new Set(
        steps
          .flat()
          .slice(0, 10)
          .map((task) => task.id),
      ).size,
    ).toBe(10);
    // Over 5 steps (40 slots, 4 passes) every task comes 4 times.
    const seen = new Map<string, number>();
    for (const task of steps.flat())
      seen.set(task.id, (seen.get(task.id) ?? 0) + 1);
    expect([...seen.values()]).toEqual(Array.from({ length: 10 }, () => 4));
  });

  it('should repeat with the seed and change with it', () => {
    const taskMix = { multi_turn_miss_func: 2, multi_turn_base: 1 };
    const ids = (seed: number, step: number) =>
      mixed({ seed, taskMix }, step).map((task) => task.id);
    expect(ids(1, 3)).toEqual(ids(1, 3));
    expect(ids(1, 3)).not.toEqual(ids(2, 3));
    expect(ids(1, 3)).not.toEqual(ids(1, 4));
  });

  it('should refuse a weighted category the pool lacks, or one too small for its places in a step', () => {
    expect(() =>
      mixed({ seed: 1, taskMix: { multi_turn_misc: 1 } }, 1),
    ).toThrow(/'multi_turn_misc', with no training task of that category/);
    const few = pool({
      multi_turn_base: 10,
      multi_turn_miss_func: 3,
      multi_turn_miss_param: 0,
      multi_turn_long_context: 0,
    });
    expect(() =>
      scheduleBatch({
        step: 1,
        config: config({ seed: 1, taskMix: { multi_turn_miss_func: 1 } }),
        pool: few,
      }),
    ).toThrow(/'multi_turn_miss_func' has 3 training tasks for 8 places/);
    expect(() => config({ taskMix: { multi_turn_base: 0 } })).toThrow();
  });
});

import { PyDict, parseCallString, pyRepr, type PyValue } from '@seal/python';
import type { Task, TaskCategory } from '@seal/spec';
import { verifyTrajectory } from '@seal/verifier';
import { describe, expect, it } from 'vitest';
import { createBfclToolSession } from '@seal/bfcl';
import {
  buildTask,
  createGeneratorRuntime,
  type TaskVariant,
} from './build-task';
import { checkGeneratedTask } from './check-generated-task';
import { taskFamilies } from './families';
import { generateTasks } from './generate-tasks';
import { supportsLongContext } from './generator-splits';

const runtime = createGeneratorRuntime();

/** The ground truth as a trajectory: one step per non-empty turn. */
function groundTruthTrajectory(task: Task): string[][][] {
  return task.groundTruth.map((calls) => (calls.length > 0 ? [calls] : []));
}

const pools: Record<string, Task[]> = {
  train: generateTasks({ seed: 202, split: 'train', count: 300 }),
  'test-id': generateTasks({ seed: 202, split: 'test-id', count: 200 }),
  'test-ood': generateTasks({ seed: 202, split: 'test-ood', count: 200 }),
  warmup: generateTasks({ seed: 202, split: 'warmup', count: 200 }),
};

describe.each(Object.keys(pools))('generated tasks of %s', (split) => {
  const tasks = pools[split]!;

  it('should run their ground truth without raising or error results', () => {
    const problems = tasks.flatMap((task) =>
      checkGeneratedTask({ task, runtime }).map((problem) => ({
        id: task.id,
        ...problem,
      })),
    );
    expect(problems).toEqual([]);
  });

  it('should verify their own ground truth as valid (official BFCL verdict)', () => {
    for (const task of tasks) {
      const result = verifyTrajectory({
        task,
        trajectory: groundTruthTrajectory(task),
        runtime,
      });
      expect(
        result.official.valid,
        `${task.id}: ${JSON.stringify(result.official)}`,
      ).toBe(true);
    }
  });
});

describe('every family and category', () => {
  const categories: TaskCategory[] = [
    'multi_turn_base',
    'multi_turn_miss_param',
    'multi_turn_miss_func',
    'multi_turn_long_context',
  ];

  it('should build sound tasks for many seeds (no draw is ever skipped)', () => {
    for (const family of taskFamilies) {
      for (const category of categories) {
        if (
          category === 'multi_turn_long_context' &&
          !supportsLongContext(family)
        )
          continue;
        for (let seed = 0; seed < 8; seed++) {
          const task = buildTask({
            family,
            category,
            seed,
            split: family.pool === 'in-distribution' ? 'train' : 'test-ood',
          });
          expect(
            checkGeneratedTask({ task, runtime }),
            `${family.id} ${category} ${seed}`,
          ).toEqual([]);
          const result = verifyTrajectory({
            task,
            trajectory: groundTruthTrajectory(task),
            runtime,
          });
          expect(
            result.official.valid,
            `${family.id} ${category} ${seed}`,
          ).toBe(true);
        }
      }
    }
  });
});

/** Leaf values of an argument: strings and numbers (booleans and None need no copying). */
function leaves(value: PyValue): (string | number | bigint)[] {
  if (
    typeof value === 'string' ||
    typeof value === 'number' ||
    typeof value === 'bigint'
  )
    return [value];
  if (Array.isArray(value)) return value.flatMap(leaves);
  if (value instanceof PyDict) return [...value.values()].flatMap(leaves);
  return [];
}

/** The spellings under which a value counts as present in text. */
function spellings(value: string | number | bigint): string[] {
  if (typeof value === 'string') return [value];
  const repr = pyRepr(value);
  return typeof value === 'number' && Number.isInteger(value)
    ? [repr, String(value)]
    : [repr];
}

describe('copyability', () => {
  it('should find every value the agent must produce in a request so far or in an earlier result', () => {
    const missing: string[] = [];
    for (const task of Object.values(pools).flat()) {
      const session = createBfclToolSession({ task, runtime });
      // Values a family's requests say in other words count when said that way.
      const family = taskFamilies.find(
        (item) => item.id === (task.meta as { family: string }).family,
      )!;
      const spoken = family.spokenForms ?? {};
      let seen = '';
      task.groundTruth.forEach((calls, turn) => {
        for (const message of task.turns[turn]!) seen += `\n${message.content}`;
        for (const call of calls) {
          const parsed = parseCallString(call);
          if (!parsed.success) throw new Error(`unparseable ${call}`);
          const values = [
            ...parsed.value.args,
            ...parsed.value.kwargs.map(([, value]) => value),
          ].flatMap(leaves);
          for (const value of values) {
            const forms =
              typeof value === 'string' && spoken[value] !== undefined
                ? [...spellings(value), spoken[value]]
                : spellings(value);
            const found = forms.some((text) =>
              seen.toLowerCase().includes(text.toLowerCase()),
            );
            if (!found)
              missing.push(
                `${task.id} turn ${turn}: ${pyRepr(value)} in ${call}`,
              );
          }
          seen += `\n${session.execute(call).result}`;
        }
      });
    }
    expect(missing).toEqual([]);
  });

  it('should keep a withheld value out of everything said before it is supplied', () => {
    for (const task of Object.values(pools)
      .flat()
      .filter((item) => item.category === 'multi_turn_miss_param')) {
      const variant = (task.meta as { variant: TaskVariant }).variant;
      if (variant.kind !== 'missing-parameter')
        throw new Error(`unexpected variant ${variant.kind}`);
      const supplied = task.turns[variant.turn + 1]![0]!.content;
      const asked = task.turns[variant.turn]![0]!.content;
      for (const value of variant.withheld) {
        const pattern = new RegExp(
          `(^|[^A-Za-z0-9_])${value.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}($|[^A-Za-z0-9_])`,
          'i',
        );
        expect(pattern.test(asked), `${task.id}: ${value} in "${asked}"`).toBe(
          false,
        );
        expect(supplied.length).toBeGreaterThan(0);
      }
    }
  });
});

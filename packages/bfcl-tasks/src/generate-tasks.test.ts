import {
  bfclClassRegistry,
  createBfclToolSession,
  toolDocFromSpec,
} from '@seal/bfcl';
import {
  hasSharedBfclData,
  loadSharedBfclData,
  sharedDataSkipMessage,
} from '@seal/bfcl/test';
import { parsePyJson, PyDict } from '@seal/python';
import { SealError, taskSchema, type Task } from '@seal/spec';
import { describe, expect, it } from 'vitest';
import { buildTask, createGeneratorRuntime } from './build-task';
import { checkGeneratedTask } from './check-generated-task';
import { taskFamilies } from './families';
import { generateTasks } from './generate-tasks';
import type { TaskVariant } from './build-task';

function variantOf(task: Task): TaskVariant {
  return (task.meta as { variant: TaskVariant }).variant;
}

function wordIn(text: string, word: string): boolean {
  const escaped = word.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  return new RegExp(`(^|[^A-Za-z0-9_])${escaped}($|[^A-Za-z0-9_])`, 'i').test(
    text,
  );
}

/** Total length of the results of a task's ground truth. */
function resultLength(task: Task): number {
  const session = createBfclToolSession({
    task,
    runtime: createGeneratorRuntime(),
  });
  return task.groundTruth
    .flat()
    .reduce((sum, call) => sum + session.execute(call).result.length, 0);
}

function codeOf(run: () => unknown): string | undefined {
  try {
    run();
  } catch (error) {
    return SealError.isInstance(error) ? error.code : 'not a SealError';
  }
  return undefined;
}

describe('generateTasks', () => {
  describe('determinism', () => {
    it('should give byte-identical tasks for the same options', () => {
      const first = JSON.stringify(
        generateTasks({ seed: 11, split: 'train', count: 60 }),
      );
      const second = JSON.stringify(
        generateTasks({ seed: 11, split: 'train', count: 60 }),
      );
      expect(second).toBe(first);
    });

    it('should give other tasks for another seed', () => {
      const first = generateTasks({ seed: 11, split: 'train', count: 20 });
      const second = generateTasks({ seed: 12, split: 'train', count: 20 });
      const firstKeys = new Set(
        first.map((task) => JSON.stringify(task.groundTruth)),
      );
      expect(
        second.filter((task) => firstKeys.has(JSON.stringify(task.groundTruth)))
          .length,
      ).toBeLessThan(3);
    });

    it('should give a prefix of a larger pool for a smaller count', () => {
      const small = generateTasks({ seed: 5, split: 'test-id', count: 12 });
      const large = generateTasks({ seed: 5, split: 'test-id', count: 24 });
      expect(JSON.stringify(large.slice(0, 12))).toBe(JSON.stringify(small));
    });
  });

  describe('shape', () => {
    const tasks = generateTasks({ seed: 3, split: 'train', count: 80 });

    it('should produce valid tasks with generated ids, source and meta', () => {
      for (const task of tasks) {
        expect(taskSchema.safeParse(task).success).toBe(true);
        expect(task.source).toBe('generated');
        expect(task.id).toMatch(
          /^gen_train_multi_turn_(base|miss_param|miss_func|long_context)_\d+$/,
        );
        expect(task.id.startsWith(`gen_train_${task.category}_`)).toBe(true);
        expect(task.backend.longContext).toBe(false);
        expect(task.meta).toMatchObject({
          generator: 'seal-bfcl-generator@1',
          split: 'train',
          generatorSeed: 3,
        });
        const meta = task.meta as {
          family: string;
          composition: string;
          classes: string[];
          templates: unknown[];
        };
        expect(taskFamilies.some((family) => family.id === meta.family)).toBe(
          true,
        );
        expect(meta.composition).toBe(task.backend.involvedClasses.join('+'));
        expect(meta.templates).toHaveLength(task.turns.length);
      }
    });

    it('should rotate through the four categories with ids counting per category', () => {
      const counts = new Map<string, number>();
      for (const task of tasks)
        counts.set(task.category, (counts.get(task.category) ?? 0) + 1);
      expect([...counts.values()]).toEqual([20, 20, 20, 20]);
      const base = tasks
        .filter((task) => task.category === 'multi_turn_base')
        .map((task) => task.id);
      expect(base).toEqual(
        Array.from({ length: 20 }, (_, n) => `gen_train_multi_turn_base_${n}`),
      );
    });

    it('should have one to four request turns per family turn, plus the variant turn', () => {
      for (const task of tasks) {
        const extra =
          task.category === 'multi_turn_miss_param' ||
          task.category === 'multi_turn_miss_func'
            ? 1
            : 0;
        expect(task.turns.length).toBeGreaterThanOrEqual(1 + extra);
        expect(task.turns.length).toBeLessThanOrEqual(4 + extra);
        expect(task.groundTruth).toHaveLength(task.turns.length);
      }
    });

    it('should list our own tool docs: the needed ones plus a few distractors of the same classes', () => {
      for (const task of tasks) {
        expect(task.tools.length).toBeGreaterThanOrEqual(4);
        expect(task.tools.length).toBeLessThanOrEqual(10);
        const names = task.tools.map((doc) => doc.name);
        for (const call of task.groundTruth.flat())
          expect(names).toContain(call.slice(0, call.indexOf('(')));
        for (const doc of task.tools) {
          const owner = task.backend.involvedClasses.find(
            (className) =>
              doc.name in
              bfclClassRegistry[className as keyof typeof bfclClassRegistry]
                .tools,
          );
          expect(owner).toBeDefined();
          const spec =
            bfclClassRegistry[owner as keyof typeof bfclClassRegistry].tools[
              doc.name
            ]!;
          expect(doc).toEqual(toolDocFromSpec({ name: doc.name, spec }));
        }
      }
    });

    it('should keep base-form initial states small', () => {
      for (const task of tasks.filter(
        (item) => item.category !== 'multi_turn_long_context',
      )) {
        expect(task.backend.initialConfig.length).toBeLessThan(2500);
      }
    });
  });

  describe('variants', () => {
    const tasks = generateTasks({ seed: 21, split: 'test-id', count: 160 });

    it('should ask for a missing parameter: empty ground truth, then the supplying turn has the calls', () => {
      const missParam = tasks.filter(
        (task) => task.category === 'multi_turn_miss_param',
      );
      expect(missParam.length).toBe(40);
      for (const task of missParam) {
        const variant = variantOf(task);
        if (variant.kind !== 'missing-parameter')
          throw new Error(`unexpected variant ${variant.kind}`);
        expect(task.groundTruth[variant.turn]).toEqual([]);
        expect(task.groundTruth[variant.turn + 1]!.length).toBeGreaterThan(0);
        expect(task.holdouts).toEqual([]);
        const asked = task.turns[variant.turn]![0]!.content;
        for (const value of variant.withheld)
          expect(
            wordIn(asked, value),
            `${task.id}: '${value}' in "${asked}"`,
          ).toBe(false);
      }
    });

    it("should withhold a function in BFCL's shape: a declined turn, then an empty holdout turn with the calls", () => {
      const missFunc = tasks.filter(
        (task) => task.category === 'multi_turn_miss_func',
      );
      expect(missFunc.length).toBe(40);
      for (const task of missFunc) {
        const variant = variantOf(task);
        if (variant.kind !== 'missing-function')
          throw new Error(`unexpected variant ${variant.kind}`);
        expect(task.holdouts).toEqual([
          { turn: variant.turn + 1, toolNames: [variant.tool] },
        ]);
        expect(task.turns[variant.turn + 1]).toEqual([]);
        expect(task.groundTruth[variant.turn]).toEqual([]);
        expect(
          task.groundTruth[variant.turn + 1]!.some((call) =>
            call.startsWith(`${variant.tool}(`),
          ),
        ).toBe(true);
        const before = task.groundTruth.slice(0, variant.turn + 1).flat();
        expect(before.some((call) => call.startsWith(`${variant.tool}(`))).toBe(
          false,
        );
        expect(task.tools.map((doc) => doc.name)).toContain(variant.tool);
      }
    });

    it('should give the long-context form the same requests and ground truth with a larger state', () => {
      for (const family of taskFamilies.filter((item) => item.longContext)) {
        for (let seed = 0; seed < 5; seed++) {
          const base = buildTask({ family, category: 'multi_turn_base', seed });
          const long = buildTask({
            family,
            category: 'multi_turn_long_context',
            seed,
          });
          expect(long.turns).toEqual(base.turns);
          expect(long.groundTruth).toEqual(base.groundTruth);
          expect(long.backend.initialConfig.length).toBeGreaterThan(
            base.backend.initialConfig.length * 1.3,
          );
          expect(resultLength(long)).toBeGreaterThan(resultLength(base));
          expect((long.meta as { fingerprint: string }).fingerprint).toBe(
            (base.meta as { fingerprint: string }).fingerprint,
          );
        }
      }
    });

    it('should produce only the requested variants', () => {
      const only = generateTasks({
        seed: 2,
        split: 'train',
        count: 10,
        variants: ['multi_turn_miss_func'],
      });
      expect(new Set(only.map((task) => task.category))).toEqual(
        new Set(['multi_turn_miss_func']),
      );
      expect(only.map((task) => task.id)).toEqual(
        Array.from(
          { length: 10 },
          (_, n) => `gen_train_multi_turn_miss_func_${n}`,
        ),
      );
    });

    it('should restrict a pool to the named families', () => {
      const only = generateTasks({
        seed: 2,
        split: 'train',
        count: 8,
        families: ['math.stats', 'files.inspect'],
      });
      expect(
        new Set(only.map((task) => (task.meta as { family: string }).family)),
      ).toEqual(new Set(['math.stats', 'files.inspect']));
    });
  });

  describe('warmup', () => {
    it('should hold base-style tasks only', () => {
      const tasks = generateTasks({ seed: 1, split: 'warmup', count: 40 });
      expect(new Set(tasks.map((task) => task.category))).toEqual(
        new Set(['multi_turn_base']),
      );
      expect(
        tasks.every((task) =>
          task.groundTruth.every((calls) => calls.length > 0),
        ),
      ).toBe(true);
    });

    it('should produce missing-parameter and missing-function variants when asked', () => {
      const tasks = generateTasks({
        seed: 1,
        split: 'warmup',
        count: 8,
        variants: ['multi_turn_miss_param', 'multi_turn_miss_func'],
      });
      expect(new Set(tasks.map((task) => task.category))).toEqual(
        new Set(['multi_turn_miss_param', 'multi_turn_miss_func']),
      );
      // Each has one turn with no ground-truth call (the agent must ask or wait).
      expect(
        tasks.every(
          (task) =>
            task.groundTruth.filter((calls) => calls.length === 0).length === 1,
        ),
      ).toBe(true);
    });
  });

  describe('bad input', () => {
    it('should reject malformed options with INVALID_ARGUMENT', () => {
      expect(
        codeOf(() => generateTasks({ seed: -1, split: 'train', count: 1 })),
      ).toBe('INVALID_ARGUMENT');
      expect(
        codeOf(() =>
          generateTasks({ seed: 1, split: 'dev' as 'train', count: 1 }),
        ),
      ).toBe('INVALID_ARGUMENT');
      expect(
        codeOf(() => generateTasks({ seed: 1, split: 'train', count: 1.5 })),
      ).toBe('INVALID_ARGUMENT');
      expect(
        codeOf(() =>
          generateTasks({
            seed: 1,
            split: 'train',
            count: 1,
            families: ['no.such'],
          }),
        ),
      ).toBe('INVALID_ARGUMENT');
    });

    it('should reject a long-context task of a family without a long form', () => {
      const family = taskFamilies.find((item) => !item.longContext)!;
      expect(
        codeOf(() =>
          buildTask({ family, category: 'multi_turn_long_context', seed: 1 }),
        ),
      ).toBe('INVALID_ARGUMENT');
    });

    it('should reject an out-of-distribution family in the train split', () => {
      expect(
        codeOf(() =>
          generateTasks({
            seed: 1,
            split: 'train',
            count: 1,
            families: ['cross.file-to-message'],
          }),
        ),
      ).toBe('INVALID_ARGUMENT');
    });
  });

  describe('independence from BFCL data', () => {
    it('should load generated states without falling back to any default', () => {
      for (const task of generateTasks({
        seed: 4,
        split: 'train',
        count: 60,
      })) {
        const config = parsePyJson(task.backend.initialConfig) as PyDict;
        for (const className of task.backend.involvedClasses) {
          if (className === 'MathAPI') continue;
          expect(config.get(className)).toBeInstanceOf(PyDict);
        }
      }
    });

    it.skipIf(!hasSharedBfclData)(
      'should run the same under BFCL’s runtime data as under an empty one',
      async () => {
        const { runtime } = await loadSharedBfclData();
        const tasks = generateTasks({ seed: 9, split: 'train', count: 40 });
        expect(
          JSON.stringify(
            generateTasks({ seed: 9, split: 'train', count: 40, runtime }),
          ),
        ).toBe(JSON.stringify(tasks));
        for (const task of tasks)
          expect(checkGeneratedTask({ task, runtime })).toEqual([]);
      },
    );

    describe.skipIf(hasSharedBfclData)('with BFCL data', () => {
      it.skip(sharedDataSkipMessage, () => {});
    });
  });
});

import type { Task } from '@seal/spec';
import { describe, expect, it } from 'vitest';
import { taskFamilies } from './families';
import { generateTasks } from './generate-tasks';
import { contentBucket, splitBuckets } from './generator-splits';
import { heldOutTemplateId, phrasingPattern, templateIdOf } from './phrasing';

type Meta = {
  fingerprint: string;
  templates: (string | null)[];
  family: string;
  composition: string;
  ood: string | null;
};

const metaOf = (task: Task): Meta => task.meta as Meta;

/** What a task asks and expects: requests, ground truth and initial state. */
const contentKey = (task: Task): string =>
  JSON.stringify([
    task.turns.map((turn) => turn.map((message) => message.content)),
    task.groundTruth,
    task.backend.initialConfig,
  ]);

const pools = {
  train: generateTasks({ seed: 101, split: 'train', count: 400 }),
  'test-id': generateTasks({ seed: 101, split: 'test-id', count: 200 }),
  'test-ood': generateTasks({ seed: 101, split: 'test-ood', count: 200 }),
  warmup: generateTasks({ seed: 101, split: 'warmup', count: 200 }),
};
const splitNames = Object.keys(pools) as (keyof typeof pools)[];

const heldOut = taskFamilies.flatMap((family) =>
  family.intents.map((intent) => ({
    id: heldOutTemplateId(intent),
    pattern: phrasingPattern(intent.phrasings.at(-1)!),
  })),
);
const heldOutIds = new Set(heldOut.map((template) => template.id));
const oodCompositions = new Set(
  taskFamilies
    .filter((family) => family.pool === 'out-of-distribution')
    .map((family) => family.classes.join('+')),
);

describe('generator splits', () => {
  it('should never share content between two splits', () => {
    for (const [i, a] of splitNames.entries()) {
      const keys = new Set(pools[a].map(contentKey));
      for (const b of splitNames.slice(i + 1)) {
        const shared = pools[b].filter((task) => keys.has(contentKey(task)));
        expect(
          shared.map((task) => task.id),
          `${a} vs ${b}`,
        ).toEqual([]);
      }
    }
  });

  it('should never share values (ground-truth fingerprints) between train, warmup and the tests', () => {
    const groups = {
      train: pools.train,
      warmup: pools.warmup,
      test: [...pools['test-id'], ...pools['test-ood']],
    };
    const names = Object.keys(groups) as (keyof typeof groups)[];
    for (const [i, a] of names.entries()) {
      const prints = new Set(groups[a].map((task) => metaOf(task).fingerprint));
      for (const b of names.slice(i + 1)) {
        expect(
          groups[b]
            .filter((task) => prints.has(metaOf(task).fingerprint))
            .map((task) => task.id),
          `${a} vs ${b}`,
        ).toEqual([]);
      }
    }
  });

  it('should keep every in-distribution task in its own content buckets', () => {
    const allowed = {
      train: splitBuckets.train,
      'test-id': splitBuckets.test,
      warmup: splitBuckets.warmup,
    };
    for (const name of ['train', 'test-id', 'warmup'] as const) {
      for (const task of pools[name])
        expect(allowed[name]).toContain(
          contentBucket(metaOf(task).fingerprint),
        );
    }
  });

  it('should never repeat a task within a split', () => {
    for (const name of splitNames) {
      const keys = pools[name].map(
        (task) => `${task.category}:${metaOf(task).fingerprint}`,
      );
      expect(new Set(keys).size).toBe(keys.length);
    }
  });

  it('should keep held-out templates out of train, test-id and warmup (by id and by text)', () => {
    for (const name of ['train', 'test-id', 'warmup'] as const) {
      for (const task of pools[name]) {
        for (const id of metaOf(task).templates)
          if (id !== null)
            expect(heldOutIds.has(id), `${task.id} uses ${id}`).toBe(false);
        for (const turn of task.turns) {
          for (const message of turn) {
            const leaked = heldOut.filter((template) =>
              template.pattern.test(message.content),
            );
            expect(
              leaked.map((template) => template.id),
              `${task.id}: "${message.content}"`,
            ).toEqual([]);
          }
        }
      }
    }
  });

  it('should keep held-out class compositions out of train, test-id and warmup', () => {
    for (const name of ['train', 'test-id', 'warmup'] as const) {
      for (const task of pools[name])
        expect(oodCompositions.has(metaOf(task).composition)).toBe(false);
    }
  });

  it('should phrase in-distribution families of test-ood with held-out templates only', () => {
    const templated = pools['test-ood'].filter(
      (task) => metaOf(task).ood === 'template',
    );
    expect(templated.length).toBeGreaterThan(90);
    for (const task of templated) {
      for (const id of metaOf(task).templates)
        if (id !== null)
          expect(heldOutIds.has(id), `${task.id} uses ${id}`).toBe(true);
    }
  });

  it('should include held-out compositions in test-ood', () => {
    const composed = pools['test-ood'].filter(
      (task) => metaOf(task).ood === 'composition',
    );
    expect(composed.length).toBeGreaterThan(60);
    for (const task of composed)
      expect(oodCompositions.has(metaOf(task).composition)).toBe(true);
  });

  it('should use distinct template ids for distinct phrasings', () => {
    const texts = new Map<string, string>();
    for (const family of taskFamilies) {
      for (const intent of family.intents) {
        intent.phrasings.forEach((text, index) => {
          const id = templateIdOf({ intent, index });
          const known = texts.get(id);
          if (known !== undefined) expect(known).toBe(text);
          texts.set(id, text);
        });
      }
    }
    expect(texts.size).toBeGreaterThan(400);
  });

  it('should make no in-distribution phrasing match a held-out template', () => {
    for (const family of taskFamilies) {
      for (const intent of family.intents) {
        for (const text of intent.phrasings.slice(0, -1)) {
          const sample = text.replace(/\{[a-zA-Z0-9_]+\}/g, 'x');
          expect(
            heldOut
              .filter((template) => template.pattern.test(sample))
              .map((template) => template.id),
            `${text}`,
          ).toEqual([]);
        }
      }
    }
  });
});

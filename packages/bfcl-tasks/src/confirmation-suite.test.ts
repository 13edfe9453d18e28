import { describe, expect, it } from 'vitest';
import { SealError } from '@seal/spec';
import {
  confirmationTaskPrefix,
  generateConfirmationTasks,
} from './confirmation-suite';
import { generateTasks } from './generate-tasks';
import { confirmationSuiteSeed } from './seeds';

const contentOf = (task: {
  category: string;
  meta?: Record<string, unknown>;
}) => `${task.category}:${String(task.meta?.['fingerprint'])}`;

describe('generateConfirmationTasks', () => {
  it('should draw tasks disjoint in ids and in content from the development suite', () => {
    for (const split of ['test-id', 'test-ood'] as const) {
      // The development suite of the embedded presets: seed 1.
      const development = generateTasks({ seed: 1, split, count: 64 });
      const confirmation = generateConfirmationTasks({
        split,
        count: 64,
        excluding: development,
      });
      expect(confirmation).toHaveLength(64);
      const ids = new Set(development.map((task) => task.id));
      expect(confirmation.filter((task) => ids.has(task.id))).toEqual([]);
      expect(
        confirmation.every((task) =>
          task.id.startsWith(`${confirmationTaskPrefix}gen_${split}_`),
        ),
      ).toBe(true);
      const contents = new Set(development.map(contentOf));
      expect(
        confirmation.filter((task) => contents.has(contentOf(task))),
      ).toEqual([]);
      expect(new Set(confirmation.map((task) => task.category)).size).toBe(4);
      expect(confirmation[0]!.meta).toMatchObject({
        suite: 'confirmation',
        generatorSeed: confirmationSuiteSeed,
      });
    }
  });

  it('should leave out what the development suite holds: without the exclusion the two share tasks', () => {
    // The same generator, another seed: a few draws repeat the development
    // suite's values, which is why the exclusion exists.
    const development = generateTasks({
      seed: 1,
      split: 'test-ood',
      count: 64,
    });
    const contents = new Set(development.map(contentOf));
    const unfiltered = generateTasks({
      seed: confirmationSuiteSeed,
      split: 'test-ood',
      count: 256,
    });
    expect(
      unfiltered.filter((task) => contents.has(contentOf(task))).length,
    ).toBeGreaterThan(0);
  });

  it('should be deterministic and not depend on the margin it draws', () => {
    const a = generateConfirmationTasks({ split: 'test-id', count: 12 });
    expect(generateConfirmationTasks({ split: 'test-id', count: 12 })).toEqual(
      a,
    );
    // The first 12 of a larger draw are the same tasks.
    expect(
      generateConfirmationTasks({ split: 'test-id', count: 40 }).slice(0, 12),
    ).toEqual(a);
  });

  it('should refuse a split that is not held out', () => {
    let caught: unknown;
    try {
      generateConfirmationTasks({
        split: 'train' as 'test-id',
        count: 4,
      });
    } catch (error) {
      caught = error;
    }
    expect(SealError.isInstance(caught) && caught.code).toBe(
      'INVALID_ARGUMENT',
    );
  });
});

import { confirmationSuiteSeed } from '@seal/bfcl-tasks';
import { describe, expect, it } from 'vitest';
import { loadTaskSuite } from './eval-task-suite';

describe('loadTaskSuite --suite confirmation', () => {
  it("should give the confirmation suite: the development suite's sizes, other ids and tasks, its own identity", async () => {
    const development = await loadTaskSuite({
      flags: { 'task-source': 'embedded', preset: 'smoke' },
      hints: {},
    });
    const confirmation = await loadTaskSuite({
      flags: {
        'task-source': 'embedded',
        preset: 'smoke',
        suite: 'confirmation',
      },
      hints: {},
    });
    expect(confirmation.tasks).toHaveLength(development.tasks.length);
    const ids = new Set(development.tasks.map((task) => task.id));
    expect(confirmation.tasks.filter((task) => ids.has(task.id))).toEqual([]);
    expect(
      confirmation.tasks.every((task) => task.id.startsWith('confirm_gen_')),
    ).toBe(true);
    expect(confirmation.identity).toMatchObject({
      suite: 'confirmation',
      suiteSeed: confirmationSuiteSeed,
    });
    expect(development.identity).not.toHaveProperty('suite');
    expect(confirmation.description).toContain(
      `confirmation suite (generator seed ${confirmationSuiteSeed}`,
    );
  });

  it('should refuse the confirmation suite for BFCL tasks', async () => {
    await expect(
      loadTaskSuite({
        flags: { 'task-source': 'bfcl', suite: 'confirmation' },
        hints: {},
      }),
    ).rejects.toMatchObject({
      code: 'INVALID_ARGUMENT',
      message: expect.stringContaining('--task-source embedded'),
    });
  });
});

import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import parity from './__fixtures__/seal-state-parity.json' with { type: 'json' };
import { CapabilityState, createCapabilityState } from './capability-state';
import {
  loadCapabilityState,
  saveCapabilityState,
  writeCapabilitySnapshot,
} from './capability-state-file';
import { inferTaskCategory } from './task-category';

async function tempDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'seal-diagnose-'));
  onTestFinished(() => rm(dir, { recursive: true, force: true }));
  return dir;
}

type SealStats = {
  count: number;
  success: number;
  reward_sum: number;
  partial_count: number;
};
const fromSeal = (stats: Record<string, SealStats>) =>
  Object.fromEntries(
    Object.entries(stats).map(([key, s]) => [
      key,
      {
        count: s.count,
        success: s.success,
        rewardSum: s.reward_sum,
        partialCount: s.partial_count,
      },
    ]),
  );

describe('CapabilityState', () => {
  describe('counting rule', () => {
    it('should count a tag once per occurrence, each adding the trajectory reward', () => {
      const state = createCapabilityState();
      state.observe({
        taskId: 'multi_turn_base_3',
        reward: 0.25,
        tags: ['pass', 'state_mismatch', 'state_mismatch', 'state_mismatch'],
      });
      const tags = state.stats({ scope: 'total', bucket: 'tags' });
      expect(tags['state_mismatch']).toEqual({
        count: 3,
        success: 0,
        rewardSum: 0.75,
        partialCount: 3,
      });
      expect(tags['pass']).toEqual({
        count: 1,
        success: 0,
        rewardSum: 0.25,
        partialCount: 1,
      });
      // A category counts once per trajectory.
      expect(
        state.stats({ scope: 'total', bucket: 'categories' })[
          'multi_turn_base'
        ],
      ).toEqual({
        count: 1,
        success: 0,
        rewardSum: 0.25,
        partialCount: 1,
      });
      expect(
        state.stats({ scope: 'total', bucket: 'categoryTags' })[
          'multi_turn_base::state_mismatch'
        ]?.count,
      ).toBe(3);
    });

    it('should count success as reward >= 1 and partial as 0 < reward < 1', () => {
      const state = createCapabilityState();
      state.observe({ taskId: 'multi_turn_base_1', reward: 1, tags: ['pass'] });
      state.observe({ taskId: 'multi_turn_base_1', reward: 0, tags: ['pass'] });
      state.observe({
        taskId: 'multi_turn_base_1',
        reward: 0.5,
        tags: ['pass'],
      });
      expect(state.stats({ scope: 'total', bucket: 'tags' })['pass']).toEqual({
        count: 3,
        success: 1,
        rewardSum: 1.5,
        partialCount: 1,
      });
    });

    it('should bucket positions over the tags that remain, and use only for one tag', () => {
      const state = createCapabilityState();
      state.observe({
        taskId: 'multi_turn_base_1',
        reward: 0,
        tags: ['pass', null, 'empty_turn_model_response', 'state_mismatch'],
      });
      state.observe({ taskId: 'multi_turn_base_2', reward: 1, tags: ['pass'] });
      expect(
        Object.keys(state.stats({ scope: 'total', bucket: 'turnPositions' })),
      ).toEqual([
        'early::pass',
        'middle::empty_turn_model_response',
        'late::state_mismatch',
        'only::pass',
      ]);
    });

    it('should count a trajectory without tags as one unknown tag', () => {
      const state = createCapabilityState();
      expect(
        state.observe({
          taskId: 'multi_turn_miss_func_4',
          reward: 0,
          tags: [],
        }),
      ).toBe('unknown');
      expect(
        state.observe({
          taskId: 'multi_turn_miss_func_4',
          reward: 0,
          tags: undefined,
        }),
      ).toBe('unknown');
      expect(state.stats({ scope: 'total', bucket: 'tags' })).toEqual({
        unknown: { count: 2, success: 0, rewardSum: 0, partialCount: 0 },
      });
      expect(state.task('multi_turn_miss_func_4')?.lastTag).toBe('unknown');
    });

    it('should keep fine tags apart from SEAL tags', () => {
      const state = createCapabilityState();
      state.observe({
        taskId: 'multi_turn_base_1',
        reward: 0,
        tags: ['pass', 'state_mismatch'],
        fineTags: [
          ['invalid_tool_call'],
          ['argument_mismatch', 'recovery_failure'],
        ],
      });
      expect(
        Object.keys(state.stats({ scope: 'total', bucket: 'tags' })),
      ).toEqual(['pass', 'state_mismatch']);
      expect(
        Object.keys(state.stats({ scope: 'total', bucket: 'fineTags' })),
      ).toEqual(['invalid_tool_call', 'argument_mismatch', 'recovery_failure']);
    });

    it('should infer the category from the task id prefix unless one is given', () => {
      const state = createCapabilityState();
      state.observe({
        taskId: 'multi_turn_long_context_7',
        reward: 1,
        tags: ['pass'],
      });
      state.observe({
        taskId: 'gen_x_1',
        category: 'multi_turn_base',
        reward: 1,
        tags: ['pass'],
      });
      expect(
        Object.keys(state.stats({ scope: 'total', bucket: 'categories' })),
      ).toEqual(['multi_turn_long_context', 'multi_turn_base']);
    });

    it('should remember per task the last dominant tag, reward and step, and tag counts', () => {
      const state = createCapabilityState();
      state.observe({
        taskId: 'multi_turn_base_3',
        reward: 0,
        tags: ['pass', 'state_mismatch'],
        step: 4,
      });
      state.observe({
        taskId: 'multi_turn_base_3',
        reward: 1,
        tags: ['pass', 'pass'],
        step: 5,
      });
      expect(state.task('multi_turn_base_3')).toEqual({
        taskId: 'multi_turn_base_3',
        category: 'multi_turn_base',
        count: 2,
        success: 1,
        rewardSum: 1,
        lastReward: 1,
        lastSuccess: true,
        lastTag: 'pass',
        tagCounts: { pass: 3, state_mismatch: 1 },
        lastStep: 5,
      });
    });

    it("should match SEAL's state.py on the same observations", () => {
      const state = createCapabilityState();
      const dominant = parity.observations.map((observation, step) =>
        state.observe({
          category: inferTaskCategory(observation.task_id),
          taskId: observation.task_id,
          reward: observation.reward,
          tags: observation.tags,
          epoch: 1,
          step,
        }),
      );
      expect(dominant).toEqual(parity.dominant);
      const record = state.toJSON();
      const seal = parity.state;
      expect(record.total.tags).toEqual(fromSeal(seal.total_tags));
      expect(record.total.categories).toEqual(fromSeal(seal.total_categories));
      expect(record.total.categoryTags).toEqual(
        fromSeal(seal.total_category_tags),
      );
      expect(record.total.turnPositions).toEqual(
        fromSeal(seal.total_turn_positions),
      );
      expect(record.window.tags).toEqual(fromSeal(seal.window_tags));
      expect(record.observeCount).toBe(seal.observe_count);
      for (const [taskId, task] of Object.entries(seal.tasks)) {
        expect(record.tasks[taskId]).toMatchObject({
          category: task.category,
          count: task.count,
          success: task.success,
          rewardSum: task.reward_sum,
          lastReward: task.last_reward,
          lastSuccess: task.last_success,
          lastTag: task.last_tag,
          tagCounts: task.tag_counts,
          lastStep: task.last_step,
        });
      }
    });
  });

  describe('window', () => {
    it('should reset the window and keep the total', () => {
      const state = createCapabilityState();
      state.observe({
        taskId: 'multi_turn_base_1',
        reward: 0,
        tags: ['state_mismatch'],
        errors: ['boom'],
      });
      state.resetWindow();
      expect(state.stats({ scope: 'window', bucket: 'tags' })).toEqual({});
      expect(
        state.stats({ scope: 'total', bucket: 'tags' })['state_mismatch']
          ?.count,
      ).toBe(1);
      expect(state.topErrors()).toEqual([]);
      // The closed loop falls back to the total while the window is empty.
      expect(state.activeTagStats()).toEqual(
        state.stats({ scope: 'total', bucket: 'tags' }),
      );
      state.observe({ taskId: 'multi_turn_base_1', reward: 1, tags: ['pass'] });
      expect(Object.keys(state.activeTagStats())).toEqual(['pass']);
    });

    it('should snapshot the window with rates and the most common errors', async () => {
      const state = createCapabilityState();
      state.observe({
        taskId: 'multi_turn_base_1',
        reward: 0,
        tags: ['state_mismatch'],
        errors: ['a', 'b', 'b'],
        epoch: 2,
      });
      state.observe({
        taskId: 'multi_turn_base_2',
        reward: 1,
        tags: ['state_mismatch'],
        errors: ['a', 'b'],
        epoch: 2,
      });
      const snapshot = state.snapshot();
      expect(snapshot.tags['state_mismatch']).toEqual({
        count: 2,
        success: 1,
        successRate: 0.5,
        rewardMean: 0.5,
        partialCount: 0,
      });
      expect(snapshot.topErrors).toEqual([
        ['b', 3],
        ['a', 2],
      ]);
      const dir = await tempDir();
      const path = await writeCapabilitySnapshot({ state, dir, epoch: 2 });
      expect(path).toBe(join(dir, 'epoch_2.json'));
      expect(JSON.parse(await readFile(path, 'utf8'))).toEqual(snapshot);
    });
  });

  describe('persistence', () => {
    it('should round-trip through save and load, dynamic tag weights included', async () => {
      const state = createCapabilityState();
      state.observe({
        taskId: 'multi_turn_base_1',
        reward: 1,
        tags: ['pass', 'pass'],
        fineTags: [[], ['invalid_tool_call']],
        epoch: 'e1',
        step: 3,
      });
      state.observe({
        taskId: '__proto__',
        reward: 0,
        tags: ['constructor'],
        errors: ['toString'],
      });
      state.setDynamicTagWeights({ state_mismatch: 1.12, pass: 1 });
      const path = join(await tempDir(), 'nested', 'capability_state.json');
      await saveCapabilityState({ state, path });
      const loaded = await loadCapabilityState({ path });
      expect(loaded.toJSON()).toEqual(state.toJSON());
      expect(loaded.dynamicTagWeights).toEqual({
        state_mismatch: 1.12,
        pass: 1,
      });
      expect(loaded.task('__proto__')?.lastTag).toBe('constructor');
      // Written atomically: no temp file is left beside it.
      expect(await readdir(join(path, '..'))).toEqual([
        'capability_state.json',
      ]);
      const raw = JSON.parse(await readFile(path, 'utf8')) as {
        schemaVersion: number;
      };
      expect(raw.schemaVersion).toBe(1);
    });

    it('should reject an unknown schema version', async () => {
      const path = join(await tempDir(), 'capability_state.json');
      await writeFile(
        path,
        JSON.stringify({
          ...createCapabilityState().toJSON(),
          schemaVersion: 2,
        }),
      );
      await expect(loadCapabilityState({ path })).rejects.toMatchObject({
        code: 'UNSUPPORTED_SPEC_VERSION',
      });
    });

    it('should reject a malformed file with INVALID_DATA', async () => {
      const dir = await tempDir();
      const badJson = join(dir, 'a.json');
      await writeFile(badJson, '{"schemaVersion": 1,');
      await expect(
        loadCapabilityState({ path: badJson }),
      ).rejects.toMatchObject({ code: 'INVALID_DATA' });
      const badField = join(dir, 'b.json');
      const record = createCapabilityState().toJSON();
      await writeFile(
        badField,
        JSON.stringify({
          ...record,
          total: { ...record.total, tags: { pass: { count: -1 } } },
        }),
      );
      await expect(
        loadCapabilityState({ path: badField }),
      ).rejects.toMatchObject({ code: 'INVALID_DATA' });
    });

    it('should report a missing file, or start empty when asked', async () => {
      const path = join(await tempDir(), 'missing.json');
      await expect(loadCapabilityState({ path })).rejects.toMatchObject({
        code: 'FILE_NOT_FOUND',
      });
      expect(
        (await loadCapabilityState({ path, missing: 'empty' })).observeCount,
      ).toBe(0);
    });

    it('should refuse non-finite dynamic weights', () => {
      const state = new CapabilityState();
      expect(() => state.setDynamicTagWeights({ pass: Number.NaN })).toThrow(
        expect.objectContaining({ code: 'INVALID_ARGUMENT' }),
      );
    });
  });
});

import { bfclTasks, createBfclBackend, type BfclSession } from '@seal/bfcl';
import { toJsonValue } from '@seal/python';
import {
  hasSharedBfclData,
  loadSharedBfclData,
  sharedDataSkipMessage,
} from '@seal/bfcl/test';
import { taskV2Schema, toolDocV2Schema } from '@seal/spec';
import { aggregateScoresV2, checkEnvironmentV2 } from '@seal/verifier';
import { describe, expect, it } from 'vitest';
import {
  fromToolBackendV1,
  taskV2FromV1,
  toolDocV2FromV1,
} from './from-tool-backend-v1';

describe.skipIf(!hasSharedBfclData)('fromToolBackendV1', () => {
  if (!hasSharedBfclData) console.warn(sharedDataSkipMessage);

  it('should give the v1 result text of every ground-truth call through v2 sessions', async () => {
    const dataset = await loadSharedBfclData();
    const tasks = bfclTasks({ dataset }).filter((_, index) => index % 40 === 0);
    expect(tasks.length).toBeGreaterThanOrEqual(10);
    const backend = createBfclBackend({ runtime: dataset.runtime });
    const environment = fromToolBackendV1({ backend, tasks });
    for (const task of tasks) {
      const v2Task = taskV2Schema.parse(taskV2FromV1(task));
      const v1Session = backend.createSession(task);
      const v2Session = await environment.openSession({
        task: v2Task,
        role: 'ground-truth',
      });
      for (const [turn, calls] of (v2Task.groundTruth ?? []).entries()) {
        for (const [index, call] of calls.entries()) {
          const v1 = v1Session.execute(task.groundTruth[turn]![index]!);
          const v2 = await v2Session.call(call);
          expect(v2.content).toBe(v1.result);
          expect(v2.ok).toBe(v1.status === 'ok');
        }
      }
      await v2Session.close();
    }
  });

  it('should render JSON arguments as call text when a call has none', async () => {
    const dataset = await loadSharedBfclData();
    const [task] = bfclTasks({ dataset, ids: ['multi_turn_base_0'] });
    const backend = createBfclBackend({ runtime: dataset.runtime });
    const environment = fromToolBackendV1({ backend, tasks: [task!] });
    const v2Task = taskV2FromV1(task!);
    const session = await environment.openSession({
      task: v2Task,
      role: 'policy',
    });
    const reference = backend.createSession(task!);
    for (const call of v2Task.groundTruth?.[0] ?? []) {
      const { callText, ...structured } = call;
      const outcome = await session.call(structured);
      expect(outcome.content).toBe(reference.execute(callText!).result);
    }
  });

  it('should convert every BFCL doc into a valid MCP-shaped doc', async () => {
    const dataset = await loadSharedBfclData();
    for (const docs of dataset.docs.values()) {
      for (const doc of docs) {
        const v2 = toolDocV2FromV1(doc);
        expect(toolDocV2Schema.safeParse(v2).success).toBe(true);
        expect(JSON.stringify(v2.inputSchema)).not.toContain('"dict"');
      }
    }
  });

  it('should refuse a task it was not given', async () => {
    const dataset = await loadSharedBfclData();
    const [task] = bfclTasks({ dataset, ids: ['multi_turn_base_0'] });
    const environment = fromToolBackendV1({
      backend: createBfclBackend({ runtime: dataset.runtime }),
      tasks: [],
    });
    await expect(
      environment.openSession({ task: taskV2FromV1(task!), role: 'policy' }),
    ).rejects.toMatchObject({ code: 'NOT_FOUND' });
  });
});

describe.skipIf(!hasSharedBfclData)('BFCL as a v2 environment', () => {
  it('should pass the generic env check on BFCL tasks of all four categories, with state snapshots', async () => {
    const dataset = await loadSharedBfclData();
    const all = bfclTasks({ dataset });
    const tasks = ['base', 'miss_func', 'miss_param', 'long_context'].flatMap(
      (category) =>
        all
          .filter((task) => task.category === `multi_turn_${category}`)
          .slice(0, 3),
    );
    const backend = createBfclBackend({ runtime: dataset.runtime });
    const environment = fromToolBackendV1({
      backend,
      tasks,
      snapshot: (session) =>
        toJsonValue((session as BfclSession).comparableState()),
    });
    const report = await checkEnvironmentV2({
      environment,
      tasks: tasks.map(taskV2FromV1),
      seed: 45,
    });
    const failing = report.tasks
      .filter((check) => !check.replayPassed)
      .map((check) => check.taskId);
    expect(failing).toEqual([]);
    expect(report.replays.total).toBe(12);
    expect(report.sabotaged.tagged).toBe(report.sabotaged.total);
    const scores = aggregateScoresV2(report.tasks.map((check) => check.replay));
    expect(Object.keys(scores.byCategory)).toEqual([
      'multi_turn_base',
      'multi_turn_long_context',
      'multi_turn_miss_func',
      'multi_turn_miss_param',
    ]);
  });
});

import { bfclTasks, createBfclBackend } from '@seal/bfcl';
import {
  hasSharedBfclData,
  loadSharedBfclData,
  sharedDataSkipMessage,
} from '@seal/bfcl/test';
import { taskV2Schema, toolDocV2Schema } from '@seal/spec';
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

import { randomUUID } from 'node:crypto';
import { createServer, request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createBfclBackend, type BfclDataset } from '@seal/bfcl';
import {
  hasSharedBfclData,
  loadSharedBfclData,
  sharedBfclDataDir,
  sharedDataSkipMessage,
} from '@seal/bfcl/test';
import { envServiceEvaluationSchema } from '@seal/spec';
import { createBfclVerifier } from '@seal/verifier';
import { beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { startEnvServer, type EnvServer } from './env-server';
import { createBfclTaskSource } from './task-source';
import { readToolParameters, toQwenToolCall } from './test/replay-ground-truth';
import { runPooled } from './test/run-pooled';

/**
 * Interop with SEAL's own Python `EnvClient`
 * (`agentevolver/client/env_client.py`) as it behaves on the wire, written
 * from that behaviour:
 * - every POST body carries all five fields: `env_type` (`"default"` unless
 *   the caller names one: only `create_instance` and `get_env_profile` do),
 *   `task_id` and `instance_id` (`null` when not given), `messages` and
 *   `params` (`{}` when not given);
 * - the URL is `base.rstrip('/') + '/' + endpoint`, and `get_env_profile`
 *   passes `/get_env_profile`, so it posts to `//get_env_profile`;
 * - `step` sends the action dict `{content, role: 'assistant'}` as
 *   `messages`; `evaluate` sends `messages: {}` and `params.sparse`;
 *   `release_instance` returns the envelope's `success`;
 * - a 502, 503 or 504 is retried (5 times, backoff factor 1 s, any POST),
 *   then the last answer is raised on when it is not 2xx.
 * The env params are those of SEAL's `exp/SEAL.yaml` (`env_service.bfcl`)
 * plus the two the env worker adds (`is_open_query`, `rollout_mode`).
 */
class PythonEnvClientWire {
  readonly baseUrl: string;
  /** Seconds of urllib3's backoff factor (SEAL: 1); scaled down here. */
  readonly backoffMs: number;
  /** Every status answered, retries included. */
  readonly statuses: number[] = [];

  constructor({ baseUrl, backoffMs }: { baseUrl: string; backoffMs: number }) {
    this.baseUrl = baseUrl.replace(/\/+$/, '');
    this.backoffMs = backoffMs;
  }

  async makeRequest({
    endpoint,
    envType = 'default',
    taskId = null,
    instanceId = null,
    messages,
    params,
  }: {
    endpoint: string;
    envType?: string;
    taskId?: string | null;
    instanceId?: string | null;
    messages?: Record<string, unknown>;
    params?: Record<string, unknown>;
  }): Promise<{ success: boolean; data: unknown }> {
    const body = JSON.stringify({
      env_type: envType,
      task_id: taskId,
      instance_id: instanceId,
      messages: messages ?? {},
      params: params ?? {},
    });
    for (let attempt = 0; ; attempt++) {
      const response = await fetch(`${this.baseUrl}/${endpoint}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body,
      });
      const text = await response.text();
      this.statuses.push(response.status);
      if ([502, 503, 504].includes(response.status) && attempt < 5) {
        // urllib3: no sleep before the first retry, then factor * 2^(n-1).
        if (attempt > 0)
          await new Promise((resolve) =>
            setTimeout(resolve, this.backoffMs * 2 ** (attempt - 1)),
          );
        continue;
      }
      if (!response.ok)
        throw new Error(`${endpoint}: HTTP ${response.status}: ${text}`);
      return JSON.parse(text) as { success: boolean; data: unknown };
    }
  }

  async getEnvProfile(envType: string, split = 'train'): Promise<string[]> {
    const response = await this.makeRequest({
      endpoint: '/get_env_profile',
      envType,
      params: { split },
    });
    return response.data as string[];
  }

  async createInstance(
    envType: string,
    taskId: string,
    instanceId?: string,
    params?: Record<string, unknown>,
  ): Promise<{
    state: { role: string; content: string }[];
    info: Record<string, unknown>;
  }> {
    const response = await this.makeRequest({
      endpoint: 'create',
      envType,
      taskId,
      instanceId: instanceId ?? null,
      ...(params ? { params } : {}),
    });
    return response.data as {
      state: { role: string; content: string }[];
      info: Record<string, unknown>;
    };
  }

  async step(
    instanceId: string,
    action: Record<string, unknown>,
  ): Promise<{
    state: { role: string; content: string }[];
    reward: number;
    is_terminated: boolean;
  }> {
    const response = await this.makeRequest({
      endpoint: 'step',
      instanceId,
      messages: action,
    });
    return response.data as {
      state: { role: string; content: string }[];
      reward: number;
      is_terminated: boolean;
    };
  }

  async evaluate(
    instanceId: string,
    params: Record<string, unknown>,
  ): Promise<unknown> {
    return (
      await this.makeRequest({ endpoint: 'evaluate', instanceId, params })
    ).data;
  }

  async getToolsInfo(instanceId: string): Promise<unknown> {
    return (await this.makeRequest({ endpoint: 'get_info', instanceId })).data;
  }

  async releaseInstance(instanceId: string): Promise<boolean> {
    return (await this.makeRequest({ endpoint: 'release', instanceId }))
      .success;
  }
}

/** `env_service.bfcl` of SEAL's `exp/SEAL.yaml`. */
const sealYamlBfclParams = {
  strict_tool_parser: true,
  enforce_available_tools: true,
  tool_prompt_mode: 'bfcl_qwen_fc',
  tool_result_mode: 'bfcl_tool_response',
  observation_lite: {
    enable: true,
    apply_to_validation: false,
    add_required_hint: true,
    add_type_hint: false,
    add_enum_hint: true,
    hide_optional: false,
  },
};

/** The env params SEAL's env worker sends with `/create`. */
function workerParams(mode: 'sample' | 'validate'): Record<string, unknown> {
  return { is_open_query: false, rollout_mode: mode, ...sealYamlBfclParams };
}

/** No model can pass it: 5 question turns, 6 ground-truth turns. */
const unpassable = 'multi_turn_base_154';
/** Its ground truth calls `tail` before BFCL makes it available; refused under `enforce_available_tools`. */
const refusedEarly = 'multi_turn_miss_func_49';

let dataset: BfclDataset;

async function startBfclServer(
  options: { maxInstances?: number; workers?: number } = {},
): Promise<EnvServer> {
  const { workers, ...rest } = options;
  const server = await startEnvServer({
    port: 0,
    tasks: createBfclTaskSource({ dataset }),
    backend: createBfclBackend({ runtime: dataset.runtime }),
    verifier: createBfclVerifier({ runtime: dataset.runtime }),
    ...rest,
    ...(workers === undefined
      ? {}
      : {
          workers: {
            count: workers,
            settingsModule: new URL(
              './test/bfcl-service-settings.ts',
              import.meta.url,
            ).href,
            settingsOptions: { dir: sharedBfclDataDir },
          },
        }),
  });
  onTestFinished(() => server.close());
  return server;
}

/**
 * One episode as SEAL's env worker and agent flow run it: create, the ground
 * truth as Qwen `<tool_call>` replies, dense evaluate (SEAL's dense grader),
 * sparse evaluate (its env grader), release.
 */
async function runEpisode({
  client,
  taskId,
  mode,
}: {
  client: PythonEnvClientWire;
  taskId: string;
  mode: 'sample' | 'validate';
}) {
  const instanceId = randomUUID().replaceAll('-', '');
  const created = await client.createInstance(
    'bfcl',
    taskId,
    instanceId,
    workerParams(mode),
  );
  expect(created.state).toHaveLength(2);
  expect(created.state[1]!.role).toBe('user');
  const parameters = new Map<string, string[]>();
  for (const message of created.state)
    readToolParameters(message.content, parameters);
  const groundTruth = dataset.byId.get(taskId)!.groundTruth;
  let last = { reward: 0, is_terminated: false, state: created.state };
  for (let turn = 0; !last.is_terminated && turn < 64; turn++) {
    for (const call of groundTruth[turn] ?? []) {
      last = await client.step(instanceId, {
        content: toQwenToolCall(call, parameters),
        role: 'assistant',
      });
      if (last.is_terminated) break;
    }
    if (last.is_terminated) break;
    last = await client.step(instanceId, {
      content: 'The request has been handled.',
      role: 'assistant',
    });
    for (const message of last.state)
      readToolParameters(message.content, parameters);
  }
  const dense = envServiceEvaluationSchema.parse(
    await client.evaluate(instanceId, { sparse: false }),
  );
  const sparse = await client.evaluate(instanceId, { sparse: true });
  const released = await client.releaseInstance(instanceId);
  return {
    taskId,
    mode,
    terminated: last.is_terminated,
    reward: last.reward,
    dense,
    sparse,
    released,
  };
}

describe.skipIf(!hasSharedBfclData)("SEAL's EnvClient on the wire", () => {
  beforeAll(async () => {
    dataset = await loadSharedBfclData();
  });

  it.each([
    ['the main thread', undefined],
    ['two worker threads', 2],
  ])(
    'should run the demo of env_client.py: profile, create, step, evaluate, release (%s)',
    async (_, workers) => {
      const server = await startBfclServer(
        workers === undefined ? {} : { workers },
      );
      const client = new PythonEnvClientWire({
        baseUrl: `${server.url}/`,
        backoffMs: 1,
      });
      const ids = await client.getEnvProfile('bfcl');
      expect(ids.length).toBeGreaterThan(0);
      // No instance id: the service makes one and names it in `info`.
      const created = await client.createInstance('bfcl', ids[0]!);
      const instanceId = created.info['instance_id'] as string;
      expect(instanceId).toMatch(/^exp_/);
      expect(String(await client.getToolsInfo(instanceId))).toContain(
        'Available tools:',
      );
      const stepped = await client.step(instanceId, {
        role: 'assistant',
        content: 'I need to inspect the available tools first.',
      });
      expect(stepped.is_terminated).toBe(false);
      expect(await client.evaluate(instanceId, {})).toMatchObject({
        accuracy: 0,
      });
      expect(await client.releaseInstance(instanceId)).toBe(true);
      expect(await client.releaseInstance(instanceId)).toBe(false);
      expect(client.statuses.every((status) => status === 200)).toBe(true);
    },
  );

  it('should serve every evaluation entry in training and validation mode, with the fields of the dense grader, from two worker threads', async () => {
    const server = await startBfclServer({ workers: 2 });
    const client = new PythonEnvClientWire({
      baseUrl: server.url,
      backoffMs: 1,
    });
    const ids = await client.getEnvProfile('bfcl', 'val');
    expect(ids).toHaveLength(400);
    const jobs = ids.flatMap((taskId) =>
      (['sample', 'validate'] as const).map((mode) => ({ taskId, mode })),
    );
    const outcomes = await runPooled(jobs, 8, ({ taskId, mode }) =>
      runEpisode({ client, taskId, mode }),
    );
    const failed = new Set<string>();
    for (const outcome of outcomes) {
      const { dense } = outcome;
      expect(outcome.terminated).toBe(true);
      expect(outcome.released).toBe(true);
      expect(outcome.sparse).toBe(dense.accuracy);
      expect(outcome.reward).toBe(dense.accuracy);
      expect(dense.completed).toBe(true);
      const info = dense.bfcl_progress_info;
      expect(info.failure_tags).toHaveLength(info.per_turn_valid.length);
      if (dense.accuracy === 1) {
        expect(dense.bfcl_progress).toBe(1);
        expect(dense.bfcl_progress_with_irrelevance).toBe(1);
        expect(info.passed_turns).toBe(info.scorable_turns);
        expect(info.passed_irrelevance_turns).toBe(info.irrelevance_turns);
      } else {
        failed.add(outcome.taskId);
        expect(dense.bfcl_progress).toBeLessThan(1);
      }
    }
    expect([...failed].sort()).toEqual(
      [unpassable, refusedEarly].filter((id) => ids.includes(id)).sort(),
    );
    expect(server.service.size).toBe(0);
    expect(client.statuses.every((status) => status === 200)).toBe(true);
  });

  it('should answer the train split and refuse an unknown env_type on create', async () => {
    const server = await startBfclServer();
    const client = new PythonEnvClientWire({
      baseUrl: server.url,
      backoffMs: 1,
    });
    expect(
      (await client.getEnvProfile('bfcl', 'train')).length,
    ).toBeGreaterThan(0);
    await expect(
      client.createInstance('default', 'multi_turn_base_0'),
    ).rejects.toThrow(/HTTP 400/);
  });

  it('should create once when a retried create reaches the service twice', async () => {
    const server = await startBfclServer();
    // A gateway that forwards each create, then answers the first one 502
    // (the service did the work; the client sees a failure and retries).
    let failedOnce = false;
    const gateway = createServer((incoming, outgoing) => {
      const forward = httpRequest(
        `${server.url}${incoming.url}`,
        { method: incoming.method, headers: incoming.headers },
        (answer) => {
          const chunks: Buffer[] = [];
          answer.on('data', (chunk: Buffer) => chunks.push(chunk));
          answer.on('end', () => {
            if (incoming.url === '/create' && !failedOnce) {
              failedOnce = true;
              outgoing.writeHead(502).end('bad gateway');
              return;
            }
            outgoing
              .writeHead(answer.statusCode ?? 500, answer.headers)
              .end(Buffer.concat(chunks));
          });
        },
      );
      incoming.pipe(forward);
    });
    await new Promise<void>((resolve) =>
      gateway.listen(0, '127.0.0.1', resolve),
    );
    onTestFinished(
      () => new Promise<void>((resolve) => gateway.close(() => resolve())),
    );
    const { port } = gateway.address() as AddressInfo;
    const client = new PythonEnvClientWire({
      baseUrl: `http://127.0.0.1:${port}`,
      backoffMs: 1,
    });
    const created = await client.createInstance(
      'bfcl',
      'multi_turn_base_0',
      'retried',
      workerParams('sample'),
    );
    expect(client.statuses).toEqual([502, 200]);
    expect(created.info['instance_id']).toBe('retried');
    expect(server.service.size).toBe(1);
    // Once stepped, the same create is a conflict again.
    await client.step('retried', { content: 'hello', role: 'assistant' });
    await expect(
      client.createInstance(
        'bfcl',
        'multi_turn_base_0',
        'retried',
        workerParams('sample'),
      ),
    ).rejects.toThrow(/HTTP 409/);
  });

  it.each([
    ['the main thread', undefined],
    ['two worker threads', 2],
  ])(
    'should change nothing on a 503, so the retry after a release succeeds (%s)',
    async (_, workers) => {
      const server = await startBfclServer({
        maxInstances: 1,
        ...(workers === undefined ? {} : { workers }),
      });
      const client = new PythonEnvClientWire({
        baseUrl: server.url,
        backoffMs: 20,
      });
      await client.createInstance('bfcl', 'multi_turn_base_0', 'first');
      const second = client.createInstance(
        'bfcl',
        'multi_turn_base_1',
        'second',
      );
      // Released while the client backs off.
      setTimeout(() => void client.releaseInstance('first'), 30);
      expect((await second).info['instance_id']).toBe('second');
      expect(client.statuses).toContain(503);
      expect(server.service.size).toBe(1);
    },
  );
});

if (!hasSharedBfclData) {
  describe("SEAL's EnvClient on the wire (shared data absent)", () => {
    it.skip(sharedDataSkipMessage, () => {});
  });
}

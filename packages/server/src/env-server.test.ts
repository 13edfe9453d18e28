import { Agent, request as httpRequest } from 'node:http';
import { createBfclBackend, type BfclDataset } from '@seal/bfcl';
import {
  hasSharedBfclData,
  loadSharedBfclData,
  sharedDataSkipMessage,
} from '@seal/bfcl/test';
import {
  envServiceDiagnoseDataSchema,
  envServiceStepDataSchema,
} from '@seal/spec';
import { createBfclVerifier } from '@seal/verifier';
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import {
  startEnvServer,
  type EnvServer,
  type EnvServerOptions,
} from './env-server';
import { createBfclTaskSource } from './task-source';
import { replayGroundTruth, toQwenToolCall } from './test/replay-ground-truth';
import { SealEnvClient, type SealRawResponse } from './test/seal-env-client';

/** The error envelope as the spec's client sees it. */
type ErrorEnvelope = {
  success: false;
  data: null;
  detail: string;
  error: { code: string; message: string; details: Record<string, unknown> };
};

let dataset: BfclDataset;

async function startServer(
  options: Partial<EnvServerOptions> = {},
): Promise<EnvServer> {
  return startEnvServer({
    port: 0,
    tasks: createBfclTaskSource({ dataset }),
    backend: createBfclBackend({ runtime: dataset.runtime }),
    verifier: createBfclVerifier({ runtime: dataset.runtime }),
    ...options,
  });
}

function errorOf(response: SealRawResponse): ErrorEnvelope {
  return response.body as ErrorEnvelope;
}

const base = 'multi_turn_base_0';
const cdDocument =
  '<tool_call>\n{"name": "cd", "arguments": {"folder": "document"}}\n</tool_call>';

describe.skipIf(!hasSharedBfclData)('startEnvServer', () => {
  beforeAll(async () => {
    dataset = await loadSharedBfclData();
  });

  describe('SEAL endpoints', () => {
    it('should answer healthz with plain OK', async () => {
      await using server = await startServer();
      expect(await new SealEnvClient({ baseUrl: server.url }).healthz()).toBe(
        'OK',
      );
    });

    it('should create an instance as [system, user] with SEAL info fields', async () => {
      await using server = await startServer();
      const client = new SealEnvClient({ baseUrl: server.url });
      const created = await client.create({ taskId: base, instanceId: 'a' });
      expect(created.state.map((message) => message.role)).toEqual([
        'system',
        'user',
      ]);
      expect(created.state[0]!.content).toContain('<tools>');
      expect(created.state[1]!.content).toBe(
        dataset.byId.get(base)!.question[0]![0]!.content,
      );
      expect(created.info).toMatchObject({
        instance_id: 'a',
        task_id: base,
        test_id: base,
        tools_count: 32,
        questions_count: 4,
        observation_lite: false,
      });
      expect(await client.getInfo({ instanceId: 'a' })).toMatch(
        /^Available tools:\n- authenticate_twitter\n(- \w+\n){30}- wc$/,
      );
      expect(await client.release({ instanceId: 'a' })).toBe(true);
      expect(await client.release({ instanceId: 'a' })).toBe(false);
    });

    it('should step with tool responses, reward 0 until the end, then the binary reward', async () => {
      await using server = await startServer();
      const client = new SealEnvClient({ baseUrl: server.url });
      await client.create({ taskId: base, instanceId: 'a' });
      const step = await client.step({ instanceId: 'a', content: cdDocument });
      expect(step).toEqual({
        state: [
          {
            role: 'user',
            content:
              '<tool_response>\n{"current_working_directory": "document"}\n</tool_response>\n',
            tool_calls: [],
          },
        ],
        reward: 0,
        is_terminated: false,
        info: { turn: 0 },
      });
      const reply = await client.step({ instanceId: 'a', content: 'Done.' });
      expect(reply.state[0]!.content).toBe(
        dataset.byId.get(base)!.question[1]![0]!.content,
      );
      expect(reply.info).toEqual({ turn: 1 });
    });

    it('should list split task ids in get_env_profile', async () => {
      await using server = await startServer();
      const client = new SealEnvClient({ baseUrl: server.url });
      expect(await client.getEnvProfile({ split: 'train' })).toEqual(
        dataset.split!.train,
      );
      expect(await client.getEnvProfile({ split: 'val' })).toEqual(
        dataset.split!.eval,
      );
      expect(await client.getEnvProfile({ split: 'eval_val' })).toHaveLength(
        100,
      );
      const unknown = await client.request('get_env_profile', {
        env_type: 'bfcl',
        params: { split: 'dev' },
      });
      expect(unknown.status).toBe(400);
      expect(errorOf(unknown).error.details['path']).toBe('params.split');
    });

    it('should return the non-sparse evaluation dict with progress, tags and trajectory diagnostics', async () => {
      await using server = await startServer();
      const client = new SealEnvClient({ baseUrl: server.url });
      const created = await client.create({ taskId: base, instanceId: 'a' });
      await client.step({
        instanceId: 'a',
        content: '<tool_call>{"name": "cd"}</tool_call>',
        params: { usage: { prompt_tokens: 100, completion_tokens: 7 } },
      });
      await replayGroundTruth({
        client,
        instanceId: 'a',
        initial: created.state,
        groundTruth: dataset.byId.get(base)!.groundTruth,
      });
      const evaluation = await client.evaluate({ instanceId: 'a' });
      expect(evaluation).toMatchObject({
        valid: true,
        accuracy: 1,
        total_count: 1,
        correct_count: 1,
        test_category: 'multi_turn_base',
        test_id: base,
        model_name: 'env_handler',
        input_tokens: 100,
        output_tokens: 7,
        turn_count: 3,
        completed: true,
        bfcl_progress: 1,
        bfcl_progress_with_irrelevance: 1,
        bfcl_progress_info: {
          per_turn_valid: [true, true, true, true],
          irrelevance_per_turn: [null, null, null, null],
          failure_tags: ['pass', 'pass', 'pass', 'pass'],
          passed_turns: 4,
          scorable_turns: 4,
          passed_irrelevance_turns: 0,
          irrelevance_turns: 0,
          terminated_early: false,
          error: null,
        },
        trajectory_clean: false,
        trajectory_has_invalid_tool_call: true,
        trajectory_error_count: 1,
        trajectory_num_user_turns: 4,
      });
      expect(await client.evaluateSparse({ instanceId: 'a' })).toBe(1);
    });

    it('should grade an instance that has not stepped yet as failed', async () => {
      await using server = await startServer();
      const client = new SealEnvClient({ baseUrl: server.url });
      await client.create({ taskId: base, instanceId: 'a' });
      const evaluation = await client.evaluate({ instanceId: 'a' });
      expect(evaluation).toMatchObject({
        valid: true,
        accuracy: 0,
        completed: false,
        turn_count: 0,
        bfcl_error_type: 'multi_turn:force_terminated',
      });
      expect(evaluation.bfcl_progress_info.terminated_early).toBe(true);
      const { data } = await client.call('diagnose', {
        instanceId: 'a',
        schema: envServiceDiagnoseDataSchema,
      });
      expect(data.failure_tags).toHaveLength(4);
    });

    it('should end a turn on an empty reply', async () => {
      await using server = await startServer();
      const client = new SealEnvClient({ baseUrl: server.url });
      await client.create({ taskId: base, instanceId: 'a' });
      const step = await client.step({ instanceId: 'a', content: '' });
      expect(step.info).toEqual({ turn: 1 });
    });

    it('should refuse a step after termination with 409', async () => {
      await using server = await startServer();
      const client = new SealEnvClient({ baseUrl: server.url });
      const created = await client.create({ taskId: base, instanceId: 'a' });
      await replayGroundTruth({
        client,
        instanceId: 'a',
        initial: created.state,
        groundTruth: dataset.byId.get(base)!.groundTruth,
      });
      const after = await client.request('step', {
        env_type: 'bfcl',
        instance_id: 'a',
        messages: { role: 'assistant', content: 'hi' },
      });
      expect(after.status).toBe(409);
      expect(errorOf(after).error.code).toBe('INVALID_STATE');
    });
  });

  describe('errors', () => {
    it('should answer 400 naming the field for malformed bodies', async () => {
      await using server = await startServer();
      const client = new SealEnvClient({ baseUrl: server.url });
      await client.create({ taskId: base, instanceId: 'a' });
      const cases: [string, unknown, string][] = [
        ['step', '{"instance_id": "a", ', ''],
        ['step', '[1, 2]', ''],
        [
          'step',
          { env_type: 'bfcl', messages: { content: 'x' } },
          'instance_id',
        ],
        [
          'step',
          { instance_id: 'a', messages: { role: 'assistant', content: 5 } },
          'messages.content',
        ],
        [
          'step',
          { instance_id: 'a', messages: { role: 'user', content: 'x' } },
          'messages.role',
        ],
        ['step', { instance_id: 'a' }, 'messages'],
        [
          'step',
          {
            instance_id: 'a',
            messages: { content: 'x' },
            params: { usage: { prompt_tokens: -1 } },
          },
          'params.usage.prompt_tokens',
        ],
        ['create', { env_type: 'bfcl', params: {} }, 'task_id'],
        [
          'create',
          { env_type: 'bfcl', task_id: base, instance_id: 'has space' },
          'instance_id',
        ],
        [
          'create',
          {
            env_type: 'bfcl',
            task_id: base,
            instance_id: 'b',
            params: { rollout_mode: 'explore' },
          },
          'params.rollout_mode',
        ],
        [
          'create',
          {
            env_type: 'bfcl',
            task_id: base,
            instance_id: 'b',
            params: { observation_lite: { enable: 'yes' } },
          },
          'params.observation_lite.enable',
        ],
        [
          'create',
          {
            env_type: 'bfcl',
            task_id: base,
            instance_id: 'b',
            params: { tool_prompt_mode: 'llama31_official_fc' },
          },
          'params.tool_prompt_mode',
        ],
        [
          'create',
          {
            env_type: 'bfcl',
            task_id: base,
            instance_id: 'b',
            params: 'sample',
          },
          'params',
        ],
        [
          'create',
          { env_type: 'webshop', task_id: base, instance_id: 'b' },
          'env_type',
        ],
        [
          'evaluate',
          { instance_id: 'a', params: { sparse: 'yes' } },
          'params.sparse',
        ],
        [
          'apatch_weights',
          { params: { failure_tags: [['pass']], rewards: [1, 0] } },
          'params.rewards',
        ],
      ];
      for (const [endpoint, body, field] of cases) {
        const response = await client.request(endpoint, body);
        expect({ endpoint, body, status: response.status }).toEqual({
          endpoint,
          body,
          status: 400,
        });
        const { error, detail, success } = errorOf(response);
        expect(success).toBe(false);
        expect(detail).toBe(error.message);
        if (field !== '') {
          expect(error.details['path']).toBe(field);
          expect(error.message).toContain(`'${field}'`);
        }
      }
      expect(server.service.size).toBe(1);
    });

    it('should answer 404 for unknown instance ids and tasks, 200 with success false for releasing an unknown id', async () => {
      await using server = await startServer();
      const client = new SealEnvClient({ baseUrl: server.url });
      for (const endpoint of ['step', 'evaluate', 'get_info', 'diagnose']) {
        const response = await client.request(endpoint, {
          env_type: 'bfcl',
          instance_id: 'nope',
          messages: { role: 'assistant', content: 'x' },
        });
        expect(response.status).toBe(404);
        expect(errorOf(response).error).toMatchObject({
          code: 'NOT_FOUND',
          details: { instanceId: 'nope' },
        });
      }
      const task = await client.request('create', {
        env_type: 'bfcl',
        task_id: 'multi_turn_base_9999',
        instance_id: 'x',
      });
      expect(task.status).toBe(404);
      expect(errorOf(task).error.details).toEqual({
        taskId: 'multi_turn_base_9999',
      });
      expect(
        await client.request('release', {
          env_type: 'bfcl',
          instance_id: 'nope',
        }),
      ).toEqual({
        status: 200,
        body: { success: false, data: null },
      });
    });

    it('should answer 404 for unknown endpoints and 405 for wrong methods', async () => {
      await using server = await startServer();
      const client = new SealEnvClient({ baseUrl: server.url });
      expect((await client.request('teleport', {})).status).toBe(404);
      const get = await fetch(`${server.url}/step`);
      expect(get.status).toBe(405);
      expect(get.headers.get('allow')).toBe('POST');
      expect(
        (await fetch(`${server.url}/healthz`, { method: 'POST' })).status,
      ).toBe(405);
    });

    it('should answer 409 for an instance id in use and 503 at the instance limit', async () => {
      await using server = await startServer({ maxInstances: 2 });
      const client = new SealEnvClient({ baseUrl: server.url });
      await client.create({ taskId: base, instanceId: 'a' });
      const again = await client.request('create', {
        env_type: 'bfcl',
        task_id: 'multi_turn_base_1',
        instance_id: 'a',
      });
      expect(again.status).toBe(409);
      await client.create({ taskId: base, instanceId: 'b' });
      const full = await client.request('create', {
        env_type: 'bfcl',
        task_id: base,
        instance_id: 'c',
      });
      expect(full.status).toBe(503);
      expect(errorOf(full).error.code).toBe('BACKEND_UNAVAILABLE');
    });

    it('should answer 413 for a body over the limit and keep serving', async () => {
      await using server = await startServer({ maxBodyBytes: 2048 });
      const client = new SealEnvClient({ baseUrl: server.url });
      await client.create({ taskId: base, instanceId: 'a' });
      const big = await client.request('step', {
        instance_id: 'a',
        messages: { role: 'assistant', content: 'x'.repeat(10_000) },
      });
      expect(big.status).toBe(413);
      expect(errorOf(big).error).toMatchObject({
        code: 'PAYLOAD_TOO_LARGE',
        details: { maxBodyBytes: 2048 },
      });
      // A body far over the limit, announced by its length, is cut off without being read.
      const cut = await new Promise<number>((resolve, reject) => {
        const request = httpRequest(
          `${server.url}/step`,
          { method: 'POST', headers: { 'content-length': String(1 << 30) } },
          (response) => {
            response.resume();
            resolve(response.statusCode ?? 0);
          },
        );
        request.on('error', reject);
        request.write('{"instance_id": "a"');
      });
      expect(cut).toBe(413);
      const step = await client.step({ instanceId: 'a', content: cdDocument });
      expect(step.state[0]!.content).toContain('<tool_response>');
    });

    it('should read an oversized body to its end and keep the connection for the next request', async () => {
      await using server = await startServer({ maxBodyBytes: 2048 });
      const client = new SealEnvClient({ baseUrl: server.url });
      await client.create({ taskId: base, instanceId: 'a' });
      // One keep-alive socket: the 413 must neither close it nor reset the
      // client's write of a body several TCP segments long.
      const agent = new Agent({ keepAlive: true, maxSockets: 1 });
      const send = (body: string) =>
        new Promise<{ status: number; reused: boolean; text: string }>(
          (resolve, reject) => {
            const request = httpRequest(
              `${server.url}/step`,
              {
                method: 'POST',
                agent,
                headers: {
                  'content-type': 'application/json',
                  'content-length': String(Buffer.byteLength(body)),
                },
              },
              (response) => {
                let text = '';
                response.setEncoding('utf8');
                response.on('data', (chunk: string) => (text += chunk));
                response.on('end', () =>
                  resolve({
                    status: response.statusCode ?? 0,
                    reused: request.reusedSocket,
                    text,
                  }),
                );
              },
            );
            request.on('error', reject);
            request.end(body);
          },
        );
      try {
        for (let round = 0; round < 3; round++) {
          const big = await send(
            JSON.stringify({
              instance_id: 'a',
              messages: { role: 'assistant', content: 'x'.repeat(12_000) },
            }),
          );
          expect(big.status).toBe(413);
          const step = await send(
            JSON.stringify({
              instance_id: 'a',
              messages: { role: 'assistant', content: cdDocument },
            }),
          );
          expect(step.status).toBe(200);
          expect(step.reused).toBe(true);
          expect(step.text).toContain('<tool_response>');
        }
      } finally {
        agent.destroy();
      }
    });

    it('should hide internal errors behind a reference unless exposed', async () => {
      const onInternalError = vi.fn();
      const failing = {
        specificationVersion: 'v1' as const,
        verifierId: 'failing',
        verify: () => Promise.reject(new Error('not used')),
        verifySync: () => {
          throw new Error('secret detail');
        },
      };
      await using server = await startServer({
        verifier: failing,
        onInternalError,
      });
      const client = new SealEnvClient({ baseUrl: server.url });
      await client.create({ taskId: base, instanceId: 'a' });
      const response = await client.request('evaluate', {
        instance_id: 'a',
        params: { sparse: true },
      });
      expect(response.status).toBe(500);
      const { error, detail } = errorOf(response);
      expect(error.code).toBe('INTERNAL');
      expect(JSON.stringify(response.body)).not.toMatch(/secret|at |\.ts/);
      expect(detail).toContain(String(error.details['reference']));
      expect(onInternalError).toHaveBeenCalledWith({
        error: expect.any(Error),
        reference: error.details['reference'],
      });

      await using exposed = await startServer({
        verifier: failing,
        exposeInternalErrors: true,
      });
      const exposedClient = new SealEnvClient({ baseUrl: exposed.url });
      await exposedClient.create({ taskId: base, instanceId: 'a' });
      const shown = errorOf(
        await exposedClient.request('evaluate', { instance_id: 'a' }),
      );
      expect(shown.error.message).toBe('secret detail');
      expect(shown.error.details['stack']).toContain('secret detail');
    });
  });

  describe('isolation', () => {
    it('should give two interleaved instances of one task identical, independent results', async () => {
      await using server = await startServer();
      const client = new SealEnvClient({ baseUrl: server.url });
      const taskId = 'multi_turn_miss_func_4';
      const groundTruth = dataset.byId.get(taskId)!.groundTruth;
      const solo = await client.create({ taskId, instanceId: 'solo' });
      const soloReplay = await replayGroundTruth({
        client,
        instanceId: 'solo',
        initial: solo.state,
        groundTruth,
      });
      const [a, b] = await Promise.all(
        ['a', 'b', 'c'].map((instanceId) =>
          client.create({ taskId, instanceId }),
        ),
      );
      expect(a!.state).toEqual(solo.state);
      expect(b!.state).toEqual(solo.state);
      // c changes the shared-looking file system state in between every step of a and b.
      const vandal = async () => {
        await client.step({
          instanceId: 'c',
          content:
            '<tool_call>\n{"name": "rm", "arguments": {"file_name": "test"}}\n</tool_call>',
        });
        await client.step({
          instanceId: 'c',
          content:
            '<tool_call>\n{"name": "mkdir", "arguments": {"dir_name": "intruder"}}\n</tool_call>',
        });
      };
      const [replayA, replayB] = await Promise.all([
        replayGroundTruth({
          client,
          instanceId: 'a',
          initial: a!.state,
          groundTruth,
          before: vandal,
        }),
        replayGroundTruth({
          client,
          instanceId: 'b',
          initial: b!.state,
          groundTruth,
          before: vandal,
        }),
      ]);
      expect(replayA.transcript).toEqual(soloReplay.transcript);
      expect(replayB.transcript).toEqual(soloReplay.transcript);
      expect([soloReplay.accuracy, replayA.accuracy, replayB.accuracy]).toEqual(
        [1, 1, 1],
      );
      expect(await client.evaluateSparse({ instanceId: 'c' })).toBe(0);
    });
  });

  describe('idle reclamation', () => {
    afterEach(() => {
      vi.useRealTimers();
    });

    it('should reclaim instances idle past the timeout on the check interval', async () => {
      vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval', 'Date'] });
      const onReclaim = vi.fn();
      await using server = await startServer({
        idleTimeoutMs: 60_000,
        reclaimIntervalMs: 10_000,
        onReclaim,
      });
      const client = new SealEnvClient({ baseUrl: server.url });
      await client.create({ taskId: base, instanceId: 'busy' });
      await client.create({ taskId: base, instanceId: 'idle' });
      for (let i = 0; i < 4; i++) {
        vi.advanceTimersByTime(20_000);
        await client.step({ instanceId: 'busy', content: cdDocument });
      }
      expect(onReclaim).toHaveBeenCalledExactlyOnceWith(['idle']);
      expect(server.service.size).toBe(1);
      const gone = await client.request('step', {
        instance_id: 'idle',
        messages: { content: cdDocument },
      });
      expect(gone.status).toBe(404);
      expect(errorOf(gone).error.message).toContain('reclaimed');
      vi.advanceTimersByTime(70_000);
      expect(server.service.size).toBe(0);
    });
  });

  describe('train/eval gate', () => {
    const liteParams = {
      observation_lite: {
        enable: true,
        apply_to_validation: false,
        add_required_hint: true,
      },
    };

    it('should apply observation_lite when rollout_mode is sample', async () => {
      await using server = await startServer();
      const client = new SealEnvClient({ baseUrl: server.url });
      const created = await client.create({
        taskId: base,
        instanceId: 'a',
        params: { rollout_mode: 'sample', ...liteParams },
      });
      expect(created.info).toMatchObject({
        observation_lite: true,
        mode: 'train',
        warnings: [],
      });
      expect(created.state[0]!.content).toContain('[required]');
      expect(created.state[0]!.content).toContain('Observation note');
    });

    it('should never apply an overlay when rollout_mode is validate, even with apply_to_validation', async () => {
      await using server = await startServer();
      const client = new SealEnvClient({ baseUrl: server.url });
      const plain = await client.create({ taskId: base, instanceId: 'plain' });
      for (const [instanceId, params] of [
        ['validate', { rollout_mode: 'validate', ...liteParams }],
        [
          'forced',
          {
            rollout_mode: 'validate',
            observation_lite: { enable: true, apply_to_validation: true },
          },
        ],
        ['absent', liteParams],
      ] as const) {
        const created = await client.create({
          taskId: base,
          instanceId,
          params,
        });
        expect(created.state).toEqual(plain.state);
        expect(created.info).toMatchObject({
          observation_lite: false,
          mode: 'eval',
          overlay_hash: plain.info['overlay_hash'],
        });
        expect(created.info['warnings']).toEqual(
          instanceId === 'validate'
            ? []
            : [
                expect.objectContaining({
                  type: 'unsupported',
                  setting: 'params.observation_lite',
                }),
              ],
        );
      }
    });

    it('should limit a module to its categories', async () => {
      await using server = await startServer();
      const client = new SealEnvClient({ baseUrl: server.url });
      const created = await client.create({
        taskId: base,
        instanceId: 'a',
        params: {
          rollout_mode: 'sample',
          observation_lite: {
            enable: true,
            categories: ['multi_turn_miss_func'],
          },
        },
      });
      expect(created.info.observation_lite).toBe(false);
      expect(created.state[0]!.content).not.toContain('[required]');
    });

    it('should add error hints in training only', async () => {
      await using server = await startServer();
      const client = new SealEnvClient({ baseUrl: server.url });
      const feedback = { tool_feedback_evolution: { enable: true } };
      await client.create({
        taskId: base,
        instanceId: 'train',
        params: { rollout_mode: 'sample', ...feedback },
      });
      await client.create({
        taskId: base,
        instanceId: 'eval',
        params: { rollout_mode: 'validate', ...feedback },
      });
      const train = await client.step({
        instanceId: 'train',
        content: '<tool_call>not json</tool_call>',
      });
      const evaluation = await client.step({
        instanceId: 'eval',
        content: '<tool_call>not json</tool_call>',
      });
      expect(train.state[0]!.content).toMatch(
        /^\[ERROR\] Invalid tool call format: .*\n\[Hint\]/s,
      );
      expect(evaluation.state[0]!.content).not.toContain('[Hint]');
      expect(evaluation.info).toMatchObject({
        bfcl_error_type: 'parse_error',
        static_fission_retryable: true,
      });
    });
  });

  describe('params', () => {
    it("should resolve repeated params once without carrying one create's warnings into the next", async () => {
      await using server = await startServer({ maxModelCalls: 50 });
      const client = new SealEnvClient({ baseUrl: server.url });
      const params = {
        rollout_mode: 'sample',
        max_model_calls: 500,
        observation_lite: { enable: true },
      };
      const answers = [];
      for (const instanceId of ['a', 'b', 'c'])
        answers.push(await client.create({ taskId: base, instanceId, params }));
      for (const answer of answers) {
        expect(
          (answer.info['warnings'] as { setting: string }[]).map(
            (warning) => warning.setting,
          ),
        ).toEqual(['params.max_model_calls']);
        expect(answer.info['overlay_hash']).toBe(
          answers[0]!.info['overlay_hash'],
        );
        expect(answer.state[0]!.content).toBe(answers[0]!.state[0]!.content);
      }
      // Other params for the same task are resolved for themselves.
      const untouched = await client.create({
        taskId: base,
        instanceId: 'd',
        params: { rollout_mode: 'sample' },
      });
      expect(untouched.info['overlay_hash']).not.toBe(
        answers[0]!.info['overlay_hash'],
      );
      expect(untouched.state[0]!.content).not.toBe(
        answers[0]!.state[0]!.content,
      );
    });

    it('should read a state file on every create that names one', async () => {
      const loadStatistics = vi.fn(async () => ({}));
      await using server = await startServer({ loadStatistics });
      const client = new SealEnvClient({ baseUrl: server.url });
      const params = {
        rollout_mode: 'sample',
        diagnostic_evolution: { enable: true, state_path: '/tmp/state.json' },
      };
      await client.create({ taskId: base, instanceId: 'a', params });
      await client.create({ taskId: base, instanceId: 'b', params });
      expect(loadStatistics).toHaveBeenCalledTimes(2);
    });

    it("should accept SEAL's headline env params (exp/SEAL.yaml) without warnings", async () => {
      await using server = await startServer();
      const client = new SealEnvClient({ baseUrl: server.url });
      const sealParams = {
        is_open_query: false,
        rollout_mode: 'sample',
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
      const train = await client.create({
        taskId: base,
        instanceId: 'a',
        params: sealParams,
      });
      expect(train.info).toMatchObject({
        observation_lite: true,
        mode: 'train',
        protocol: 'qwen-xml',
        warnings: [],
      });
      const validate = await client.create({
        taskId: base,
        instanceId: 'b',
        params: { ...sealParams, rollout_mode: 'validate' },
      });
      expect(validate.info).toMatchObject({
        observation_lite: false,
        mode: 'eval',
        warnings: [],
      });
    });

    it('should warn about unknown params and SEAL switches it cannot honour', async () => {
      await using server = await startServer();
      const client = new SealEnvClient({ baseUrl: server.url });
      const created = await client.create({
        taskId: base,
        instanceId: 'a',
        params: {
          rollout_mode: 'validate',
          strict_tool_parser: true,
          enforce_available_tools: false,
          temperature: 0.7,
        },
      });
      expect(created.info['warnings']).toEqual([
        {
          type: 'unsupported',
          setting: 'params.temperature',
          details: 'unknown parameter; ignored',
        },
      ]);
    });

    it('should end the episode with reward 0 on a parse error when terminate_on_parse_error is set', async () => {
      await using server = await startServer();
      const client = new SealEnvClient({ baseUrl: server.url });
      await client.create({
        taskId: base,
        instanceId: 'a',
        params: { terminate_on_parse_error: true },
      });
      const step = await client.step({
        instanceId: 'a',
        content: '<tool_call>{"name": </tool_call>',
      });
      expect(step).toMatchObject({
        state: [{ role: 'user', content: '[CONVERSATION_COMPLETED]' }],
        reward: 0,
        is_terminated: true,
        info: {
          bfcl_error_type: 'parse_error',
          bfcl_terminated_on_parse_error: true,
          bfcl_force_zero_reward: true,
        },
      });
    });

    it('should end an open query after its first turn', async () => {
      await using server = await startServer();
      const client = new SealEnvClient({ baseUrl: server.url });
      await client.create({
        taskId: base,
        instanceId: 'a',
        params: { is_open_query: true },
      });
      await client.step({ instanceId: 'a', content: cdDocument });
      const reply = await client.step({ instanceId: 'a', content: 'Done.' });
      expect(reply).toMatchObject({
        is_terminated: true,
        reward: 0,
        info: { end_reason: 'aborted' },
      });
    });

    it('should run the openai-tools protocol with tool definitions in info and tool_calls in messages', async () => {
      await using server = await startServer();
      const client = new SealEnvClient({ baseUrl: server.url });
      const created = await client.create({
        taskId: base,
        instanceId: 'a',
        params: { protocol: 'openai-tools' },
      });
      expect(created.state[0]).toEqual({
        role: 'system',
        content: '',
        tool_calls: [],
      });
      const tools = created.info['tools'] as {
        function: { name: string; parameters: { type: string } };
      }[];
      expect(tools).toHaveLength(32);
      expect(tools[0]!.function.parameters.type).toBe('object');
      const result = await client.call('step', {
        instanceId: 'a',
        schema: envServiceStepDataSchema,
        messages: {
          role: 'assistant',
          content: null,
          tool_calls: [
            {
              id: 'call_1',
              type: 'function',
              function: { name: 'cd', arguments: '{"folder": "document"}' },
            },
          ],
        } as unknown as Record<string, unknown>,
      });
      expect(result.data.state).toEqual([
        expect.objectContaining({
          role: 'tool',
          content: '{"current_working_directory": "document"}',
          tool_call_id: 'call_1',
        }),
      ]);
    });

    it('should map SEAL protocol modes and refuse conflicting ones', async () => {
      await using server = await startServer();
      const client = new SealEnvClient({ baseUrl: server.url });
      const seal = await client.create({
        taskId: base,
        instanceId: 'a',
        params: {
          tool_prompt_mode: 'bfcl_qwen_fc',
          tool_call_parser: 'xml_json',
          tool_result_mode: 'bfcl_tool_response',
        },
      });
      expect(seal.info['protocol']).toBe('qwen-xml');
      const conflict = await client.request('create', {
        task_id: base,
        instance_id: 'b',
        params: { protocol: 'bfcl-python', tool_prompt_mode: 'bfcl_qwen_fc' },
      });
      expect(conflict.status).toBe(400);
      expect(errorOf(conflict).error.details['path']).toBe(
        'params.tool_prompt_mode',
      );
    });
  });

  describe('diagnose', () => {
    it('should return per-turn tags, fine tags and the diagnosis record', async () => {
      await using server = await startServer();
      const client = new SealEnvClient({ baseUrl: server.url });
      const created = await client.create({ taskId: base, instanceId: 'a' });
      const groundTruth = dataset.byId.get(base)!.groundTruth;
      // Turn 0 right; turn 1 only a wrong cd; nothing after.
      for (const call of groundTruth[0]!)
        await client.step({
          instanceId: 'a',
          content: toQwenToolCall(call, new Map()),
        });
      await client.step({ instanceId: 'a', content: 'ok' });
      await client.step({
        instanceId: 'a',
        content:
          '<tool_call>\n{"name": "cd", "arguments": {"folder": "nowhere"}}\n</tool_call>',
      });
      await client.step({ instanceId: 'a', content: 'ok' });
      void created;
      const { data } = await client.call('diagnose', {
        instanceId: 'a',
        schema: envServiceDiagnoseDataSchema,
      });
      expect(data.failure_tags[0]).toBe('pass');
      expect(data.failure_tags[1]).not.toBe('pass');
      expect(data.fine_tags).toHaveLength(4);
      expect(data).toMatchObject({
        reward: 0,
        success: false,
        diagnosis: { schemaVersion: 1, trajectory: { hasToolError: true } },
      });
      expect(data.diagnosis.turns).toHaveLength(4);
    });
  });
});

if (!hasSharedBfclData) {
  describe('startEnvServer (shared data absent)', () => {
    it.skip(sharedDataSkipMessage, () => {});
  });
}

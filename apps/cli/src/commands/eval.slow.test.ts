import {
  appendFileSync,
  cpSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { createServer, request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { createBfclBackend } from '@seal/bfcl';
import { createGeneratorRuntime, generateTasks } from '@seal/bfcl-tasks';
import { embeddedPresets } from '@seal/embedded';
import {
  buildBpeTokenizer,
  copyFriendlyPretokenizerPattern,
  createModelConfig,
  createOrtPolicy,
} from '@seal/engine-ort';
import { MockPolicyV1 } from '@seal/engine-ort/test';
import {
  demonstrationText,
  evaluateChatModel,
  type ChatEvaluatedEpisode,
  type EvalResultRecord,
} from '@seal/rl';
import {
  createInProcessChatModel,
  createOpenAiChatModel,
  createPolicyChatModel,
  startOpenAiServer,
} from '@seal/openai';
import {
  toSealError,
  type PolicyV1GenerateOptions,
  type Task,
} from '@seal/spec';
import { createBfclVerifier } from '@seal/verifier';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exitCodeFor } from '../exit-codes';
import { createOutput, type Output } from '../ui/output';
import { runEval } from './eval';
import { startServePolicy, type ServePolicyHandle } from './serve-policy';

let root: string;
let modelDirectory: string;

/** A tiny random model with its own tokenizer, saved as `seal train` saves a warm start. */
beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), 'seal-eval-cli-'));
  modelDirectory = join(root, 'model');
  const backend = createBfclBackend({ runtime: createGeneratorRuntime() });
  const corpus = generateTasks({ seed: 1, split: 'warmup', count: 12 }).map(
    (task) =>
      demonstrationText({
        task,
        backend,
        protocol: 'bfcl-python',
        promptMode: 'compact',
      }),
  );
  const tokenizer = buildBpeTokenizer({
    corpus,
    vocabSize: 320,
    pattern: copyFriendlyPretokenizerPattern,
  });
  const config = createModelConfig({
    vocabSize: 320,
    hiddenSize: 32,
    intermediateSize: 64,
    numLayers: 1,
    numHeads: 2,
    numKeyValueHeads: 1,
    maxPositionEmbeddings: 1024,
    // Wide initial weights: replies vary with the context (byte soup, special tokens, invalid UTF-8).
    initializerRange: 0.2,
  });
  const policy = await createOrtPolicy({
    model: { config, seed: 5 },
    tokenizer,
    worker: false,
    threads: 1,
  });
  await policy.save({ directory: modelDirectory });
  await policy.close();
  // The hints seal train leaves beside a warm start: eval defaults both paths read.
  writeFileSync(
    join(modelDirectory, 'warmstart.json'),
    JSON.stringify({
      key: 'tiny',
      preset: {
        ...embeddedPresets.smoke,
        seed: 1,
        rl: { ...embeddedPresets.smoke.rl, maxTokens: 10, maxModelCalls: 4 },
      },
      drillLosses: [],
      losses: [],
    }),
  );
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

/** A JSON-mode output whose printed result is captured; `onTick` sees progress. */
function capture(onTick?: (count: number) => void): {
  output: Output;
  result: () => Record<string, unknown>;
} {
  const stdout = new PassThrough();
  let text = '';
  stdout.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
  const base = createOutput({ json: true, stdout, stderr: new PassThrough() });
  let ticks = 0;
  const output: Output = {
    ...base,
    progress: (label, total) => {
      const inner = base.progress(label, total);
      return {
        tick: (by = 1, note) => {
          inner.tick(by, note);
          ticks += by;
          onTick?.(ticks);
        },
        done: () => inner.done(),
      };
    },
  };
  return { output, result: () => JSON.parse(text) as Record<string, unknown> };
}

function readRecords(out: string): EvalResultRecord[] {
  return readFileSync(join(out, 'results.jsonl'), 'utf8')
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as EvalResultRecord);
}

/** Records without what legitimately differs between runs (timing, the config's policy identity). */
function comparable(records: readonly EvalResultRecord[]): unknown[] {
  return [...records]
    .sort((a, b) => a.taskId.localeCompare(b.taskId))
    .map(({ durationMs: _d, finishedAt: _f, configHash: _c, ...rest }) => rest);
}

function scores(out: string): Record<string, unknown> {
  const {
    configHash: _c,
    config: _config,
    ...rest
  } = JSON.parse(readFileSync(join(out, 'scores.json'), 'utf8')) as Record<
    string,
    unknown
  >;
  return rest;
}

const suite = ['--limit', '2', '--name', 'tiny', '--json'];

async function serve(extra: string[] = []): Promise<ServePolicyHandle> {
  return startServePolicy({
    argv: [
      '--model',
      modelDirectory,
      '--port',
      '0',
      '--name',
      'tiny',
      '--max-batch',
      '1',
      ...extra,
    ],
    output: capture().output,
  });
}

describe('seal eval', () => {
  it.each([
    ['prompting', 'greedy', []],
    ['fc', 'greedy', []],
    ['prompting', 'sampled', ['--temperature', '1', '--seed', '7']],
  ])(
    'should give the same episodes and scores in process and through seal serve-policy (%s mode, %s)',
    async (mode, sampling, extra) => {
      const inProcess = join(root, `in-process-${mode}-${sampling}`);
      const viaEndpoint = join(root, `endpoint-${mode}-${sampling}`);
      const local = capture();
      expect(
        await runEval({
          argv: [
            '--model',
            modelDirectory,
            '--mode',
            mode,
            '--out',
            inProcess,
            '--max-batch',
            '1',
            '--concurrency',
            '3',
            ...extra,
            ...suite,
          ],
          output: local.output,
        }),
      ).toBe(0);
      const handle = await serve();
      try {
        const remote = capture();
        expect(
          await runEval({
            argv: [
              '--endpoint',
              handle.server.url,
              '--mode',
              mode,
              '--out',
              viaEndpoint,
              '--concurrency',
              '3',
              ...extra,
              ...suite,
            ],
            output: remote.output,
          }),
        ).toBe(0);
        expect(remote.result()['ran']).toBe(8);
      } finally {
        await handle.close();
      }
      const a = readRecords(inProcess);
      const b = readRecords(viaEndpoint);
      expect(a).toHaveLength(8);
      // Not a degenerate model: its replies differ from step to step.
      const texts = new Set(
        a.flatMap((r) =>
          r.record.turns.flatMap((turn) => turn.steps.map((step) => step.text)),
        ),
      );
      expect(texts.size).toBeGreaterThan(8);
      // The serve-policy hints reached the client: same budgets, protocol and prompt mode.
      expect(a[0]!.record.protocol).toBe(
        mode === 'fc' ? 'openai-tools' : 'bfcl-python',
      );
      expect(comparable(b)).toEqual(comparable(a));
      expect(a.every((r) => r.overlayHash === b[0]!.overlayHash)).toBe(true);
      expect(scores(viaEndpoint)).toEqual(scores(inProcess));
      expect(readFileSync(join(viaEndpoint, 'scores.csv'), 'utf8')).toBe(
        readFileSync(join(inProcess, 'scores.csv'), 'utf8'),
      );
      expect(Object.keys(local.result())).toEqual([
        'out',
        'model',
        'ran',
        'resumed',
        'scores',
      ]);
    },
  );

  it("should prompt a model directory without the project's hints with BFCL's full prompt, and say so", async () => {
    // A Hugging Face model directory: the same weights and tokenizer, no warmstart.json.
    const plain = join(root, 'hf-model');
    cpSync(modelDirectory, plain, {
      recursive: true,
      filter: (path) => !path.endsWith('warmstart.json'),
    });
    const run = async (model: string, name: string) => {
      const stdout = new PassThrough();
      let text = '';
      stdout.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
      const out = join(root, name);
      const code = await runEval({
        argv: ['--model', model, '--out', out, '--limit', '1', '--name', name],
        output: createOutput({
          json: false,
          stdout,
          stderr: new PassThrough(),
        }),
      });
      const config = (
        JSON.parse(readFileSync(join(out, 'scores.json'), 'utf8')) as {
          config: { promptMode: string };
        }
      ).config;
      return { code, text, promptMode: config.promptMode };
    };
    const hf = await run(plain, 'hf-full');
    expect(hf.code).toBe(0);
    expect(hf.promptMode).toBe('full');
    expect(hf.text).toContain('(bfcl-python, full prompt)');
    expect(hf.text).toContain(
      "full prompt: BFCL's, as the model directory carries no training hints",
    );
    // The project's own model (a warm start with its manifest) keeps the compact prompt.
    const own = await run(modelDirectory, 'own-compact');
    expect(own.code).toBe(0);
    expect(own.promptMode).toBe('compact');
    expect(own.text).toContain('(bfcl-python, compact prompt)');
    expect(own.text).not.toContain('no training hints');
  });

  it('should resume an interrupted run without losing or repeating a task', async () => {
    const full = join(root, 'in-process-prompting-greedy');
    const out = join(root, 'resumed');
    const controller = new AbortController();
    const first = capture((ticks) => {
      if (ticks === 3) controller.abort();
    });
    await expect(
      runEval({
        argv: [
          '--model',
          modelDirectory,
          '--out',
          out,
          '--max-batch',
          '1',
          '--concurrency',
          '1',
          ...suite,
        ],
        output: first.output,
        signal: controller.signal,
      }),
    ).rejects.toMatchObject({ details: { reason: 'aborted' } });
    expect(readRecords(out)).toHaveLength(3);
    // A crash in the middle of the next write leaves half a line behind.
    const next = readFileSync(join(full, 'results.jsonl'), 'utf8').split(
      '\n',
    )[5]!;
    appendFileSync(join(out, 'results.jsonl'), next.slice(0, next.length >> 1));
    const second = capture();
    expect(
      await runEval({
        argv: [
          '--model',
          modelDirectory,
          '--out',
          out,
          '--max-batch',
          '1',
          '--concurrency',
          '2',
          ...suite,
        ],
        output: second.output,
      }),
    ).toBe(0);
    expect(second.result()).toMatchObject({ ran: 5, resumed: 3 });
    const records = readRecords(out);
    expect(new Set(records.map((r) => r.taskId)).size).toBe(8);
    expect(comparable(records)).toEqual(comparable(readRecords(full)));
    expect(scores(out)).toEqual(scores(full));
    // A third run has nothing left to do.
    const third = capture();
    await runEval({
      argv: ['--model', modelDirectory, '--out', out, ...suite],
      output: third.output,
    });
    expect(third.result()).toMatchObject({ ran: 0, resumed: 8 });
  });

  it('should retry an endpoint that fails its first requests', async () => {
    const handle = await serve();
    let failures = 2;
    const target = new URL(handle.server.url);
    // A proxy that answers 503 twice, then forwards to serve-policy.
    const proxy = createServer((request, response) => {
      if (request.url?.endsWith('/chat/completions') && failures > 0) {
        failures--;
        request.resume();
        response.writeHead(503, { 'content-type': 'application/json' });
        response.end('{"error": {"message": "warming up"}}');
        return;
      }
      const forward = httpRequest(
        {
          host: target.hostname,
          port: target.port,
          path: request.url,
          method: request.method,
          headers: request.headers,
        },
        (answer) => {
          response.writeHead(answer.statusCode ?? 502, answer.headers);
          answer.pipe(response);
        },
      );
      request.pipe(forward);
    });
    await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
    try {
      const out = join(root, 'proxied');
      const { port } = proxy.address() as AddressInfo;
      const run = capture();
      expect(
        await runEval({
          argv: [
            '--endpoint',
            `http://127.0.0.1:${port}`,
            '--out',
            out,
            '--category',
            'base',
            ...suite,
          ],
          output: run.output,
        }),
      ).toBe(0);
      expect(failures).toBe(0);
      expect(run.result()).toMatchObject({ ran: 2 });
    } finally {
      proxy.closeAllConnections();
      proxy.close();
      await handle.close();
    }
  });

  it.each([
    [[], 'INVALID_ARGUMENT', 2],
    [['--model', '/nonexistent/model'], 'FILE_NOT_FOUND', 3],
    [['--model', '.', '--split', 'eval'], 'INVALID_ARGUMENT', 2],
    [['--model', '.', '--category', 'irrelevance'], 'INVALID_ARGUMENT', 2],
    [['--model', '.', '--temperature', 'hot'], 'INVALID_ARGUMENT', 2],
    [['--endpoint', 'not a url'], 'INVALID_ARGUMENT', 2],
  ])('should refuse %j with %s (exit %i)', async (argv, code, exit) => {
    const error = await runEval({ argv, output: capture().output }).then(
      () => undefined,
      (thrown: unknown) => toSealError(thrown),
    );
    expect(error?.code).toBe(code);
    expect(exitCodeFor(error!.code)).toBe(exit);
  });
});

/**
 * A policy that answers each turn with its ground-truth calls, then "Done.",
 * except on tasks it is lazy about: it reads the turn from the rendered
 * prompt, so it sees exactly what a served model sees.
 */
function groundTruthPolicy(
  tasks: readonly Task[],
  lazy: ReadonlySet<string>,
): MockPolicyV1 {
  const policy: MockPolicyV1 = new MockPolicyV1({
    maxSequenceLength: 1_000_000,
    generate: (request: PolicyV1GenerateOptions) => ({
      generations: (request.prompts ?? []).map((prompt) => {
        const text = policy.tokenizer.decode(prompt);
        const users = text.split('<|im_start|>user\n').slice(1);
        const first = users[0]!.slice(0, users[0]!.indexOf('<|im_end|>'));
        const task = tasks.find((t) => t.turns[0]![0]!.content === first)!;
        const observation = (message: string) =>
          message.startsWith("[{'role': 'tool'");
        const turn =
          users.filter((message) => !observation(message)).length - 1;
        const calls = task.groundTruth[turn] ?? [];
        const answer =
          lazy.has(task.id) || observation(users.at(-1)!) || calls.length === 0
            ? 'Done.'
            : `[${calls.join(', ')}]`;
        const tokenIds = [
          ...policy.tokenizer.encode(answer),
          policy.tokenizer.stopTokenIds[0]!,
        ];
        return {
          tokenIds,
          text: answer,
          logprobs: tokenIds.map(() => 0),
          modelLogprobs: tokenIds.map(() => 0),
          finishReason: 'stop' as const,
          promptTokenIds: prompt,
        };
      }),
      usage: { promptTokens: 0, completionTokens: 0 },
    }),
  });
  return policy;
}

describe('evaluateChatModel behind seal serve-policy', () => {
  it.each(['prompting', 'fc'] as const)(
    'should give the same verdicts, passes included, in process and over HTTP (%s mode)',
    async (mode) => {
      const runtime = createGeneratorRuntime();
      // Tasks the scripted policy can tell apart by their first request.
      const tasks = generateTasks({ seed: 3, split: 'test-ood', count: 16 })
        .filter(
          (task, _, all) =>
            all.filter(
              (other) =>
                other.turns[0]![0]!.content === task.turns[0]![0]!.content,
            ).length === 1,
        )
        .slice(0, 12);
      const lazy = new Set(
        tasks.filter((_, i) => i % 3 === 1).map((t) => t.id),
      );
      const evaluate = (
        model: Parameters<typeof evaluateChatModel>[0]['model'],
      ) =>
        evaluateChatModel({
          model,
          tasks,
          backend: createBfclBackend({ runtime }),
          verifier: createBfclVerifier({ runtime }),
          mode,
          promptMode: 'compact',
          maxTokens: 256,
          concurrency: 4,
        });
      const verdicts = (episodes: ChatEvaluatedEpisode[]) =>
        episodes.map((e) => ({
          id: e.task.id,
          valid: e.result.official.valid,
          tags: e.result.turns.map((t) => t.tag),
          steps: e.record.turns,
        }));
      const local = await evaluate(
        createInProcessChatModel({
          model: createPolicyChatModel({
            policy: groundTruthPolicy(tasks, lazy),
            modelId: 'gt',
          }),
        }),
      );
      await using server = await startOpenAiServer({
        model: createPolicyChatModel({
          policy: groundTruthPolicy(tasks, lazy),
          modelId: 'gt',
        }),
        port: 0,
      });
      const remote = await evaluate(
        createOpenAiChatModel({ baseUrl: server.url, model: 'gt' }),
      );
      expect(verdicts(remote)).toEqual(verdicts(local));
      const passed = local.filter((e) => e.result.official.valid).length;
      expect(passed).toBeGreaterThanOrEqual(8);
      expect(passed).toBeLessThan(tasks.length);
    },
  );
});

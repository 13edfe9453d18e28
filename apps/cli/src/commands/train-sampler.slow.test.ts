import { mkdtempSync, rmSync } from 'node:fs';
import {
  createServer,
  type IncomingMessage,
  type Server,
  type ServerResponse,
} from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { createOrtPolicy } from '@seal/engine-ort';
import { createOpenAiSampler, createSampledPolicy } from '@seal/openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createOutput } from '../ui/output';
import { startServePolicy, type ServePolicyHandle } from './serve-policy';
import { startServeTrainer, type ServeTrainerHandle } from './serve-trainer';
import { runTrain } from './train';

/*
 * `seal train --sampler-url` end to end: the rollouts and evaluations come
 * from `seal serve-policy` (POST /v1/completions with token-id prompts), the
 * policy trains in `seal serve-trainer`. Transparent recording proxies sit
 * in front of both, so the test compares what the sampler answered with
 * what the trainer was sent.
 */

let root: string;
let policyHandle: ServePolicyHandle | undefined;
let trainerHandle: ServeTrainerHandle | undefined;
const servers: Server[] = [];

beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), 'seal-train-sampler-'));
});
afterAll(async () => {
  for (const server of servers)
    await new Promise((resolve) => server.close(resolve));
  await policyHandle?.close();
  await trainerHandle?.close();
  rmSync(root, { recursive: true, force: true });
});

function capture() {
  const stdout = new PassThrough();
  let text = '';
  stdout.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
  return {
    output: createOutput({ json: false, stdout, stderr: new PassThrough() }),
    text: () => text,
  };
}

type Exchange = { path: string; request: unknown; response: unknown };

async function listen(
  handler: (request: IncomingMessage, response: ServerResponse) => void,
): Promise<string> {
  const server = createServer(handler);
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  return `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
}

function readAll(request: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    let text = '';
    request.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
    request.on('end', () => resolve(text));
    request.on('error', reject);
  });
}

/** Forwards every request to `target` unchanged and records the JSON exchanges. */
async function recordingProxy(
  target: string,
  exchanges: Exchange[],
): Promise<string> {
  return listen((request, response) => {
    void (async () => {
      const body = await readAll(request);
      const answer = await fetch(`${target}${request.url ?? '/'}`, {
        method: request.method ?? 'GET',
        headers: { 'content-type': 'application/json' },
        ...(request.method === 'GET' || request.method === 'HEAD'
          ? {}
          : { body }),
      });
      const text = await answer.text();
      const parse = (value: string): unknown => {
        try {
          return JSON.parse(value);
        } catch {
          return value;
        }
      };
      exchanges.push({
        path: new URL(request.url ?? '/', 'http://proxy').pathname,
        request: body === '' ? undefined : parse(body),
        response: parse(text),
      });
      response.writeHead(answer.status, {
        'content-type': answer.headers.get('content-type') ?? 'text/plain',
      });
      response.end(text);
    })().catch(() => response.destroy());
  });
}

/** The maximal runs of consecutive positive-weight target tokens of a datum. */
function weightedRuns(datum: {
  loss_fn_inputs: Record<string, { data: number[] }>;
}): number[][] {
  const targets = datum.loss_fn_inputs.target_tokens!.data;
  const weights = datum.loss_fn_inputs.weights!.data;
  const runs: number[][] = [];
  let run: number[] = [];
  targets.forEach((token, t) => {
    if (weights[t]! > 0) run.push(token);
    else if (run.length > 0) {
      runs.push(run);
      run = [];
    }
  });
  if (run.length > 0) runs.push(run);
  return runs;
}

describe('seal train --sampler-url against seal serve-policy', () => {
  const cache = () => join(root, 'cache');
  const common = () => [
    '--preset',
    'default',
    '--seed',
    '3',
    '--steps',
    '1',
    '--tasks-per-step',
    '2',
    '--test-id',
    '4',
    '--test-ood',
    '4',
    '--baseline',
    'off',
    '--cache',
    cache(),
  ];

  it('should refuse a sampler that returns no token ids, naming the field', async () => {
    const textOnly = await listen((request, response) => {
      request.resume();
      request.on('end', () => {
        response.writeHead(200, { 'content-type': 'application/json' });
        response.end(
          JSON.stringify(
            request.url === '/v1/models'
              ? { object: 'list', data: [{ id: 'm' }] }
              : {
                  choices: [
                    {
                      index: 0,
                      text: 'Hi',
                      finish_reason: 'stop',
                      logprobs: { token_logprobs: [-0.1] },
                    },
                  ],
                },
          ),
        );
      });
    });
    await expect(
      runTrain({
        argv: [
          ...common(),
          '--run-dir',
          join(root, 'refused'),
          '--sampler-url',
          textOnly,
        ],
        output: capture().output,
      }),
    ).rejects.toThrow(/--sampler-url: .*returned no token ids.*token_ids/);
  }, 300_000);

  it('should train on exactly the tokens the sampler returned', async () => {
    policyHandle = await startServePolicy({
      argv: [
        '--model',
        fileURLToPath(new URL('../../assets/base', import.meta.url)),
        '--port',
        '0',
      ],
      output: capture().output,
    });
    trainerHandle = await startServeTrainer({
      argv: [
        '--preset',
        'default',
        '--cache',
        cache(),
        '--port',
        '0',
        '--checkpoints',
        join(root, 'server-checkpoints'),
      ],
      output: capture().output,
    });
    const sampled: Exchange[] = [];
    const trained: Exchange[] = [];
    const samplerUrl = await recordingProxy(policyHandle.server.url, sampled);
    const trainerUrl = await recordingProxy(trainerHandle.server.url, trained);
    const run = capture();
    expect(
      await runTrain({
        argv: [
          ...common(),
          '--run-dir',
          join(root, 'run'),
          '--trainer',
          'tinker',
          '--trainer-url',
          trainerUrl,
          '--sampler-url',
          samplerUrl,
          '--sampler-sync',
          'none',
        ],
        output: run.output,
      }),
    ).toBe(0);
    expect(run.text()).toContain(
      `sampler: ${samplerUrl} (token-exact rollouts, truncated importance sampling at 2`,
    );

    // Every generation came from the sampler, as token ids.
    const completions = sampled.filter(
      (exchange) => exchange.path === '/v1/completions',
    );
    expect(completions.length).toBeGreaterThan(0);
    const returned = new Set(
      completions.map((exchange) => {
        const body = exchange.response as {
          choices: { token_ids: number[]; logprobs: unknown }[];
        };
        expect(body.choices[0]!.logprobs).not.toBeNull();
        return JSON.stringify(body.choices[0]!.token_ids);
      }),
    );
    // The service sampled nothing itself.
    expect(
      trained.filter((exchange) =>
        /asample|seal_sample_batch/.test(exchange.path),
      ),
    ).toEqual([]);

    // Every weighted token the trainer was sent is one of the sampler's
    // responses, token for token.
    const steps = trained.filter(
      (exchange) => exchange.path === '/api/v1/forward_backward',
    );
    expect(steps.length).toBeGreaterThan(0);
    let runs = 0;
    for (const exchange of steps) {
      const body = exchange.request as {
        forward_backward_input: {
          data: { loss_fn_inputs: Record<string, { data: number[] }> }[];
        };
      };
      for (const datum of body.forward_backward_input.data) {
        for (const tokens of weightedRuns(datum)) {
          runs++;
          expect(returned.has(JSON.stringify(tokens))).toBe(true);
        }
      }
    }
    expect(runs).toBeGreaterThan(0);
  }, 600_000);
});

describe('--sampler-sync disk against seal serve-policy --weight-updates', () => {
  it("should sample from the trainer's weights after each step", async () => {
    const base = fileURLToPath(new URL('../../assets/base', import.meta.url));
    const served = await startServePolicy({
      argv: ['--model', base, '--port', '0', '--weight-updates'],
      output: capture().output,
    });
    const trainer = await createOrtPolicy({ model: { directory: base } });
    try {
      const policy = createSampledPolicy({
        trainer,
        sampler: createOpenAiSampler({ baseUrl: served.server.url }),
        sync: 'disk',
        syncDirectory: join(root, 'sync'),
      });
      const prompt = trainer.tokenizer.renderChat({
        messages: [{ role: 'user', content: 'List the files.' }],
        addGenerationPrompt: true,
      }).tokenIds;
      const greedy = { prompts: [prompt], maxTokens: 12, temperature: 0 };
      const before = await policy.generate(greedy);
      // Teach the trainer another reply, hard enough to change its greedy one.
      const target = trainer.tokenizer.encode('Sorry, I cannot.');
      const sequence = [...prompt, ...target];
      for (let step = 0; step < 5; step++) {
        await policy.train({
          objective: 'cross-entropy',
          sequences: [
            {
              tokenIds: sequence,
              tokenWeights: sequence.map((_, t) =>
                t >= prompt.length ? 1 / target.length : 0,
              ),
            },
          ],
          options: { learningRate: 3e-3 },
        });
      }
      const after = await policy.generate(greedy);
      const own = await trainer.generate(greedy);
      expect(policy.weightSyncs).toBe(2);
      // The server samples what the trained weights sample.
      expect(after.generations[0]!.tokenIds).toEqual(
        own.generations[0]!.tokenIds,
      );
      expect(after.generations[0]!.tokenIds).not.toEqual(
        before.generations[0]!.tokenIds,
      );
    } finally {
      await trainer.close();
      await served.close();
    }
  }, 300_000);
});

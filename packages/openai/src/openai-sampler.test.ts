import { createServer, type Server } from 'node:http';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  SealError,
  type PolicyV1,
  type PolicyV1TrainOptions,
} from '@seal/spec';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startOpenAiServer, type OpenAiServer } from './openai-server';
import { createOpenAiSampler, createSampledPolicy } from './openai-sampler';
import { createPolicyChatModel } from './policy-chat-model';
import { scriptedPolicy } from './scripted-policy.test-support';

/** The scripted policy, reporting log-probability -(t + 1) / 8 - seed / 1000 for token t. */
function policyWithLogprobs(): PolicyV1 & { loaded: string[] } {
  const scripted = scriptedPolicy({
    answer: (prompt) => (prompt.includes('move') ? 'mv a b' : 'Hello.'),
    maxSequenceLength: 512,
  });
  const loaded: string[] = [];
  return {
    ...scripted,
    loaded,
    async generate(options) {
      const result = await scripted.generate(options);
      const seed = options.seed ?? 0;
      return {
        ...result,
        generations: result.generations.map((generation) => ({
          ...generation,
          logprobs: generation.tokenIds.map(
            (_, t) => -(t + 1) / 8 - seed / 1000,
          ),
        })),
      };
    },
    load: ({ directory }) => {
      loaded.push(directory);
      return Promise.resolve();
    },
  };
}

let served: PolicyV1 & { loaded: string[] };
let server: OpenAiServer;
let bare: OpenAiServer;
let root: string;
/** A server that answers completions without the fields a sampler needs. */
let plain: Server;
let plainUrl: string;
let plainAnswer: unknown;

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), 'seal-sampler-'));
  served = policyWithLogprobs();
  server = await startOpenAiServer({
    model: createPolicyChatModel({ policy: served, modelId: 'tiny' }),
    port: 0,
    completionPolicy: served,
    updateWeights: async (directory) => served.load({ directory }),
  });
  bare = await startOpenAiServer({
    model: createPolicyChatModel({ policy: served, modelId: 'tiny' }),
    port: 0,
  });
  plain = createServer((request, response) => {
    request.resume();
    request.on('end', () => {
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(JSON.stringify(plainAnswer));
    });
  });
  await new Promise<void>((resolve) => plain.listen(0, '127.0.0.1', resolve));
  const address = plain.address();
  plainUrl = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
});
afterAll(async () => {
  await Promise.all([server.close(), bare.close()]);
  await new Promise((resolve) => plain.close(resolve));
  rmSync(root, { recursive: true, force: true });
});

const prompt = [...new TextEncoder().encode('please move it')];

describe('POST /v1/completions', () => {
  it('should answer token-id prompts with token_ids, prompt_token_ids and per-token logprobs', async () => {
    const response = await fetch(`${server.url}/v1/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        model: 'tiny',
        prompt,
        max_tokens: 32,
        temperature: 1,
        seed: 5,
        logprobs: 1,
        return_token_ids: true,
        skip_special_tokens: false,
      }),
    });
    expect(response.status).toBe(200);
    const body = (await response.json()) as {
      object: string;
      choices: {
        text: string;
        finish_reason: string;
        token_ids: number[];
        prompt_token_ids: number[];
        logprobs: { tokens: string[]; token_logprobs: number[] };
      }[];
      usage: { completion_tokens: number };
    };
    expect(body.object).toBe('text_completion');
    const [choice] = body.choices;
    const expected = [...new TextEncoder().encode('mv a b'), 257];
    expect(choice!.token_ids).toEqual(expected);
    expect(choice!.prompt_token_ids).toEqual(prompt);
    expect(choice!.text).toBe('mv a b<|im_end|>');
    expect(choice!.finish_reason).toBe('stop');
    expect(choice!.logprobs.tokens).toHaveLength(expected.length);
    expect(choice!.logprobs.token_logprobs).toEqual(
      expected.map((_, t) => -(t + 1) / 8 - 5 / 1000),
    );
  });

  it('should refuse n > 1, streaming, and prompts past the context', async () => {
    const post = (body: unknown) =>
      fetch(`${server.url}/v1/completions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
    expect((await post({ prompt, n: 2 })).status).toBe(400);
    expect((await post({ prompt, stream: true })).status).toBe(400);
    const long = await post({ prompt, max_tokens: 600 });
    expect(long.status).toBe(400);
    expect(
      ((await long.json()) as { error: { code: string } }).error.code,
    ).toBe('context_length_exceeded');
    expect((await post({ prompt: [[]] })).status).toBe(400);
  });

  it('should not exist on a server without a completion policy', async () => {
    const response = await fetch(`${bare.url}/v1/completions`, {
      method: 'POST',
      body: JSON.stringify({ prompt }),
    });
    expect(response.status).toBe(404);
  });
});

describe('createOpenAiSampler', () => {
  it('should return exactly the tokens and log-probabilities the server answered', async () => {
    const sampler = createOpenAiSampler({ baseUrl: server.url });
    expect(await sampler.model()).toBe('tiny');
    const sample = await sampler.sample({
      prompt,
      maxTokens: 3,
      temperature: 1,
      seed: 9,
    });
    expect(sample).toEqual({
      tokenIds: [...new TextEncoder().encode('mv ')],
      logprobs: [1, 2, 3].map((t) => -t / 8 - 9 / 1000),
      finishReason: 'length',
    });
  });

  it('should refuse a server that returns no token ids, naming the field', async () => {
    plainAnswer = {
      choices: [
        {
          index: 0,
          text: 'Hello.',
          finish_reason: 'stop',
          logprobs: { tokens: ['Hello.'], token_logprobs: [-0.1] },
        },
      ],
    };
    const sampler = createOpenAiSampler({ baseUrl: plainUrl, model: 'm' });
    const error = await sampler
      .sample({ prompt, maxTokens: 4, temperature: 1, seed: 0 })
      .then(
        () => undefined,
        (thrown: unknown) => thrown,
      );
    expect(SealError.isInstance(error) && error.code).toBe('INVALID_DATA');
    expect((error as SealError).message).toMatch(/token_ids/);
  });

  it('should refuse a server that returns token ids without log-probabilities', async () => {
    plainAnswer = {
      choices: [
        { index: 0, text: 'Hi', finish_reason: 'stop', token_ids: [72, 105] },
      ],
    };
    const sampler = createOpenAiSampler({ baseUrl: plainUrl, model: 'm' });
    const error = await sampler
      .sample({ prompt, maxTokens: 4, temperature: 1, seed: 0 })
      .then(
        () => undefined,
        (thrown: unknown) => thrown,
      );
    expect(SealError.isInstance(error) && error.code).toBe('INVALID_DATA');
    expect((error as SealError).message).toMatch(/token_logprobs/);
  });

  it('should refuse a server that tokenised the prompt differently', async () => {
    plainAnswer = {
      choices: [
        {
          index: 0,
          finish_reason: 'stop',
          token_ids: [72],
          prompt_token_ids: [1, 2],
          logprobs: { token_logprobs: [-1] },
        },
      ],
    };
    const sampler = createOpenAiSampler({ baseUrl: plainUrl, model: 'm' });
    await expect(
      sampler.sample({ prompt, maxTokens: 4, temperature: 1, seed: 0 }),
    ).rejects.toMatchObject({ code: 'INVALID_DATA' });
  });
});

describe('createSampledPolicy', () => {
  it('should sample each prompt with its own seed, sync the weights after a step, and train in the trainer', async () => {
    const trained: PolicyV1TrainOptions[] = [];
    const saved: string[] = [];
    const trainer: PolicyV1 = {
      ...scriptedPolicy({ answer: () => 'unused' }),
      trainable: true,
      train: (options) => {
        trained.push(options);
        return Promise.resolve({
          loss: 0,
          gradNorm: 0,
          skipped: false,
          step: trained.length,
          metrics: {
            clipFraction: 0,
            kl: 0,
            ratioMean: 1,
            negativeLogLikelihood: 0,
            tokens: 0,
          },
        });
      },
      save: ({ directory }) => {
        saved.push(directory);
        writeFileSync(join(directory, 'model.safetensors'), '');
        return Promise.resolve();
      },
    };
    const syncDirectory = join(root, 'sync');
    const policy = createSampledPolicy({
      trainer,
      sampler: createOpenAiSampler({ baseUrl: server.url }),
      sync: 'disk',
      syncDirectory,
    });
    const loadedBefore = served.loaded.length;
    const first = await policy.generate({
      prompts: [prompt, prompt],
      maxTokens: 32,
      seed: 100,
    });
    // The same prompt twice: one request each, seeds 100 and 101.
    expect(first.generations.map((g) => g.logprobs[0])).toEqual([
      -1 / 8 - 0.1,
      -1 / 8 - 0.101,
    ]);
    expect(first.generations[0]!.tokenIds).toEqual([
      ...new TextEncoder().encode('mv a b'),
      257,
    ]);
    expect(first.generations[0]!.promptTokenIds).toEqual(prompt);
    expect(policy.weightSyncs).toBe(1);
    expect(served.loaded.slice(loadedBefore)).toEqual([syncDirectory]);
    // No weight change: no second sync.
    await policy.generate({ prompts: [prompt], maxTokens: 4 });
    expect(policy.weightSyncs).toBe(1);
    const sequence = [...prompt, ...first.generations[0]!.tokenIds];
    await policy.train({
      objective: 'cross-entropy',
      sequences: [{ tokenIds: sequence, tokenWeights: sequence.map(() => 1) }],
      options: { learningRate: 0 },
    });
    expect(trained[0]!.sequences[0]!.tokenIds).toEqual(sequence);
    await policy.generate({ prompts: [prompt], maxTokens: 4 });
    expect(policy.weightSyncs).toBe(2);
    expect(saved).toEqual([syncDirectory, syncDirectory]);
  });
});

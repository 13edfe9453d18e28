import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  buildBpeTokenizer,
  createModelConfig,
  createOrtPolicy,
} from '@seal/engine-ort';
import type { PolicyV1, PolicyV1TrainOptions } from '@seal/spec';
import {
  afterAll,
  beforeAll,
  describe,
  expect,
  it,
  onTestFinished,
} from 'vitest';
import { createTinkerPolicy, type TinkerPolicy } from './create-tinker-policy';
import { createTinkerServer, type TinkerServer } from './create-tinker-server';
import { createTinkerClient } from './tinker-client';

const tokenizer = buildBpeTokenizer({
  corpus: ['copy the words: alpha beta gamma', 'delta epsilon zeta eta theta'],
  vocabSize: 300,
});

const config = createModelConfig({
  vocabSize: 304,
  hiddenSize: 32,
  intermediateSize: 64,
  numLayers: 2,
  numHeads: 4,
  numKeyValueHeads: 2,
  maxPositionEmbeddings: 128,
  initializerRange: 0.2,
});

/** A fresh tiny policy: the same weights every time (seed 7). */
function tinyPolicy(): Promise<PolicyV1> {
  return createOrtPolicy({
    model: { config, seed: 7 },
    tokenizer,
    worker: false,
    threads: 1,
  });
}

const sequences = [
  { prompt: [5, 17, 3, 88], response: [42, 9, 120, 7, 11] },
  { prompt: [91, 2, 33], response: [70, 70, 8] },
];

/**
 * Tolerance of protocol-versus-direct results: the protocol carries
 * `tokenWeights × advantages` as one number and float32 rounding of that
 * product differs from the engine's own, so weights may differ by rounding;
 * log-probabilities after a step agree to 1e-4.
 */
const tolerance = 1e-4;

function expectClose(actual: number[][], expected: number[][]): void {
  expect(actual.length).toBe(expected.length);
  for (const [i, row] of expected.entries()) {
    expect(actual[i]!.length).toBe(row.length);
    for (const [t, value] of row.entries())
      expect(Math.abs(actual[i]![t]! - value)).toBeLessThan(tolerance);
  }
}

describe('createTinkerPolicy against createTinkerServer', () => {
  let server: TinkerServer;
  let remote: TinkerPolicy;
  let direct: PolicyV1;
  const checkpoints = mkdtempSync(join(tmpdir(), 'seal-tinker-test-'));

  beforeAll(async () => {
    server = await createTinkerServer({
      baseModel: 'tiny',
      createPolicy: tinyPolicy,
      port: 0,
      retrieveHoldMs: 2_000,
    });
    direct = await tinyPolicy();
    remote = await createTinkerPolicy({
      client: createTinkerClient({ baseUrl: server.url }),
      baseModel: 'tiny',
      // The plain protocol (the exact extension is tested apart).
      sealExtensions: 'off',
      tokenizer: direct.tokenizer,
    });
  });
  afterAll(async () => {
    await remote?.close();
    await direct?.close();
    await server?.close();
    rmSync(checkpoints, { recursive: true, force: true });
  });

  it('should read the context length from the server capabilities', () => {
    expect(remote.maxSequenceLength).toBe(direct.maxSequenceLength);
  });

  it('should score as the engine scores', async () => {
    const tokens = sequences.map((s) => [...s.prompt, ...s.response]);
    const [a, b] = await Promise.all([
      remote.score({ sequences: tokens }),
      direct.score({ sequences: tokens }),
    ]);
    expectClose(a.logprobs, b.logprobs);
  });

  it('should apply ppo and cross-entropy steps as the engine applies them directly', async () => {
    const tokens = sequences.map((s) => [...s.prompt, ...s.response]);
    for (const objective of ['ppo', 'cross-entropy'] as const) {
      const old = await direct.score({ sequences: tokens });
      const batch: PolicyV1TrainOptions['sequences'] = sequences.map((s, i) => {
        const weights = tokens[i]!.map((_, t) =>
          t < s.prompt.length ? 0 : 0.5,
        );
        return {
          tokenIds: tokens[i]!,
          tokenWeights: weights,
          ...(objective === 'ppo'
            ? {
                advantages: tokens[i]!.map(() => (i === 0 ? 1.5 : -0.75)),
                // Off-policy by ±0.4 nats, so that both clip thresholds bind.
                oldLogprobs: old.logprobs[i]!.map((value, t) =>
                  t === 0 ? 0 : value + (t % 2 === 0 ? 0.4 : -0.4),
                ),
              }
            : {}),
        };
      });
      const options = {
        learningRate: 1e-2,
        clipLow: 0.2,
        clipHigh: 0.28,
        betas: [0.9, 0.95] as [number, number],
        weightDecay: 0,
      };
      const viaProtocol = await remote.train({
        objective,
        sequences: batch,
        options,
      });
      const inProcess = await direct.train({
        objective,
        sequences: batch,
        // The protocol's ppo has no dual clip: the direct step turns it off.
        options: { ...options, dualClipC: 1e30 },
      });
      expect(viaProtocol.skipped).toBe(false);
      expect(viaProtocol.step).toBe(inProcess.step);
      expect(Math.abs(viaProtocol.loss - inProcess.loss)).toBeLessThan(1e-4);
      expect(
        Math.abs(viaProtocol.gradNorm - inProcess.gradNorm) /
          inProcess.gradNorm,
      ).toBeLessThan(1e-4);
      expect(viaProtocol.metrics.tokens).toBe(inProcess.metrics.tokens);
      const [after, expected] = await Promise.all([
        remote.score({ sequences: tokens }),
        direct.score({ sequences: tokens }),
      ]);
      expectClose(after.logprobs, expected.logprobs);
      // The step moved the weights: the comparison is not of two untouched models.
      expect(
        Math.abs(expected.logprobs[0]![6]! - old.logprobs[0]![6]!),
      ).toBeGreaterThan(1e-3);
    }
  });

  it('should sample from the new weights after a step', async () => {
    const request = {
      prompts: [sequences[0]!.prompt],
      maxTokens: 8,
      temperature: 0,
      stopTokenIds: [],
    };
    const [a, b] = await Promise.all([
      remote.generate(request),
      direct.generate(request),
    ]);
    expect(a.generations[0]!.tokenIds).toEqual(b.generations[0]!.tokenIds);
    expect(a.generations[0]!.finishReason).toBe('length');
    expectClose([a.generations[0]!.logprobs], [b.generations[0]!.logprobs]);
  });

  it('should resume from a saved checkpoint after more steps', async () => {
    const tokens = [[...sequences[0]!.prompt, ...sequences[0]!.response]];
    const directory = join(checkpoints, 'step');
    await remote.save({ directory });
    const saved = await remote.score({ sequences: tokens });
    const savedModel = remote.modelId;
    await remote.train({
      objective: 'cross-entropy',
      sequences: [
        { tokenIds: tokens[0]!, tokenWeights: tokens[0]!.map(() => 1) },
      ],
      options: { learningRate: 5e-2 },
    });
    const moved = await remote.score({ sequences: tokens });
    expect(
      Math.abs(moved.logprobs[0]![5]! - saved.logprobs[0]![5]!),
    ).toBeGreaterThan(1e-3);
    await remote.load({ directory });
    expect(remote.modelId).not.toBe(savedModel);
    const restored = await remote.score({ sequences: tokens });
    expect(restored.logprobs).toEqual(saved.logprobs);
  });

  it('should refuse a LoRA config with a 400 naming full fine-tuning', async () => {
    const attempt = createTinkerPolicy({
      client: createTinkerClient({ baseUrl: server.url }),
      baseModel: 'tiny',
      tokenizer: direct.tokenizer,
      lora: { rank: 8 },
    });
    await expect(attempt).rejects.toMatchObject({
      code: 'INVALID_ARGUMENT',
      details: { status: 400 },
    });
    await expect(attempt).rejects.toThrow(/full fine-tuning/);
  });

  it('should refuse a base model it does not serve', async () => {
    const client = createTinkerClient({ baseUrl: server.url });
    const session = await client.createSession();
    await expect(
      client.createModel({ session_id: session, base_model: 'Qwen/Qwen3-8B' }),
    ).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
  });

  it('should fail the future of an optim_step with no gradients', async () => {
    const client = createTinkerClient({ baseUrl: server.url });
    const session = await client.createSession();
    const modelId = await client.createModel({
      session_id: session,
      base_model: 'tiny',
    });
    await expect(
      client.optimStep({ modelId, adamParams: { learning_rate: 1e-3 } }),
    ).rejects.toMatchObject({
      code: 'INVALID_STATE',
      details: { category: 'user' },
    });
    await client.unloadModel(modelId);
  });

  it('should refuse sampling sampler weights older than the latest step', async () => {
    const client = createTinkerClient({ baseUrl: server.url });
    const old = await client.saveWeightsForSampler({
      modelId: remote.modelId,
      name: 'old',
    });
    const tokens = [...sequences[1]!.prompt, ...sequences[1]!.response];
    await remote.train({
      objective: 'cross-entropy',
      sequences: [{ tokenIds: tokens, tokenWeights: tokens.map(() => 1) }],
      options: { learningRate: 1e-3 },
    });
    await expect(
      client.sample({
        prompt: { chunks: [{ tokens: [5, 6] }] },
        model_path: old,
        sampling_params: { max_tokens: 2 },
      }),
    ).rejects.toMatchObject({ code: 'INVALID_STATE' });
  });

  it('should refuse malformed protobuf, protobuf elsewhere than forward_backward, and a compression it lacks', async () => {
    const post = (path: string, headers: Record<string, string>) =>
      fetch(`${server.url}${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-protobuf', ...headers },
        body: new Uint8Array([0x0a, 0x05, 0x6d]),
      });
    // A string field that runs past the end of the message.
    const malformed = await post('/api/v1/forward_backward', {});
    expect(malformed.status).toBe(422);
    expect(((await malformed.json()) as { detail: string }).detail).toMatch(
      /protobuf: .*runs past the end/,
    );
    expect((await post('/api/v1/optim_step', {})).status).toBe(415);
    expect(
      (await post('/api/v1/forward_backward', { 'content-encoding': 'br' }))
        .status,
    ).toBe(415);
  });
});

describe('a run resumes after the service restarts', () => {
  it('should load a checkpoint saved before the server stopped into a new server', async () => {
    const checkpointDirectory = mkdtempSync(
      join(tmpdir(), 'seal-tinker-kept-'),
    );
    const runDirectory = mkdtempSync(join(tmpdir(), 'seal-tinker-run-'));
    onTestFinished(() => {
      rmSync(checkpointDirectory, { recursive: true, force: true });
      rmSync(runDirectory, { recursive: true, force: true });
    });
    const local = await tinyPolicy();
    onTestFinished(() => local.close());
    const tokens = [[...sequences[0]!.prompt, ...sequences[0]!.response]];
    const start = async () => {
      const server = await createTinkerServer({
        baseModel: 'tiny',
        createPolicy: tinyPolicy,
        port: 0,
        checkpointDirectory,
      });
      const policy = await createTinkerPolicy({
        client: createTinkerClient({ baseUrl: server.url }),
        baseModel: 'tiny',
        tokenizer: local.tokenizer,
      });
      return { server, policy };
    };
    const first = await start();
    await first.policy.train({
      objective: 'cross-entropy',
      sequences: [
        { tokenIds: tokens[0]!, tokenWeights: tokens[0]!.map(() => 1) },
      ],
      options: { learningRate: 5e-2 },
    });
    await first.policy.save({ directory: runDirectory });
    const saved = await first.policy.score({ sequences: tokens });
    await first.policy.close();
    await first.server.close();

    const second = await start();
    onTestFinished(async () => {
      await second.policy.close();
      await second.server.close();
    });
    const fresh = await second.policy.score({ sequences: tokens });
    expect(fresh.logprobs).not.toEqual(saved.logprobs);
    await second.policy.load({ directory: runDirectory });
    expect(await second.policy.score({ sequences: tokens })).toEqual(saved);
    // The optimizer state came back too: the step counter resumes.
    const next = await second.policy.train({
      objective: 'cross-entropy',
      sequences: [
        { tokenIds: tokens[0]!, tokenWeights: tokens[0]!.map(() => 1) },
      ],
      options: { learningRate: 5e-2 },
    });
    expect(next.step).toBe(2);
  });
});

describe("SEAL's exact extension", () => {
  it('should sample a batch and take a ppo step exactly as the engine does in process', async () => {
    const server = await createTinkerServer({
      baseModel: 'tiny',
      createPolicy: tinyPolicy,
      port: 0,
      retrieveHoldMs: 2_000,
    });
    onTestFinished(() => server.close());
    const direct = await tinyPolicy();
    onTestFinished(() => direct.close());
    const remote = await createTinkerPolicy({
      client: createTinkerClient({ baseUrl: server.url }),
      baseModel: 'tiny',
      tokenizer: direct.tokenizer,
    });
    onTestFinished(() => remote.close());
    expect(remote.exact).toBe(true);

    // A sampled batch: one seed, each prompt's stream derived in the engine.
    const request = {
      prompts: sequences.map((s) => s.prompt),
      maxTokens: 6,
      temperature: 1,
      seed: 11,
      stopTokenIds: [],
    };
    const [sampled, expected] = [
      await remote.generate(request),
      await direct.generate(request),
    ];
    expect(sampled.generations.map((g) => g.tokenIds)).toEqual(
      expected.generations.map((g) => g.tokenIds),
    );
    expect(sampled.generations.map((g) => g.logprobs)).toEqual(
      expected.generations.map((g) => g.logprobs),
    );
    expect(sampled.generations.map((g) => g.modelLogprobs)).toEqual(
      expected.generations.map((g) => g.modelLogprobs),
    );
    // Why the extension: the plain protocol's one request per prompt (seed
    // + i) draws other tokens than the engine's batch with the same seed.
    const plain = await createTinkerPolicy({
      client: createTinkerClient({ baseUrl: server.url }),
      baseModel: 'tiny',
      tokenizer: direct.tokenizer,
      sealExtensions: 'off',
    });
    onTestFinished(() => plain.close());
    expect(plain.exact).toBe(false);
    const plainSampled = await plain.generate(request);
    expect(plainSampled.generations.map((g) => g.tokenIds)).not.toEqual(
      expected.generations.map((g) => g.tokenIds),
    );

    // A ppo step with what the plain protocol cannot carry: fractional
    // token weights, the k3 KL term, the dual clip and a learning-rate scale.
    const tokens = sampled.generations.map((g, i) => [
      ...sequences[i]!.prompt,
      ...g.tokenIds,
    ]);
    const old = await direct.score({ sequences: tokens });
    const batch: PolicyV1TrainOptions['sequences'] = tokens.map((row, i) => ({
      tokenIds: row,
      tokenWeights: row.map((_, t) =>
        t < sequences[i]!.prompt.length ? 0 : 0.25 + 0.1 * (t % 3),
      ),
      advantages: row.map(() => (i === 0 ? 1.5 : -0.75)),
      oldLogprobs: old.logprobs[i]!.map((value, t) =>
        t === 0 ? 0 : value + (t % 2 === 0 ? 0.4 : -0.4),
      ),
      refLogprobs: old.logprobs[i]!.map((value) => value - 0.1),
    }));
    const options = {
      learningRate: 1e-2,
      clipHigh: 0.28,
      klCoef: 0.05,
      dualClipC: 3,
      outputNormLearningRateScale: 10,
    };
    const viaProtocol = await remote.train({
      objective: 'ppo',
      sequences: batch,
      options,
    });
    const inProcess = await direct.train({
      objective: 'ppo',
      sequences: batch,
      options,
    });
    expect(viaProtocol).toEqual(inProcess);
    const [after, afterDirect] = [
      await remote.score({ sequences: tokens }),
      await direct.score({ sequences: tokens }),
    ];
    expect(after.logprobs).toEqual(afterDirect.logprobs);
    // The step moved the weights.
    expect(
      Math.abs(afterDirect.logprobs[0]![5]! - old.logprobs[0]![5]!),
    ).toBeGreaterThan(1e-4);
  });
});

/* eslint vitest/expect-expect: ["error", { "assertFunctionNames": ["expect", "rejectsWith"] }] */
import type { PolicyV1 } from '@seal/spec';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  afterAll,
  beforeAll,
  describe,
  expect,
  it,
  onTestFinished,
} from 'vitest';
import {
  OrtEngine,
  type EngineTrainSettings,
  type OrtEngineSettings,
} from '../engine/ort-engine';
import { decodeSafetensors, encodeSafetensors } from '../io/safetensors';
import { createModelConfig, type ModelConfig } from '../model/model-config';
import { initializeWeights } from '../model/model-weights';
import { buildBpeTokenizer } from '../tokenizer/build-bpe-tokenizer';
import { createOrtPolicy } from './create-ort-policy';

const tokenizerFiles = buildBpeTokenizer({
  corpus: [
    'copy the words: alpha beta gamma',
    'answer: alpha beta gamma',
    'delta epsilon zeta eta theta',
  ],
  vocabSize: 300,
});

const config: ModelConfig = createModelConfig({
  vocabSize: 304,
  hiddenSize: 32,
  intermediateSize: 64,
  numLayers: 2,
  numHeads: 4,
  numKeyValueHeads: 2,
  maxPositionEmbeddings: 256,
  initializerRange: 0.2,
});

const trainSettings = { learningRate: 1e-2 };

/** One PPO step of a fresh engine (seed 5, one thread, placements recorded): its result, weights and graph families. */
async function ppoStepOnce(
  engineSettings: OrtEngineSettings,
  sequences: Parameters<OrtEngine['train']>[0]['sequences'],
  settings: Parameters<OrtEngine['train']>[0]['settings'],
) {
  const engine = new OrtEngine({
    config,
    weights: initializeWeights({ config, seed: 5 }),
    settings: { threads: 1, recordPlacement: true, ...engineSettings },
  });
  const result = await engine.train({ objective: 'ppo', sequences, settings });
  const step = {
    result,
    weights: engine.currentWeights.buffer.slice(),
    families: engine.placements.map((placement) => placement.family),
  };
  await engine.close();
  return step;
}

/**
 * Two engines' steps on the same batch agree: loss within 1e-5 relative,
 * gradient norm within 1e-4, and every weight within 1% of one
 * learning-rate step (Adam divides by sqrt(v), so fp32 summation-order noise
 * in near-zero gradients moves a weight by a small fraction of it).
 */
function expectSameStep(
  actual: Awaited<ReturnType<typeof ppoStepOnce>>,
  expected: Awaited<ReturnType<typeof ppoStepOnce>>,
  learningRate: number,
): void {
  expect(
    Math.abs(actual.result.loss - expected.result.loss) /
      Math.abs(expected.result.loss),
  ).toBeLessThan(1e-5);
  expect(
    Math.abs(actual.result.gradNorm - expected.result.gradNorm) /
      expected.result.gradNorm,
  ).toBeLessThan(1e-4);
  let worst = 0;
  for (let i = 0; i < expected.weights.length; i++)
    worst = Math.max(
      worst,
      Math.abs(actual.weights[i]! - expected.weights[i]!),
    );
  expect(worst).toBeLessThan(1e-2 * learningRate);
}

function temporaryDirectory(): string {
  const directory = mkdtempSync(join(tmpdir(), 'engine-ort-'));
  onTestFinished(() => rmSync(directory, { recursive: true, force: true }));
  return directory;
}

function rejectsWith(
  promise: PromiseLike<unknown>,
  code: string,
): Promise<void> {
  return expect(Promise.resolve(promise)).rejects.toMatchObject({ code });
}

const prompts = [
  [5, 17, 3, 88, 42],
  [91, 2, 33, 4, 70, 11, 8, 9, 10, 1, 2, 3, 4, 5, 6, 7, 8, 9, 20],
  [12],
];

describe('createOrtPolicy (in process)', () => {
  let policy: PolicyV1;
  beforeAll(async () => {
    policy = await createOrtPolicy({
      model: { config, seed: 7 },
      tokenizer: tokenizerFiles,
      worker: false,
      threads: 1,
    });
  });
  afterAll(() => policy.close());

  it('should generate with the KV cache exactly what full recomputation generates', async () => {
    const cached = await policy.generate({
      prompts,
      maxTokens: 12,
      temperature: 0,
      stopTokenIds: [],
    });
    for (const [i, prompt] of prompts.entries()) {
      // Full recomputation: prefill the whole sequence again for every new token.
      const context = [...prompt];
      const logprobs: number[] = [];
      for (let step = 0; step < 12; step++) {
        const next = await policy.generate({
          prompts: [context],
          maxTokens: 1,
          temperature: 0,
          stopTokenIds: [],
        });
        context.push(next.generations[0]!.tokenIds[0]!);
        logprobs.push(next.generations[0]!.modelLogprobs[0]!);
      }
      const generation = cached.generations[i]!;
      expect(generation.tokenIds).toEqual(context.slice(prompt.length));
      generation.modelLogprobs.forEach((value, t) =>
        expect(Math.abs(value - logprobs[t]!)).toBeLessThan(1e-4),
      );
    }
  });

  it('should report model logprobs that agree with score', async () => {
    const { generations } = await policy.generate({
      prompts,
      maxTokens: 8,
      temperature: 1,
      seed: 3,
      stopTokenIds: [],
    });
    const sequences = generations.map((generation, i) => [
      ...prompts[i]!,
      ...generation.tokenIds,
    ]);
    const { logprobs } = await policy.score({ sequences });
    generations.forEach((generation, i) => {
      const scored = logprobs[i]!.slice(prompts[i]!.length);
      generation.modelLogprobs.forEach((value, t) =>
        expect(Math.abs(value - scored[t]!)).toBeLessThan(1e-4),
      );
    });
    expect(logprobs[0]![0]).toBe(0);
    expect(logprobs[0]).toHaveLength(sequences[0]!.length);
  });

  it('should score at a temperature exactly the distribution sampling at that temperature draws from', async () => {
    const { generations } = await policy.generate({
      prompts,
      maxTokens: 8,
      temperature: 0.7,
      seed: 5,
      stopTokenIds: [],
    });
    const sequences = generations.map((generation, i) => [
      ...prompts[i]!,
      ...generation.tokenIds,
    ]);
    const tempered = (await policy.score({ sequences, temperature: 0.7 }))
      .logprobs;
    const plain = (await policy.score({ sequences })).logprobs;
    generations.forEach((generation, i) => {
      const scored = tempered[i]!.slice(prompts[i]!.length);
      generation.logprobs.forEach((value, t) =>
        expect(Math.abs(value - scored[t]!)).toBeLessThan(1e-4),
      );
      generation.modelLogprobs.forEach((value, t) =>
        expect(
          Math.abs(value - plain[i]![prompts[i]!.length + t]!),
        ).toBeLessThan(1e-4),
      );
    });
    expect(tempered).not.toEqual(plain);
    await rejectsWith(
      policy.score({ sequences, temperature: 0 }),
      'INVALID_ARGUMENT',
    );
  });

  it('should be deterministic for a seed and independent of the batch', async () => {
    const options = {
      maxTokens: 10,
      temperature: 1.3,
      topP: 0.9,
      topK: 50,
      seed: 11,
      stopTokenIds: [],
    };
    const all = await policy.generate({ prompts, ...options });
    const again = await policy.generate({ prompts, ...options });
    const alone = await policy.generate({ prompts: [prompts[1]!], ...options });
    expect(again.generations.map((g) => g.tokenIds)).toEqual(
      all.generations.map((g) => g.tokenIds),
    );
    // Prompt 1 alone has index 0, so use seed-compatible comparison through the same index.
    const shifted = await policy.generate({
      prompts: [prompts[0]!],
      ...options,
    });
    expect(shifted.generations[0]!.tokenIds).toEqual(
      all.generations[0]!.tokenIds,
    );
    expect(alone.generations[0]!.tokenIds).toHaveLength(10);
  });

  it('should treat top-k 1 as greedy and give sampling logprobs of 0 to greedy tokens', async () => {
    const greedy = await policy.generate({
      prompts,
      maxTokens: 6,
      temperature: 0,
      stopTokenIds: [],
    });
    const topOne = await policy.generate({
      prompts,
      maxTokens: 6,
      temperature: 0.7,
      topK: 1,
      stopTokenIds: [],
    });
    expect(topOne.generations.map((g) => g.tokenIds)).toEqual(
      greedy.generations.map((g) => g.tokenIds),
    );
    expect(greedy.generations[0]!.logprobs.every((value) => value === 0)).toBe(
      true,
    );
    topOne.generations[0]!.logprobs.forEach((value) =>
      expect(Math.abs(value)).toBeLessThan(1e-12),
    );
  });

  it('should stop on stop tokens and report the finish reason', async () => {
    const free = await policy.generate({
      prompts: [prompts[0]!],
      maxTokens: 6,
      temperature: 0,
      stopTokenIds: [],
    });
    const third = free.generations[0]!.tokenIds[2]!;
    const stopped = await policy.generate({
      prompts: [prompts[0]!],
      maxTokens: 6,
      temperature: 0,
      stopTokenIds: [third],
    });
    const generation = stopped.generations[0]!;
    expect(generation.finishReason).toBe('stop');
    expect(generation.tokenIds.at(-1)).toBe(third);
    expect(generation.tokenIds.length).toBeLessThanOrEqual(3);
    expect(free.generations[0]!.finishReason).toBe('length');
    expect(free.usage.completionTokens).toBe(6);
  });

  it('should render chats with the template', async () => {
    const result = await policy.generate({
      chats: [
        { messages: [{ role: 'user', content: 'copy the words: alpha' }] },
      ],
      maxTokens: 3,
      temperature: 0,
    });
    expect(policy.tokenizer.decode(result.generations[0]!.promptTokenIds)).toBe(
      '<|im_start|>user\ncopy the words: alpha<|im_end|>\n<|im_start|>assistant\n',
    );
  });

  it('should see PPO ratios of exactly 1 right after score', async () => {
    const sequences = [prompts[0]!, prompts[1]!];
    const { logprobs } = await policy.score({ sequences });
    const result = await policy.train({
      objective: 'ppo',
      sequences: sequences.map((tokenIds, i) => ({
        tokenIds,
        tokenWeights: tokenIds.map((_, t) => (t < 2 ? 0 : 1)),
        advantages: tokenIds.map(() => (i === 0 ? 1 : -1)),
        oldLogprobs: logprobs[i]!,
        refLogprobs: logprobs[i]!,
      })),
      options: { ...trainSettings, klCoef: 0.1 },
    });
    expect(result.skipped).toBe(false);
    expect(result.metrics.ratioMean).toBe(1);
    expect(result.metrics.clipFraction).toBe(0);
    expect(result.metrics.kl).toBe(0);
    expect(result.metrics.tokens).toBe(3 + 17);
  });

  it('should see PPO ratios of 1 when score and train share a temperature, and not otherwise', async () => {
    const sequences = [prompts[0]!, prompts[1]!];
    const tempered = (await policy.score({ sequences, temperature: 0.6 }))
      .logprobs;
    const batch = (oldLogprobs: number[][]) =>
      sequences.map((tokenIds, i) => ({
        tokenIds,
        tokenWeights: tokenIds.map((_, t) => (t < 2 ? 0 : 1)),
        advantages: tokenIds.map(() => 0),
        oldLogprobs: oldLogprobs[i]!,
      }));
    // Zero advantages and no KL: the step changes nothing but reports the ratio.
    const same = await policy.train({
      objective: 'ppo',
      sequences: batch(tempered),
      options: { learningRate: 0, temperature: 0.6 },
    });
    expect(same.metrics.ratioMean).toBe(1);
    const mixed = await policy.train({
      objective: 'ppo',
      sequences: batch(tempered),
      options: { learningRate: 0 },
    });
    expect(Math.abs(mixed.metrics.ratioMean - 1)).toBeGreaterThan(1e-3);
  });

  it('should refuse a step with a non-finite loss and change nothing', async () => {
    const sequence = prompts[1]!;
    const before = (await policy.score({ sequences: [sequence] })).logprobs[0]!;
    const result = await policy.train({
      objective: 'ppo',
      sequences: [
        {
          tokenIds: sequence,
          tokenWeights: sequence.map(() => 1),
          advantages: sequence.map(() => -3e38),
          oldLogprobs: before,
        },
      ],
      options: trainSettings,
    });
    expect(result.skipped).toBe(true);
    expect((await policy.score({ sequences: [sequence] })).logprobs[0]).toEqual(
      before,
    );
  });

  it('should reject per-token arrays of the wrong length with SHAPE_MISMATCH', async () => {
    await rejectsWith(
      policy.train({
        objective: 'cross-entropy',
        sequences: [{ tokenIds: [1, 2, 3], tokenWeights: [0, 1] }],
        options: trainSettings,
      }),
      'SHAPE_MISMATCH',
    );
  });

  it('should reject token ids outside the vocabulary and malformed options', async () => {
    await rejectsWith(
      policy.score({ sequences: [[1, 2, 999]] }),
      'INVALID_ARGUMENT',
    );
    await rejectsWith(
      policy.generate({ prompts: [[1]], maxTokens: 0 }),
      'INVALID_ARGUMENT',
    );
    for (const prompts of [
      [[1, -2]],
      [[1, 2.5]],
      [[1, Number.NaN]],
      [['1']],
      [7],
      'x',
      [[1, 999]],
    ]) {
      await rejectsWith(
        policy.generate({ prompts: prompts as number[][], maxTokens: 2 }),
        'INVALID_ARGUMENT',
      );
    }
    await rejectsWith(
      policy.generate({
        prompts: [[1]],
        chats: [{ messages: [] }],
        maxTokens: 2,
      }),
      'INVALID_ARGUMENT',
    );
    await rejectsWith(
      policy.generate({
        prompts: [[1]],
        maxTokens: 2,
        unknownOption: 1,
      } as never),
      'INVALID_ARGUMENT',
    );
    await rejectsWith(
      policy.train({
        objective: 'ppo',
        sequences: [{ tokenIds: [1, 2], tokenWeights: [0, 1] }],
        options: trainSettings,
      }),
      'INVALID_ARGUMENT',
    );
  });

  it('should save then load bit-exactly, optimizer state included', async () => {
    await policy.train({
      objective: 'cross-entropy',
      sequences: [
        {
          tokenIds: prompts[1]!,
          tokenWeights: prompts[1]!.map((_, t) => (t === 0 ? 0 : 0.1)),
        },
      ],
      options: trainSettings,
    });
    const first = temporaryDirectory();
    const second = temporaryDirectory();
    await policy.save({ directory: first });
    const other = await createOrtPolicy({
      model: { config, seed: 99 },
      tokenizer: tokenizerFiles,
      worker: false,
      threads: 1,
    });
    await other.load({ directory: first });
    await other.save({ directory: second });
    for (const file of [
      'model.safetensors',
      'optimizer.safetensors',
      'config.json',
      'tokenizer.json',
    ]) {
      expect(
        readFileSync(join(second, file)).equals(
          readFileSync(join(first, file)),
        ),
      ).toBe(true);
    }
    const sequences = [prompts[0]!];
    expect((await other.score({ sequences })).logprobs).toEqual(
      (await policy.score({ sequences })).logprobs,
    );
    const reloaded = await createOrtPolicy({
      model: { directory: first },
      worker: false,
      threads: 1,
    });
    expect((await reloaded.score({ sequences })).logprobs).toEqual(
      (await policy.score({ sequences })).logprobs,
    );
    await other.close();
    await reloaded.close();
  });

  it('should report a missing weight tensor with MISSING_WEIGHT', async () => {
    const directory = temporaryDirectory();
    await policy.save({ directory });
    const path = join(directory, 'model.safetensors');
    const { tensors } = decodeSafetensors({
      bytes: readFileSync(path),
      source: path,
    });
    tensors.delete('model.layers.1.mlp.up_proj.weight');
    writeFileSync(path, encodeSafetensors({ tensors }));
    await rejectsWith(policy.load({ directory }), 'MISSING_WEIGHT');
  });

  it('should report a weight of the wrong shape with SHAPE_MISMATCH', async () => {
    const directory = temporaryDirectory();
    await policy.save({ directory });
    const path = join(directory, 'model.safetensors');
    const { tensors } = decodeSafetensors({
      bytes: readFileSync(path),
      source: path,
    });
    tensors.set('model.norm.weight', {
      shape: [31],
      data: new Float32Array(31),
    });
    writeFileSync(path, encodeSafetensors({ tensors }));
    await rejectsWith(policy.load({ directory }), 'SHAPE_MISMATCH');
  });

  it('should reject unknown config fields with INVALID_DATA', async () => {
    const directory = temporaryDirectory();
    await policy.save({ directory });
    const path = join(directory, 'config.json');
    const hf = JSON.parse(readFileSync(path, 'utf8')) as Record<
      string,
      unknown
    >;
    writeFileSync(path, JSON.stringify({ ...hf, rope_flavour: 'new' }));
    await rejectsWith(
      createOrtPolicy({ model: { directory }, worker: false }),
      'INVALID_DATA',
    );
  });
});

describe('createOrtPolicy settings', () => {
  it('should reject a tokenizer larger than the model vocabulary with VOCAB_MISMATCH', async () => {
    const small = createModelConfig({ ...config, vocabSize: 200 });
    await rejectsWith(
      createOrtPolicy({
        model: { config: small, seed: 1 },
        tokenizer: tokenizerFiles,
        worker: false,
      }),
      'VOCAB_MISMATCH',
    );
  });

  it('should fail clearly when an execution provider is unavailable', async () => {
    const policy = await createOrtPolicy({
      model: { config, seed: 1 },
      tokenizer: tokenizerFiles,
      worker: false,
      executionProvider: 'cuda',
    });
    await rejectsWith(
      policy.score({ sequences: [[1, 2, 3]] }),
      'BACKEND_UNAVAILABLE',
    );
    await policy.close();
  });

  it('should run the engine in a worker thread', async () => {
    const policy = await createOrtPolicy({
      model: { config, seed: 7 },
      tokenizer: tokenizerFiles,
      threads: 1,
    });
    const { generations } = await policy.generate({
      prompts: [prompts[0]!],
      maxTokens: 4,
      temperature: 0,
      stopTokenIds: [],
    });
    expect(generations[0]!.tokenIds).toHaveLength(4);
    const result = await policy.train({
      objective: 'cross-entropy',
      sequences: [{ tokenIds: prompts[0]!, tokenWeights: [0, 1, 1, 1, 1] }],
      options: trainSettings,
    });
    expect(result.step).toBe(1);
    await rejectsWith(
      policy.score({ sequences: [[1, 1000]] }),
      'INVALID_ARGUMENT',
    );
    await policy.close();
  });
});

describe('OrtEngine', () => {
  /** Plain AdamW settings with no KL; each test sets its rate. */
  const adamSettings: EngineTrainSettings = {
    learningRate: 0,
    clipLow: 0.2,
    clipHigh: 0.2,
    dualClipC: 10,
    klCoef: 0,
    maxGradNorm: 1,
    weightDecay: 0.01,
    betas: [0.9, 0.999],
    eps: 1e-8,
    temperature: 1,
  };

  it('should leave weights, moments and step unchanged when the loss is not finite', async () => {
    const weights = initializeWeights({ config, seed: 5 });
    const engine = new OrtEngine({ config, weights, settings: { threads: 1 } });
    const settings = { ...adamSettings, learningRate: 0.1 };
    const sequence = { tokenIds: [1, 2, 3, 4], tokenWeights: [0, 1, 1, 1] };
    await engine.train({
      objective: 'cross-entropy',
      sequences: [sequence],
      settings,
    });
    const weightsBefore = engine.currentWeights.buffer.slice();
    const mBefore = engine.optimizerState.m.buffer.slice();
    const result = await engine.train({
      objective: 'cross-entropy',
      sequences: [{ ...sequence, tokenWeights: [0, 1, Number.NaN, 1] }],
      settings,
    });
    expect(result.skipped).toBe(true);
    expect(result.step).toBe(1);
    expect(engine.currentWeights.buffer).toEqual(weightsBefore);
    expect(engine.optimizerState.m.buffer).toEqual(mBefore);
    await engine.close();
  });

  it('should not move the token embeddings at embeddingLearningRateScale 0, and move them at 1', async () => {
    const settings = { ...adamSettings, learningRate: 0.05 };
    const sequence = { tokenIds: [1, 2, 3, 4], tokenWeights: [0, 1, 1, 1] };
    for (const scale of [0, 1]) {
      const engine = new OrtEngine({
        config,
        weights: initializeWeights({ config, seed: 9 }),
        settings: { threads: 1 },
      });
      const embedding = engine.currentWeights
        .get('model.embed_tokens.weight')
        .slice();
      const layer = engine.currentWeights
        .get('model.layers.0.mlp.up_proj.weight')
        .slice();
      await engine.train({
        objective: 'cross-entropy',
        sequences: [sequence],
        settings: { ...settings, embeddingLearningRateScale: scale },
      });
      const embeddingAfter = engine.currentWeights.get(
        'model.embed_tokens.weight',
      );
      const layerAfter = engine.currentWeights.get(
        'model.layers.0.mlp.up_proj.weight',
      );
      if (scale === 0) expect(embeddingAfter).toEqual(embedding);
      else expect(embeddingAfter).not.toEqual(embedding);
      expect(layerAfter).not.toEqual(layer);
      await engine.close();
    }
  });

  it('should move the final norm by outputNormLearningRateScale × the rate, and the other norms by the rate', async () => {
    const settings = { ...adamSettings, learningRate: 1e-3 };
    const sequence = { tokenIds: [1, 2, 3, 4], tokenWeights: [0, 1, 1, 1] };
    const moves = new Map<number, { output: number[]; inner: number[] }>();
    for (const scale of [0, 1, 3]) {
      const engine = new OrtEngine({
        config,
        weights: initializeWeights({ config, seed: 9 }),
        settings: { threads: 1 },
      });
      const before = {
        output: Array.from(engine.currentWeights.get('model.norm.weight')),
        inner: Array.from(
          engine.currentWeights.get('model.layers.0.input_layernorm.weight'),
        ),
      };
      await engine.train({
        objective: 'cross-entropy',
        sequences: [sequence],
        settings: { ...settings, outputNormLearningRateScale: scale },
      });
      const after = {
        output: Array.from(engine.currentWeights.get('model.norm.weight')),
        inner: Array.from(
          engine.currentWeights.get('model.layers.0.input_layernorm.weight'),
        ),
      };
      moves.set(scale, {
        output: after.output.map((x, i) => x - before.output[i]!),
        inner: after.inner.map((x, i) => x - before.inner[i]!),
      });
      await engine.close();
    }
    // Adam's first step moves each weight by about ±rate whatever its gradient.
    expect(moves.get(0)!.output.every((d) => d === 0)).toBe(true);
    moves.get(1)!.output.forEach((d, i) => {
      expect(Math.abs(d)).toBeGreaterThan(0.5e-3);
      expect(moves.get(3)!.output[i]).toBeCloseTo(3 * d, 5);
    });
    for (const scale of [0, 3]) {
      moves.get(scale)!.inner.forEach((d, i) => {
        expect(d).toBeCloseTo(moves.get(1)!.inner[i]!, 6);
      });
    }
    expect(moves.get(1)!.inner.some((d) => Math.abs(d) > 0.5e-3)).toBe(true);
  });

  it('should move the inner norms and the biases by vectorLearningRateScale × the rate, and the matrices and the final norm by their own rates', async () => {
    const names = [
      'model.layers.0.input_layernorm.weight',
      'model.layers.1.post_attention_layernorm.weight',
      'model.layers.0.self_attn.q_proj.bias',
      'model.layers.0.self_attn.v_proj.bias',
    ];
    const matrix = 'model.layers.0.mlp.up_proj.weight';
    const moves = new Map<
      number,
      { vectors: number[][]; matrix: number[]; output: number[] }
    >();
    for (const scale of [0, 1, 4]) {
      const engine = new OrtEngine({
        config,
        weights: initializeWeights({ config, seed: 9 }),
        settings: { threads: 1 },
      });
      const read = (name: string): number[] =>
        Array.from(engine.currentWeights.get(name));
      const before = {
        vectors: names.map(read),
        matrix: read(matrix),
        output: read('model.norm.weight'),
      };
      await engine.train({
        objective: 'cross-entropy',
        sequences: [{ tokenIds: [1, 2, 3, 4], tokenWeights: [0, 1, 1, 1] }],
        settings: {
          ...adamSettings,
          learningRate: 1e-3,
          vectorLearningRateScale: scale,
        },
      });
      const delta = (after: number[], was: number[]): number[] =>
        after.map((x, i) => x - was[i]!);
      moves.set(scale, {
        vectors: names.map((name, k) => delta(read(name), before.vectors[k]!)),
        matrix: delta(read(matrix), before.matrix),
        output: delta(read('model.norm.weight'), before.output),
      });
      await engine.close();
    }
    for (const vector of moves.get(0)!.vectors)
      expect(vector.every((d) => d === 0)).toBe(true);
    moves.get(1)!.vectors.forEach((vector, k) => {
      expect(vector.some((d) => Math.abs(d) > 0.5e-3)).toBe(true);
      vector.forEach((d, i) =>
        expect(moves.get(4)!.vectors[k]![i]).toBeCloseTo(4 * d, 5),
      );
    });
    // The matrices and the final norm keep their rates whatever the vectors' scale.
    for (const scale of [0, 4]) {
      moves
        .get(scale)!
        .matrix.forEach((d, i) =>
          expect(d).toBeCloseTo(moves.get(1)!.matrix[i]!, 6),
        );
      moves
        .get(scale)!
        .output.forEach((d, i) =>
          expect(d).toBeCloseTo(moves.get(1)!.output[i]!, 6),
        );
    }
    expect(moves.get(1)!.matrix.some((d) => Math.abs(d) > 0.5e-3)).toBe(true);
  });

  it('should move only the final norm when the matrices, embeddings and vectors are frozen (temperature-only RL)', async () => {
    const engine = new OrtEngine({
      config,
      weights: initializeWeights({ config, seed: 9 }),
      settings: { threads: 1 },
    });
    const before = new Map(
      engine.currentWeights.specs.map(({ name }) => [
        name,
        Array.from(engine.currentWeights.get(name)),
      ]),
    );
    await engine.train({
      objective: 'cross-entropy',
      sequences: [{ tokenIds: [1, 2, 3, 4], tokenWeights: [0, 1, 1, 1] }],
      settings: {
        ...adamSettings,
        learningRate: 1e-3,
        matrixLearningRateScale: 0,
        embeddingLearningRateScale: 0,
        vectorLearningRateScale: 0,
        outputNormLearningRateScale: 10,
        outputNormUniform: true,
      },
    });
    const moved: string[] = [];
    for (const [name, was] of before) {
      const now = engine.currentWeights.get(name);
      if (was.some((x, i) => x !== now[i])) moved.push(name);
    }
    expect(moved).toEqual(['model.norm.weight']);
    // One logit scale: every element of the gain moved by the same factor.
    const now = Array.from(engine.currentWeights.get('model.norm.weight'));
    const was = before.get('model.norm.weight')!;
    const ratio = now[0]! / was[0]!;
    expect(ratio).not.toBeCloseTo(1, 6);
    now.forEach((x, i) => expect(x / was[i]!).toBeCloseTo(ratio, 5));
    await engine.close();
  });

  it('should scale the final norm as a whole by one multiplicative step with outputNormUniform', async () => {
    const engine = new OrtEngine({
      config,
      weights: initializeWeights({ config, seed: 9 }),
      settings: { threads: 1 },
    });
    // A gain that is not all ones, so a multiplicative step differs from an additive one.
    const gain = engine.currentWeights.get('model.norm.weight');
    gain.forEach((_, i) => (gain[i] = 0.5 + i / gain.length));
    const before = Array.from(gain);
    const inner = Array.from(
      engine.currentWeights.get('model.layers.0.input_layernorm.weight'),
    );
    await engine.train({
      objective: 'cross-entropy',
      sequences: [{ tokenIds: [1, 2, 3, 4], tokenWeights: [0, 1, 1, 1] }],
      settings: {
        ...adamSettings,
        learningRate: 1e-3,
        outputNormLearningRateScale: 10,
        outputNormUniform: true,
      },
    });
    const ratios = Array.from(
      engine.currentWeights.get('model.norm.weight'),
    ).map((x, i) => x / before[i]!);
    // Adam's first step on the one scale is ±1, times the rate: 1 ± 0.01.
    expect(Math.abs(ratios[0]! - 1)).toBeCloseTo(0.01, 5);
    for (const r of ratios) expect(r).toBeCloseTo(ratios[0]!, 6);
    // The other norms still move element by element.
    const innerAfter = engine.currentWeights.get(
      'model.layers.0.input_layernorm.weight',
    );
    expect(
      new Set(Array.from(innerAfter).map((x, i) => Math.sign(x - inner[i]!)))
        .size,
    ).toBe(2);
    await engine.close();
  });

  it('should never sample a suppressed token, greedy or sampled', async () => {
    const engine = new OrtEngine({
      config,
      weights: initializeWeights({ config, seed: 3 }),
      settings: { threads: 1 },
    });
    const request = {
      prompts: [[5, 17, 3], [12]],
      maxTokens: 6,
      stopTokenIds: [],
      seed: 4,
    };
    const free = await engine.generate({
      ...request,
      sampling: { temperature: 0, topP: 1, topK: 0 },
    });
    // Suppress every token the unconstrained greedy run chose.
    const chosen = [
      ...new Set(free.flatMap((generation) => generation.tokenIds)),
    ];
    for (const temperature of [0, 1]) {
      const constrained = await engine.generate({
        ...request,
        sampling: { temperature, topP: 1, topK: 0 },
        suppressTokenIds: chosen,
      });
      for (const generation of constrained) {
        expect(generation.tokenIds).toHaveLength(6);
        for (const id of generation.tokenIds) expect(chosen).not.toContain(id);
      }
    }
    await engine.close();
  });

  it('should give the same generations and scores whether sessions are kept or rebuilt', async () => {
    // One session kept: every call rebuilds the graphs it needs. The
    // rebuilt sessions run the same graphs, so every number is the same.
    const outputs = [];
    for (const maxSessions of [1, 512]) {
      const engine = new OrtEngine({
        config,
        weights: initializeWeights({ config, seed: 8 }),
        settings: { threads: 1, maxSessions },
      });
      const calls = [];
      let prompts = [[5, 17, 3], [12, 40, 41, 42, 43, 44, 45, 46, 47], [9]];
      for (let turn = 0; turn < 3; turn++) {
        const generations = await engine.generate({
          prompts,
          maxTokens: 5 + turn,
          sampling: { temperature: 1, topP: 0.9, topK: 0 },
          stopTokenIds: [],
          seed: 11 + turn,
        });
        calls.push(generations);
        // The next turn extends each prompt with its reply and a tool result.
        prompts = prompts.map((prompt, i) => [
          ...prompt,
          ...generations[i]!.tokenIds,
          100 + turn,
          101 + i,
        ]);
      }
      const scores = await engine.score(prompts);
      outputs.push({ calls, scores });
      await engine.close();
    }
    expect(outputs[0]).toEqual(outputs[1]);
  });

  it('should leave the weights as they are at learning rate 0 (a frozen control run)', async () => {
    const weights = initializeWeights({ config, seed: 6 });
    const engine = new OrtEngine({ config, weights, settings: { threads: 1 } });
    const before = engine.currentWeights.buffer.slice();
    const result = await engine.train({
      objective: 'cross-entropy',
      sequences: [{ tokenIds: [1, 2, 3, 4], tokenWeights: [0, 1, 1, 1] }],
      settings: {
        ...adamSettings,
        learningRate: 0,
      },
    });
    expect(result.skipped).toBe(false);
    expect(result.gradNorm).toBeGreaterThan(0);
    expect(engine.currentWeights.buffer).toEqual(before);
    await engine.close();
  });

  it('should give the same step with gradients accumulated over micro-batches', async () => {
    const settings = {
      learningRate: 1e-2,
      clipLow: 0.2,
      clipHigh: 0.2,
      dualClipC: 10,
      klCoef: 0,
      maxGradNorm: 1e30,
      weightDecay: 0.01,
      betas: [0.9, 0.999] as [number, number],
      eps: 1e-8,
      temperature: 1,
    };
    const sequences = [
      prompts[0]!,
      prompts[1]!,
      prompts[2]!.concat([4, 5]),
      [
        7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25,
        26,
      ],
    ].map((tokenIds) => ({
      tokenIds,
      tokenWeights: tokenIds.map((_, t) => (t === 0 ? 0 : 0.05)),
    }));
    const results = [];
    for (const microBatchTokens of [16, 4096]) {
      const engine = new OrtEngine({
        config,
        weights: initializeWeights({ config, seed: 5 }),
        settings: { threads: 1, microBatchTokens },
      });
      const result = await engine.train({
        objective: 'cross-entropy',
        sequences,
        settings,
      });
      results.push({ result, weights: engine.currentWeights.buffer.slice() });
      await engine.close();
    }
    const [split, whole] = results as [
      (typeof results)[0],
      (typeof results)[0],
    ];
    expect(Math.abs(split.result.loss - whole.result.loss)).toBeLessThan(1e-5);
    expect(
      Math.abs(split.result.gradNorm - whole.result.gradNorm) /
        whole.result.gradNorm,
    ).toBeLessThan(1e-4);
    let worst = 0;
    for (let i = 0; i < whole.weights.length; i++)
      worst = Math.max(worst, Math.abs(split.weights[i]! - whole.weights[i]!));
    // Adam divides by sqrt(v), so fp32 summation-order noise in near-zero
    // gradients moves a weight by a small fraction of the learning rate.
    expect(worst).toBeLessThan(1e-2 * settings.learningRate);
  });

  it('should give the same PPO step with the LM head at the weighted slots only', async () => {
    const settings = {
      learningRate: 1e-2,
      clipLow: 0.2,
      clipHigh: 0.28,
      dualClipC: 3,
      klCoef: 0.1,
      maxGradNorm: 1e30,
      weightDecay: 0.01,
      betas: [0.9, 0.999] as [number, number],
      eps: 1e-8,
      temperature: 0.8,
    };
    // Rows weighted on their last few tokens (an eighth of the slots), and
    // one weighted past half of its slots (the full graph).
    const row = (length: number, k: number) =>
      Array.from({ length }, (_, t) => (t * (31 + k) + 7 * k) % 300);
    const sequences = [
      [row(70, 1), 62],
      [row(90, 2), 80],
      [row(50, 3), 10],
      [row(30, 4), 2],
    ].map(([tokenIds, start], r) => ({
      tokenIds: tokenIds as number[],
      tokenWeights: (tokenIds as number[]).map((_, t) =>
        t >= (start as number) ? 1 : 0,
      ),
      advantages: (tokenIds as number[]).map(() => [0.8, -0.5, 1.2, -1][r]!),
      oldLogprobs: (tokenIds as number[]).map(
        (_, t) => -5.6 + 0.1 * Math.sin(t + r),
      ),
      refLogprobs: (tokenIds as number[]).map(
        (_, t) => -5.7 + 0.1 * Math.cos(t * r),
      ),
    }));
    const [full, selected] = [
      await ppoStepOnce(
        { microBatchTokens: 256, weightedSlotsOnly: false },
        sequences,
        settings,
      ),
      await ppoStepOnce(
        { microBatchTokens: 256, weightedSlotsOnly: true },
        sequences,
        settings,
      ),
    ];
    expect(full.families).toEqual(['grad-ppo', 'optimizer']);
    expect(selected.families).toEqual([
      'grad-ppo-slots',
      'grad-ppo',
      'optimizer',
    ]);
    expectSameStep(selected, full, settings.learningRate);
    expect(selected.result.metrics).toEqual({
      ...full.result.metrics,
      clipFraction: expect.closeTo(full.result.metrics.clipFraction, 6),
      kl: expect.closeTo(full.result.metrics.kl, 6),
      ratioMean: expect.closeTo(full.result.metrics.ratioMean, 6),
      negativeLogLikelihood: expect.closeTo(
        full.result.metrics.negativeLogLikelihood,
        5,
      ),
    });
  });

  it('should give the same PPO step with rows that continue one prompt trained through the shared-prefix graph', async () => {
    const settings = {
      learningRate: 1e-2,
      clipLow: 0.2,
      clipHigh: 0.28,
      dualClipC: 3,
      klCoef: 0.1,
      maxGradNorm: 1e30,
      weightDecay: 0.01,
      betas: [0.9, 0.999] as [number, number],
      eps: 1e-8,
      temperature: 1,
    };
    // Three rollouts of a 70-token prompt (trained on their own tokens only), and one row of another prompt.
    const prompt = Array.from({ length: 70 }, (_, t) => (t * 37 + 11) % 300);
    const rollouts = [
      [5, 17, 3, 88, 42],
      [91, 2, 33, 4, 70, 11, 8, 9, 10, 1, 2, 3, 4, 5, 6, 7, 8, 9, 20],
      [12, 13],
    ].map((tail) => [...prompt, ...tail]);
    const other = Array.from({ length: 80 }, (_, t) => (t * 13 + 5) % 300);
    const sequences = [...rollouts, other].map((tokenIds, row) => {
      const start = row < rollouts.length ? prompt.length : 60;
      return {
        tokenIds,
        tokenWeights: tokenIds.map((_, t) => (t >= start ? 1 : 0)),
        advantages: tokenIds.map(() => [0.8, -0.5, 1.2, -1][row]!),
        oldLogprobs: tokenIds.map((_, t) => -5.6 + 0.1 * Math.sin(t + row)),
        refLogprobs: tokenIds.map((_, t) => -5.7 + 0.1 * Math.cos(t * row)),
      };
    });
    const [plain, shared] = [
      await ppoStepOnce(
        { sharePrefixes: false, weightedSlotsOnly: false },
        sequences,
        settings,
      ),
      await ppoStepOnce(
        { sharePrefixes: true, weightedSlotsOnly: false },
        sequences,
        settings,
      ),
    ];
    expect(plain.families).toEqual(['grad-ppo', 'optimizer']);
    expect(shared.families).toEqual([
      'grad-shared-ppo',
      'grad-ppo',
      'optimizer',
    ]);
    expectSameStep(shared, plain, settings.learningRate);
    expect(shared.result.metrics.tokens).toBe(plain.result.metrics.tokens);
  });
});

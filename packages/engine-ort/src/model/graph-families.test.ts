import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createOrtSession, floatTensor, ort } from '../engine/ort-session';
import { buildSequenceFeeds } from '../engine/sequence-feeds';
import { checkGraphGradients } from '../graph/gradient-check';
import { GraphBuilder } from '../graph/graph-builder';
import { decodeSafetensors } from '../io/safetensors';
import { SeededRandom } from '../io/seeded-random';
import { declareWeights } from './decoder-graph';
import {
  buildLogitsGraph,
  buildScoreGraph,
  forwardLogprobs,
  lossInputValues,
  policyLoss,
  sequenceInputs,
  type SequenceBucket,
  type TrainObjective,
} from './graph-families';
import { createModelConfig, parseModelConfig, type ModelConfig } from './model-config';
import { listWeightSpecs, weightsFromTensors } from './model-weights';

const fixtureDirectory = join(import.meta.dirname, '..', '__fixtures__', 'tiny-qwen2');

function randomWeights(config: ModelConfig, seed: number): Map<string, Float64Array> {
  const random = new SeededRandom(seed);
  return new Map(
    listWeightSpecs(config).map((spec) => {
      const n = spec.shape.reduce((a, b) => a * b, 1);
      const base = spec.kind === 'norm' ? 1 : 0;
      return [spec.name, Float64Array.from({ length: n }, () => base + random.nextNormal() * 0.3)];
    }),
  );
}

function sequenceFeeds({
  config,
  bucket,
  sequences,
}: {
  config: ModelConfig;
  bucket: SequenceBucket;
  sequences: number[][];
}): Map<string, Float64Array | BigInt64Array> {
  const feeds = buildSequenceFeeds({ config, bucket, sequences, floatType: 'float64' });
  return new Map<string, Float64Array | BigInt64Array>([
    ['input_ids', feeds.inputIds],
    ['targets', feeds.targets],
    ['rope_cos', feeds.cos as Float64Array],
    ['rope_sin', feeds.sin as Float64Array],
    ['attention_bias', feeds.bias as Float64Array],
  ]);
}

async function runGraph({
  model,
  feeds,
  shapes,
}: {
  model: Uint8Array;
  feeds: Map<string, Float64Array | Float32Array | BigInt64Array>;
  shapes: Map<string, number[]>;
}): Promise<Record<string, ort.Tensor>> {
  const session = await createOrtSession({
    model,
    settings: { executionProvider: 'cpu', threads: 1, optimizationLevel: 'basic' },
  });
  const tensors: Record<string, ort.Tensor> = {};
  for (const name of session.inputNames) {
    const data = feeds.get(name)!;
    tensors[name] =
      data instanceof BigInt64Array ? new ort.Tensor('int64', data, shapes.get(name)!) : floatTensor(data, shapes.get(name)!);
  }
  const out = await session.run(tensors);
  await session.release();
  return out;
}

function inputShapes(config: ModelConfig, bucket: SequenceBucket): Map<string, number[]> {
  const { batch, length } = bucket;
  const half = config.headDim / 2;
  return new Map<string, number[]>([
    ...listWeightSpecs(config).map((spec): [string, number[]] => [spec.name, spec.shape]),
    ['input_ids', [batch * length]],
    ['targets', [batch * length, 1]],
    ['rope_cos', [batch, length, 1, half]],
    ['rope_sin', [batch, length, 1, half]],
    ['attention_bias', [batch, 1, 1, length, length]],
    ['inverse_temperature', []],
  ]);
}

async function wholeModelCheck({ config, objective, queryBlocks }: { config: ModelConfig; objective: TrainObjective; queryBlocks?: number }) {
  const bucket = { batch: 2, length: 6 };
  const sequences = [
    [1, 5, 9, 3, 14, 2],
    [7, 7, 0, 12],
  ];
  const tokens = bucket.batch * bucket.length;
  const weights = randomWeights(config, 3);
  const feeds = new Map<string, Float64Array | BigInt64Array | Uint8Array>([
    ...weights,
    ...sequenceFeeds({ config, bucket, sequences }),
    // A temperature of 0.8, so the check covers the tempered log-probabilities.
    ['inverse_temperature', Float64Array.of(1.25)],
  ]);
  // Current log-probabilities, to place old/ref log-probabilities away from the clip kinks.
  const scored = await runGraph({
    model: buildScoreGraph({ config, bucket, floatType: 'float64' }).model,
    feeds: feeds as Map<string, Float64Array | BigInt64Array>,
    shapes: inputShapes(config, bucket),
  });
  const current = scored.logprobs!.data as Float64Array;
  const offsets = [0, 0.05, -0.05, 0.7, -0.7, 0.05];
  const random = new SeededRandom(4);
  const tokenWeights = new Float64Array(tokens);
  const advantages = new Float64Array(tokens);
  const oldLogprobs = new Float64Array(tokens);
  const refLogprobs = new Float64Array(tokens);
  for (let t = 0; t < tokens; t++) {
    const row = Math.floor(t / bucket.length);
    const position = t % bucket.length;
    // Slot t predicts token t+1: weight only inside the sequence, and not on the first (prompt) target.
    const inside = position >= 1 && position < sequences[row]!.length - 1;
    tokenWeights[t] = inside ? 0.25 + random.nextFloat() : 0;
    advantages[t] = random.nextNormal();
    oldLogprobs[t] = current[t]! + offsets[t % offsets.length]!;
    refLogprobs[t] = current[t]! + 0.3 * random.nextNormal();
  }
  feeds.set('token_weights', tokenWeights);
  feeds.set('advantages', advantages);
  feeds.set('old_logprobs', oldLogprobs);
  feeds.set('ref_logprobs', refLogprobs);
  feeds.set('clip_low', Float64Array.of(0.2));
  feeds.set('clip_high', Float64Array.of(0.2));
  feeds.set('dual_clip', Float64Array.of(1.8));
  feeds.set('kl_coef', Float64Array.of(0.1));
  return checkGraphGradients({
    feeds,
    elementsPerInput: 5,
    build: (g) => {
      const weightValues = declareWeights({ builder: g, config, requiresGrad: true });
      const inputs = sequenceInputs({ builder: g, config, bucket });
      const inverseTemperature = g.input({ name: 'inverse_temperature', shape: [] });
      const logprobs = forwardLogprobs({ builder: g, config, weights: weightValues, bucket, inputs, inverseTemperature, queryBlocks });
      const lossInputs = lossInputValues({ builder: g, tokens, objective });
      const { loss } = policyLoss({ builder: g, logprobs, lossInputs });
      return { loss, wrt: [...weightValues.values()] };
    },
  });
}

describe('grad graph', () => {
  const qwen2 = createModelConfig({
    vocabSize: 16,
    hiddenSize: 16,
    intermediateSize: 24,
    numLayers: 2,
    numHeads: 4,
    numKeyValueHeads: 2,
  });

  it('should match finite differences for a 2-layer tied Qwen2 model with the PPO + KL loss', async () => {
    const result = await wholeModelCheck({ config: qwen2, objective: 'ppo' });
    expect(Object.keys(result.perInput)).toHaveLength(listWeightSpecs(qwen2).length);
    console.log(`worst relative error ${result.worstRelativeError.toExponential(2)} over ${result.checked} elements`);
    expect(result.worstRelativeError).toBeLessThan(1e-5);
  });

  it('should compute the same log-probabilities with the causal attention in query blocks as dense', async () => {
    const bucket = { batch: 2, length: 6 };
    const feeds = new Map<string, Float64Array | BigInt64Array>([
      ...randomWeights(qwen2, 5),
      ...sequenceFeeds({ config: qwen2, bucket, sequences: [[1, 5, 9, 3, 14, 2], [7, 7, 0, 12]] }),
      ['inverse_temperature', Float64Array.of(1)],
    ]);
    const logprobs = async (queryBlocks: number) => {
      const g = new GraphBuilder({ floatType: 'float64' });
      const weights = declareWeights({ builder: g, config: qwen2, requiresGrad: false });
      const inputs = sequenceInputs({ builder: g, config: qwen2, bucket });
      const inverseTemperature = g.input({ name: 'inverse_temperature', shape: [] });
      g.output(forwardLogprobs({ builder: g, config: qwen2, weights, bucket, inputs, inverseTemperature, queryBlocks }), 'logprobs');
      const out = await runGraph({ model: g.toOnnx({ name: 'blocks' }), feeds, shapes: inputShapes(qwen2, bucket) });
      return Array.from(out.logprobs!.data as Float64Array);
    };
    const dense = await logprobs(1);
    for (const blocks of [2, 3, 6]) {
      const blocked = await logprobs(blocks);
      blocked.forEach((value, t) => expect(Math.abs(value - dense[t]!)).toBeLessThan(1e-12));
    }
  });

  it('should match finite differences with the causal attention split into query blocks', async () => {
    // Length 6 in 3 blocks of 2: the training graphs use blocks from 128 tokens.
    const result = await wholeModelCheck({ config: qwen2, objective: 'ppo', queryBlocks: 3 });
    console.log(`worst relative error ${result.worstRelativeError.toExponential(2)} over ${result.checked} elements`);
    expect(result.worstRelativeError).toBeLessThan(1e-5);
  });

  it('should match finite differences for a 2-layer untied Llama model with cross-entropy', async () => {
    const llama = createModelConfig({
      architecture: 'llama',
      vocabSize: 16,
      hiddenSize: 16,
      intermediateSize: 24,
      numLayers: 2,
      numHeads: 2,
      numKeyValueHeads: 1,
      tieWordEmbeddings: false,
    });
    const result = await wholeModelCheck({ config: llama, objective: 'cross-entropy' });
    expect(result.perInput['lm_head.weight']).toBeDefined();
    console.log(`worst relative error ${result.worstRelativeError.toExponential(2)} over ${result.checked} elements`);
    expect(result.worstRelativeError).toBeLessThan(1e-5);
  });
});

describe('parity with the PyTorch reference (tiny random Qwen2)', () => {
  const config = parseModelConfig({
    text: readFileSync(join(fixtureDirectory, 'config.json'), 'utf8'),
    source: 'config.json',
  });
  const { tensors } = decodeSafetensors({
    bytes: readFileSync(join(fixtureDirectory, 'model.safetensors')),
    source: 'model.safetensors',
  });
  const weights = weightsFromTensors({ config, tensors, source: 'model.safetensors' });
  const expected = JSON.parse(readFileSync(join(fixtureDirectory, 'expected.json'), 'utf8')) as {
    cases: Array<{ tokenIds: number[]; logits: number[][]; logprobs: number[] }>;
  };
  const bucket = { batch: 4, length: 16 };
  const sequences = expected.cases.map((c) => c.tokenIds);

  async function logits(floatType: 'float32' | 'float64'): Promise<Float32Array | Float64Array> {
    const feeds = new Map<string, Float64Array | Float32Array | BigInt64Array>();
    for (const spec of weights.specs) {
      const view = weights.get(spec.name);
      feeds.set(spec.name, floatType === 'float64' ? Float64Array.from(view) : view);
    }
    const sequenceData = buildSequenceFeeds({ config, bucket, sequences, floatType });
    feeds.set('input_ids', sequenceData.inputIds);
    feeds.set('targets', sequenceData.targets);
    feeds.set('rope_cos', sequenceData.cos);
    feeds.set('rope_sin', sequenceData.sin);
    feeds.set('attention_bias', sequenceData.bias);
    const out = await runGraph({
      model: buildLogitsGraph({ config, bucket, floatType }).model,
      feeds,
      shapes: inputShapes(config, bucket),
    });
    return out.logits!.data as Float32Array | Float64Array;
  }

  function worstLogitError(actual: Float32Array | Float64Array): number {
    let worst = 0;
    expected.cases.forEach((c, row) => {
      c.logits.forEach((rowLogits, t) => {
        rowLogits.forEach((value, v) => {
          const got = actual[(row * bucket.length + t) * config.vocabSize + v]!;
          worst = Math.max(worst, Math.abs(got - value));
        });
      });
    });
    return worst;
  }

  it('should reproduce the reference logits in fp64 to 1e-10', async () => {
    const error = worstLogitError(await logits('float64'));
    console.log(`fp64 worst logit error ${error.toExponential(2)}`);
    expect(error).toBeLessThan(1e-10);
  });

  it('should reproduce the reference logits in fp32 to 1e-4', async () => {
    const error = worstLogitError(await logits('float32'));
    console.log(`fp32 worst logit error ${error.toExponential(2)}`);
    expect(error).toBeLessThan(1e-4);
  });

  it('should reproduce the reference next-token logprobs with the fp32 score graph', async () => {
    const feeds = new Map<string, Float32Array | BigInt64Array>();
    for (const spec of weights.specs) feeds.set(spec.name, weights.get(spec.name));
    const sequenceData = buildSequenceFeeds({ config, bucket, sequences, floatType: 'float32' });
    feeds.set('input_ids', sequenceData.inputIds);
    feeds.set('targets', sequenceData.targets);
    feeds.set('rope_cos', sequenceData.cos as Float32Array);
    feeds.set('rope_sin', sequenceData.sin as Float32Array);
    feeds.set('attention_bias', sequenceData.bias as Float32Array);
    feeds.set('inverse_temperature', Float32Array.of(1));
    const out = await runGraph({
      model: buildScoreGraph({ config, bucket }).model,
      feeds,
      shapes: inputShapes(config, bucket),
    });
    const logprobs = out.logprobs!.data as Float32Array;
    let worst = 0;
    expected.cases.forEach((c, row) => {
      for (let t = 1; t < c.tokenIds.length; t++) {
        worst = Math.max(worst, Math.abs(logprobs[row * bucket.length + t - 1]! - c.logprobs[t]!));
      }
    });
    console.log(`fp32 worst logprob error ${worst.toExponential(2)}`);
    expect(worst).toBeLessThan(1e-4);
  });
});

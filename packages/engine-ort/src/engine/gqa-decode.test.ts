import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readModelDirectory } from '../io/model-directory';
import { buildDecodeGraph } from '../model/graph-families';
import { createModelConfig, type ModelConfig } from '../model/model-config';
import type { FlatTensors } from '../model/model-weights';
import { initializeWeights } from '../model/model-weights';
import { resolveEngineSettings } from './engine-context';
import { gqaInPlaceUnavailable } from './generate-chunk';
import { keysSlotMajor } from './generation-feeds';
import { OrtEngine } from './ort-engine';
import { createOrtSession, floatTensor, ort } from './ort-session';
import { maskedBias } from './sequence-feeds';

// Decision engine-013: decode through GroupQueryAttention, whose cache write
// is in place, must generate what the engine's own decode does. ORT's CPU EP
// runs the same operator, so parity is checked here.

const fixture = await readModelDirectory({
  directory: join(import.meta.dirname, '..', '__fixtures__', 'tiny-qwen2'),
});

const randomConfig = createModelConfig({
  vocabSize: 300,
  hiddenSize: 32,
  intermediateSize: 64,
  numLayers: 2,
  numHeads: 4,
  numKeyValueHeads: 2,
  maxPositionEmbeddings: 512,
  initializerRange: 0.2,
});

const prompt = (vocab: number, seed: number, count: number): number[] =>
  Array.from({ length: count }, (_, i) => (seed * 7919 + i * 104729) % vocab);

/**
 * Two calls of a multi-turn batch: prefills, then extends of the first
 * call's sequences; stop tokens end rows at different steps, so the batch
 * compacts (8 -> 4 -> 2 -> 1 rows) and the cache is uploaded again.
 */
async function generateTwice({
  config,
  weights,
  settings,
  temperature,
}: {
  config: ModelConfig;
  weights: FlatTensors;
  settings: { decodeAttention: 'where' | 'gqa'; resident: boolean };
  temperature: number;
}) {
  const engine = new OrtEngine({
    config,
    weights,
    settings: { threads: 1, ...settings },
  });
  const vocab = config.vocabSize;
  const first = [40, 45, 38, 50, 41].map((n, i) => prompt(vocab, i + 1, n));
  const options = {
    maxTokens: 24,
    stopTokenIds: [7, 11, 13, 17, 19, 23],
    seed: 9,
    sampling: { temperature, topP: 1, topK: 0 },
  };
  const turn1 = await engine.generate({ ...options, prompts: first });
  const second = first.map((p, i) => [
    ...p,
    ...turn1[i]!.tokenIds,
    ...prompt(vocab, 10 + i, 6),
  ]);
  const turn2 = await engine.generate({
    ...options,
    prompts: second,
    seed: 10,
  });
  await engine.close();
  return [...turn1, ...turn2];
}

type Generation = Awaited<ReturnType<typeof generateTwice>>[number];

function expectSameGenerations(actual: Generation[], expected: Generation[]) {
  expect(actual.map((g) => g.tokenIds)).toEqual(
    expected.map((g) => g.tokenIds),
  );
  actual.forEach((generation, i) => {
    expect(generation.finishReason).toBe(expected[i]!.finishReason);
    generation.logprobs.forEach((logprob, t) =>
      expect(Math.abs(logprob - expected[i]!.logprobs[t]!)).toBeLessThanOrEqual(
        1e-5,
      ),
    );
    generation.modelLogprobs.forEach((logprob, t) =>
      expect(
        Math.abs(logprob - expected[i]!.modelLogprobs[t]!),
      ).toBeLessThanOrEqual(1e-5),
    );
  });
}

describe('decode through GroupQueryAttention (engine-013)', () => {
  it('should default to where on every device (gqa failed parity on WebGPU, ORT 1.30) and keep gqa on request', () => {
    expect(resolveEngineSettings({}).decodeAttention).toBe('where');
    for (const executionProvider of ['cpu', 'webgpu', 'cuda'] as const)
      expect(resolveEngineSettings({ executionProvider }).decodeAttention).toBe(
        'where',
      );
    expect(
      resolveEngineSettings({
        executionProvider: 'webgpu',
        decodeAttention: 'gqa',
      }).decodeAttention,
    ).toBe('gqa');
  });

  it('should generate the greedy tokens and log-probabilities of the current decode for the tiny Qwen2 fixture', async () => {
    const run = (decodeAttention: 'where' | 'gqa', resident: boolean) =>
      generateTwice({
        config: fixture.config,
        weights: fixture.weights,
        settings: { decodeAttention, resident },
        temperature: 0,
      });
    const host = await run('where', false);
    const resident = await run('where', true);
    const gqa = await run('gqa', false);
    expect(gqaInPlaceUnavailable()).toBeUndefined();
    expect(host.flatMap((g) => g.tokenIds).length).toBeGreaterThan(100);
    expectSameGenerations(gqa, host);
    expectSameGenerations(gqa, resident);
  });

  it('should sample what the current decode samples, through compactions and extends', async () => {
    const weights = initializeWeights({ config: randomConfig, seed: 3 });
    const run = (decodeAttention: 'where' | 'gqa') =>
      generateTwice({
        config: randomConfig,
        weights,
        settings: { decodeAttention, resident: false },
        temperature: 1,
      });
    const [where, gqa] = [await run('where'), await run('gqa')];
    // Rows finished at different steps (compaction ran) and some ran to the limit.
    expect(new Set(where.map((g) => g.tokenIds.length)).size).toBeGreaterThan(
      2,
    );
    expectSameGenerations(gqa, where);
    expect(gqaInPlaceUnavailable()).toBeUndefined();
  });

  it('should write only the step slot of the bound cache, in place, and match the where graph', async () => {
    const config = fixture.config;
    const { numKeyValueHeads: kvh, headDim: d, numLayers } = config;
    const rows = 2;
    const cacheLength = 64;
    const slot = 9;
    const pads = [0, 3];
    const weights = Object.fromEntries(
      fixture.weights
        .entries()
        .map(([name, tensor]) => [
          name,
          floatTensor(tensor.data, tensor.shape),
        ]),
    );
    const size = rows * kvh * d * cacheLength;
    const keys = Array.from({ length: numLayers }, (_, l) =>
      Float32Array.from({ length: size }, (_, i) => Math.sin(i * 0.37 + l)),
    );
    const values = Array.from({ length: numLayers }, (_, l) =>
      Float32Array.from({ length: size }, (_, i) => Math.cos(i * 0.11 + l)),
    );
    const half = d / 2;
    const common = {
      input_ids: new ort.Tensor('int64', BigInt64Array.of(5n, 17n), [rows]),
      rope_cos: floatTensor(
        Float32Array.from({ length: rows * half }, (_, i) => Math.cos(i)),
        [rows, 1, 1, half],
      ),
      rope_sin: floatTensor(
        Float32Array.from({ length: rows * half }, (_, i) => Math.sin(i)),
        [rows, 1, 1, half],
      ),
    };
    const bias = (through: number) => {
      const data = new Float32Array(rows * cacheLength).fill(maskedBias);
      pads.forEach((pad, r) =>
        data.fill(0, r * cacheLength + pad, r * cacheLength + through),
      );
      return floatTensor(data, [rows, 1, 1, cacheLength]);
    };
    const session = async (attention: 'where' | 'gqa') =>
      createOrtSession({
        model: buildDecodeGraph({
          config,
          batch: rows,
          cacheLength,
          residentCache: true,
          attention,
        }).model,
        settings: {
          executionProvider: 'cpu',
          threads: 1,
          optimizationLevel: 'all',
        },
      });
    const onehot = new Float32Array(cacheLength);
    onehot[slot] = 1;
    const whereFeeds: Record<string, ort.Tensor> = {
      ...weights,
      ...common,
      past_bias: bias(slot),
      slot_onehot: floatTensor(onehot, [cacheLength]),
    };
    const gqaCache: Record<string, ort.Tensor> = {};
    const bound: Float32Array[] = [];
    for (let l = 0; l < numLayers; l++) {
      whereFeeds[`cache_keys.${l}`] = floatTensor(keys[l]!, [
        rows,
        kvh,
        d,
        cacheLength,
      ]);
      whereFeeds[`cache_values.${l}`] = floatTensor(values[l]!, [
        rows,
        kvh,
        cacheLength,
        d,
      ]);
      const k = keysSlotMajor(keys[l]!, rows * kvh, d, cacheLength);
      const v = values[l]!.slice();
      bound.push(k, v);
      gqaCache[`cache_keys.${l}`] = floatTensor(k, [rows, kvh, cacheLength, d]);
      gqaCache[`cache_values.${l}`] = floatTensor(v, [
        rows,
        kvh,
        cacheLength,
        d,
      ]);
    }
    const before = bound.map((data) => data.slice());
    const where = await (await session('where')).run(whereFeeds);
    const fetches: Record<string, ort.Tensor | null> = {
      logits: null,
      new_kv: null,
    };
    for (let l = 0; l < numLayers; l++) {
      fetches[`present_keys.${l}`] = gqaCache[`cache_keys.${l}`]!;
      fetches[`present_values.${l}`] = gqaCache[`cache_values.${l}`]!;
    }
    const gqa = await (
      await session('gqa')
    ).run(
      {
        ...weights,
        ...common,
        ...gqaCache,
        attention_bias: bias(slot + 1),
        seqlens_k: new ort.Tensor('int32', Int32Array.of(slot, slot), [rows]),
        total_sequence_length: new ort.Tensor(
          'int32',
          Int32Array.of(slot + 1),
          [1],
        ),
      },
      fetches,
    );
    const maxDiff = (a: Float32Array, b: Float32Array) =>
      a.reduce((m, x, i) => Math.max(m, Math.abs(x - b[i]!)), 0);
    expect(
      maxDiff(
        gqa.logits!.data as Float32Array,
        where.logits!.data as Float32Array,
      ),
    ).toBeLessThanOrEqual(1e-5);
    expect(
      maxDiff(
        gqa.new_kv!.data as Float32Array,
        where.new_kv!.data as Float32Array,
      ),
    ).toBeLessThanOrEqual(1e-5);
    // The bound buffers changed at the slot only, to the where graph's cache.
    for (let l = 0; l < numLayers; l++) {
      const presentKeys = keysSlotMajor(
        where[`present_keys.${l}`]!.data as Float32Array,
        rows * kvh,
        d,
        cacheLength,
      );
      const presentValues = where[`present_values.${l}`]!.data as Float32Array;
      [
        [bound[2 * l]!, before[2 * l]!, presentKeys],
        [bound[2 * l + 1]!, before[2 * l + 1]!, presentValues],
      ].forEach(([after, original, expected]) => {
        let changed = 0;
        after!.forEach((x, i) => {
          const s = Math.floor(i / d) % cacheLength;
          if (x !== original![i]) changed++;
          if (s !== slot) expect(x).toBe(original![i]);
        });
        expect(changed).toBe(rows * kvh * d);
        expect(maxDiff(after!, expected!)).toBeLessThanOrEqual(1e-5);
      });
    }
  });
});

describe('keysSlotMajor', () => {
  it('should transpose [heads, d, P] to [heads, P, d]', () => {
    const keys = Float32Array.from({ length: 2 * 3 * 4 }, (_, i) => i);
    const out = keysSlotMajor(keys, 2, 3, 4);
    for (let h = 0; h < 2; h++)
      for (let i = 0; i < 3; i++)
        for (let s = 0; s < 4; s++)
          expect(out[h * 12 + s * 3 + i]).toBe(keys[h * 12 + i * 4 + s]);
  });
});

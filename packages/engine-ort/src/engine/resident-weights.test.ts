import { describe, expect, it } from 'vitest';
import { createModelConfig } from '../model/model-config';
import { initializeWeights } from '../model/model-weights';
import { OrtEngine, type EngineTrainSettings } from './ort-engine';

const config = createModelConfig({
  vocabSize: 96,
  hiddenSize: 32,
  intermediateSize: 64,
  numLayers: 2,
  numHeads: 4,
  numKeyValueHeads: 2,
  maxPositionEmbeddings: 256,
  initializerRange: 0.2,
});

const settings: EngineTrainSettings = {
  learningRate: 1e-2,
  temperature: 1,
  clipLow: 0.2,
  clipHigh: 0.28,
  dualClipC: 3,
  klCoef: 0.05,
  maxGradNorm: 1,
  weightDecay: 0.01,
  betas: [0.9, 0.999],
  eps: 1e-8,
};

/** PPO batches whose rows fall into several micro-batches (different length buckets). */
function batch(step: number) {
  return [70, 33, 20, 90, 12].map((length, row) => {
    const tokenIds = Array.from(
      { length },
      (_, t) => (row * 31 + t * 17 + step * 7) % config.vocabSize,
    );
    const signal = (t: number) => Math.sin(row + t + step);
    return {
      tokenIds,
      tokenWeights: tokenIds.map((_, t) => (t < 3 ? 0 : 1 / 200)),
      advantages: tokenIds.map((_, t) => signal(t)),
      oldLogprobs: tokenIds.map((_, t) => -4 - 0.1 * signal(t)),
      refLogprobs: tokenIds.map((_, t) => -4.2 + 0.05 * signal(t)),
    };
  });
}

async function trainThree(resident: boolean) {
  const engine = new OrtEngine({
    config,
    weights: initializeWeights({ config, seed: 5 }),
    // 256 tokens per micro-batch: each step runs three grad micro-batches.
    settings: { threads: 1, resident, microBatchTokens: 256 },
  });
  const results = [];
  for (let step = 0; step < 3; step++)
    results.push(
      await engine.train({
        objective: 'ppo',
        sequences: batch(step),
        settings,
      }),
    );
  const scores = await engine.score([batch(9)[0]!.tokenIds]);
  await engine.syncToHost();
  const snapshot = {
    results,
    scores,
    weights: engine.currentWeights.buffer.slice(),
    m: engine.optimizerState.m.buffer.slice(),
    v: engine.optimizerState.v.buffer.slice(),
    step: engine.optimizerState.step,
  };
  await engine.close();
  return snapshot;
}

function maxDifference(a: Float32Array, b: Float32Array): number {
  let worst = 0;
  for (let i = 0; i < a.length; i++)
    worst = Math.max(worst, Math.abs(a[i]! - b[i]!));
  return worst;
}

describe('OrtEngine with resident weights, moments and gradients', () => {
  it('should train like the host-fed engine: the same weights, moments and losses after 3 steps (1e-6)', async () => {
    const [hostFed, resident] = [
      await trainThree(false),
      await trainThree(true),
    ];
    expect(resident.step).toBe(3);
    // The weights moved, so the comparison is not between two untouched copies.
    expect(
      maxDifference(
        resident.weights,
        initializeWeights({ config, seed: 5 }).buffer,
      ),
    ).toBeGreaterThan(1e-3);
    expect(
      maxDifference(resident.weights, hostFed.weights),
    ).toBeLessThanOrEqual(1e-6);
    expect(maxDifference(resident.m, hostFed.m)).toBeLessThanOrEqual(1e-6);
    expect(maxDifference(resident.v, hostFed.v)).toBeLessThanOrEqual(1e-6);
    resident.results.forEach((result, i) => {
      expect(result.loss).toBeCloseTo(hostFed.results[i]!.loss, 6);
      expect(result.gradNorm).toBeCloseTo(hostFed.results[i]!.gradNorm, 6);
    });
    // Scoring reads the resident weights.
    expect(
      resident.scores[0]!.map((x, t) =>
        Math.abs(x - hostFed.scores[0]![t]!),
      ).every((d) => d <= 1e-6),
    ).toBe(true);
  });

  it('should keep the host copies current after syncToHost, so weights set from them round-trip', async () => {
    const engine = new OrtEngine({
      config,
      weights: initializeWeights({ config, seed: 5 }),
      settings: { threads: 1, resident: true },
    });
    await engine.train({ objective: 'ppo', sequences: batch(0), settings });
    expect(() =>
      engine.setWeights(initializeWeights({ config, seed: 6 })),
    ).toThrow(expect.objectContaining({ code: 'INTERNAL' }));
    await engine.syncToHost();
    const trained = engine.currentWeights.buffer.slice();
    const before = await engine.score([batch(3)[1]!.tokenIds]);
    engine.setWeights(initializeWeights({ config, seed: 6 }));
    expect(await engine.score([batch(3)[1]!.tokenIds])).not.toEqual(before);
    const restored = initializeWeights({ config, seed: 6 });
    restored.buffer.set(trained);
    engine.setWeights(restored);
    expect(await engine.score([batch(3)[1]!.tokenIds])).toEqual(before);
    await engine.close();
  });
});

describe('OrtEngine with a resident decode cache', () => {
  const generationConfig = createModelConfig({
    vocabSize: 300,
    hiddenSize: 32,
    intermediateSize: 64,
    numLayers: 2,
    numHeads: 4,
    numKeyValueHeads: 2,
    maxPositionEmbeddings: 512,
    initializerRange: 0.2,
  });
  const prompt = (seed: number, count: number): number[] =>
    Array.from(
      { length: count },
      (_, i) => (seed * 7919 + i * 104729) % generationConfig.vocabSize,
    );

  /** Two calls of a multi-turn batch: prefills, then extends of the first call's sequences. */
  async function generateTwice(resident: boolean) {
    const engine = new OrtEngine({
      config: generationConfig,
      weights: initializeWeights({ config: generationConfig, seed: 3 }),
      settings: { threads: 1, resident },
    });
    const first = [
      prompt(1, 40),
      prompt(2, 45),
      prompt(3, 38),
      prompt(4, 50),
      prompt(5, 41),
    ];
    // Stop tokens end rows at different steps, so the batch compacts (8 -> 4 -> 2 -> 1 rows).
    const options = {
      maxTokens: 24,
      stopTokenIds: [7, 11, 13, 17, 19, 23],
      seed: 9,
      sampling: { temperature: 1, topP: 1, topK: 0 },
    };
    const turn1 = await engine.generate({ ...options, prompts: first });
    const second = first.map((p, i) => [
      ...p,
      ...turn1[i]!.tokenIds,
      ...prompt(10 + i, 6),
    ]);
    const turn2 = await engine.generate({
      ...options,
      prompts: second,
      seed: 10,
    });
    await engine.close();
    return [...turn1, ...turn2];
  }

  it('should generate what the host-fed cache does: the same tokens, log-probabilities within 1e-5, through compactions and extends', async () => {
    const [hostFed, resident] = [
      await generateTwice(false),
      await generateTwice(true),
    ];
    const lengths = hostFed.map((generation) => generation.tokenIds.length);
    // Rows finished at different steps (compaction ran) and some ran to the limit.
    expect(new Set(lengths).size).toBeGreaterThan(2);
    expect(resident.map((generation) => generation.tokenIds)).toEqual(
      hostFed.map((generation) => generation.tokenIds),
    );
    resident.forEach((generation, i) => {
      expect(generation.finishReason).toBe(hostFed[i]!.finishReason);
      generation.logprobs.forEach((logprob, t) =>
        expect(
          Math.abs(logprob - hostFed[i]!.logprobs[t]!),
        ).toBeLessThanOrEqual(1e-5),
      );
    });
  });
});

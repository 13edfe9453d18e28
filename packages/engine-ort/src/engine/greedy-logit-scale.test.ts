import { describe, expect, it } from 'vitest';
import { SeededRandom } from '../io/seeded-random';
import { createModelConfig } from '../model/model-config';
import { initializeWeights } from '../model/model-weights';
import { OrtEngine } from './ort-engine';
import { sampleToken } from './sampler';

/*
 * A learned logit scale (the final norm's gain moved as a whole, decision
 * 0038) multiplies every logit by one positive number: an inverse
 * temperature. It changes what sampling draws, and must not change what
 * greedy decoding picks, which is why greedy success is the measure that a
 * temperature alone cannot move (issue 44).
 */

const greedy = { temperature: 0, topP: 1, topK: 0 };
const scales = [1e-3, 0.25, 0.75, 1.337, 2, 3, 100];

describe('greedy decoding under a positive logit scale', () => {
  it('should pick the same token for logits scaled by any c > 0, on seeded random rows', () => {
    const random = new SeededRandom(44);
    const vocab = 64;
    for (let row = 0; row < 2000; row++) {
      // Logits spread like a small model's (roughly −8 to 8), and in one row
      // of four a tie at the top (greedy takes the lowest id).
      const logits = Float64Array.from(
        { length: vocab },
        () => (random.nextFloat() - 0.5) * 16,
      );
      if (row % 4 === 0) {
        const top = logits.indexOf(Math.max(...logits));
        const twin = (top + 1 + (row % (vocab - 1))) % vocab;
        logits[twin] = logits[top]!;
      }
      // One row in eight suppresses the unscaled argmax (a control token).
      const suppress =
        row % 8 === 1
          ? new Set([logits.indexOf(Math.max(...logits))])
          : undefined;
      const base = sampleToken({
        logits,
        settings: greedy,
        random,
        ...(suppress ? { suppress } : {}),
      });
      if (suppress) expect(suppress.has(base.tokenId)).toBe(false);
      for (const c of scales) {
        const scaled = sampleToken({
          logits: logits.map((x) => c * x),
          settings: greedy,
          random,
          ...(suppress ? { suppress } : {}),
        });
        expect(scaled.tokenId).toBe(base.tokenId);
        // The scale is not inert: it sharpens (c > 1) or flattens (c < 1) the
        // model's distribution, raising or lowering the top token's probability.
        if (!suppress && c > 1)
          expect(scaled.modelLogprob).toBeGreaterThan(base.modelLogprob);
        if (!suppress && c < 1)
          expect(scaled.modelLogprob).toBeLessThan(base.modelLogprob);
      }
    }
  });

  it("should generate the same greedy tokens from a real model whose final norm's gain is scaled, and sample other ones", async () => {
    const config = createModelConfig({
      vocabSize: 304,
      hiddenSize: 32,
      intermediateSize: 64,
      numLayers: 2,
      numHeads: 4,
      numKeyValueHeads: 2,
      maxPositionEmbeddings: 256,
      initializerRange: 0.2,
    });
    const weights = initializeWeights({ config, seed: 11 });
    const request = {
      prompts: [[5, 17, 3, 88, 42], [91, 2, 33, 4, 70, 11, 8], [12]],
      maxTokens: 16,
      stopTokenIds: [],
      seed: 3,
    };
    const run = async (c: number, temperature: number) => {
      const scaled = weights.clone();
      // The head is tied and has no bias: the final norm's gain scales every logit.
      const gain = scaled.get('model.norm.weight');
      gain.forEach((g, i) => (gain[i] = c * g));
      const engine = new OrtEngine({
        config,
        weights: scaled,
        settings: { threads: 1 },
      });
      try {
        const generations = await engine.generate({
          ...request,
          sampling: { temperature, topP: 1, topK: 0 },
        });
        return generations.map((generation) => generation.tokenIds);
      } finally {
        await engine.close();
      }
    };
    const reference = await run(1, 0);
    expect(reference.flat()).toHaveLength(48);
    for (const c of [0.5, 1.337, 4]) expect(await run(c, 0)).toEqual(reference);
    // Sampled at temperature 1, the same scale does change the draws.
    const sampled = await run(1, 1);
    expect(await run(1, 1)).toEqual(sampled);
    expect(await run(0.05, 1)).not.toEqual(sampled);
  });
});

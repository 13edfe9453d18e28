import { describe, expect, it } from 'vitest';
import { createModelConfig } from '../model/model-config';
import { initializeWeights } from '../model/model-weights';
import { planExtendGroups } from './generate-chunk';
import { OrtEngine, type EngineGenerateOptions } from './ort-engine';
import { PrefixCache, type PrefixCacheEntry } from './prefix-cache';

function entry(tokens: number[], floatsPerToken = 4): PrefixCacheEntry {
  return {
    tokens: Int32Array.from(tokens),
    keys: [new Float32Array(tokens.length * floatsPerToken)],
    values: [new Float32Array(tokens.length * floatsPerToken)],
  };
}

const range = (start: number, count: number): number[] =>
  Array.from({ length: count }, (_, i) => start + i);

describe('PrefixCache', () => {
  it('should find the entry sharing the longest prefix, leaving the last prompt token to run', () => {
    const cache = new PrefixCache(1 << 20);
    const a = entry(range(0, 40));
    const b = entry([...range(0, 35), ...range(100, 20)]);
    cache.add(a);
    cache.add(b);
    expect(cache.match([...range(0, 35), ...range(100, 30)], 32)).toEqual({
      entry: b,
      length: 55,
    });
    expect(cache.match([...range(0, 40), 7], 32)).toEqual({
      entry: a,
      length: 40,
    });
    // The prompt itself is cached: all but its last token are reused.
    expect(cache.match(range(0, 40), 32)).toEqual({ entry: a, length: 39 });
    // Too short a shared prefix is not worth a hit.
    expect(
      cache.match([...range(0, 20), 999, ...range(21, 30)], 32),
    ).toBeUndefined();
    expect(cache.match(range(1, 60), 32)).toBeUndefined();
  });

  it('should drop entries the new one extends, and the least recently used past its budget', () => {
    const bytesPerEntry = (tokens: number) => tokens * (4 + 4 + 1) * 4; // 4 key and 4 value floats and an id per token
    const cache = new PrefixCache(bytesPerEntry(100) + bytesPerEntry(50));
    cache.add(entry(range(0, 50)));
    cache.add(entry(range(0, 100)));
    expect(cache.size).toBe(1);
    cache.add(entry(range(500, 50)));
    expect(cache.size).toBe(2);
    // Using the first entry makes the second the oldest, evicted by the next add.
    expect(cache.match([...range(0, 100), 1], 32)?.length).toBe(100);
    cache.add(entry(range(900, 40)));
    expect(cache.match([...range(500, 50), 1], 32)).toBeUndefined();
    expect(cache.match([...range(0, 100), 1], 32)?.length).toBe(100);
    // An entry over the whole budget is not kept.
    cache.add(entry(range(2000, 400)));
    expect(cache.match([...range(2000, 400), 1], 32)).toBeUndefined();
  });
});

describe('OrtEngine prefix cache', () => {
  const config = createModelConfig({
    vocabSize: 300,
    hiddenSize: 32,
    intermediateSize: 64,
    numLayers: 2,
    numHeads: 4,
    numKeyValueHeads: 2,
    maxPositionEmbeddings: 512,
    initializerRange: 0.2,
  });
  const weights = initializeWeights({ config, seed: 3 });
  const tokens = (seed: number, count: number): number[] =>
    range(0, count).map((i) => (seed * 7919 + i * 104729) % 300);

  /** Greedy and sampled, the cached engine generates what a full prefill does (log-probabilities within 1e-4). */
  const expectSameAsFullPrefill = async ({
    cached,
    plain,
    prompts,
    options,
  }: {
    cached: OrtEngine;
    plain: OrtEngine;
    prompts: number[][];
    options: Omit<EngineGenerateOptions, 'prompts' | 'sampling'>;
  }): Promise<void> => {
    for (const sampling of [
      { temperature: 0, topP: 1, topK: 0 },
      { temperature: 1, topP: 1, topK: 0 },
    ]) {
      const fromCache = await cached.generate({
        prompts,
        ...options,
        sampling,
      });
      const full = await plain.generate({ prompts, ...options, sampling });
      expect(fromCache.map((g) => g.tokenIds)).toEqual(
        full.map((g) => g.tokenIds),
      );
      fromCache.forEach((generation, i) =>
        generation.modelLogprobs.forEach((value, t) =>
          expect(Math.abs(value - full[i]!.modelLogprobs[t]!)).toBeLessThan(
            1e-4,
          ),
        ),
      );
    }
  };

  it('should generate for a prompt that extends an earlier call what a full prefill generates', async () => {
    const cached = new OrtEngine({ config, weights, settings: { threads: 1 } });
    const plain = new OrtEngine({
      config,
      weights,
      settings: { threads: 1, prefixCacheBytes: 0 },
    });
    const round1 = [tokens(1, 40), tokens(2, 57), tokens(3, 90)];
    const options = { maxTokens: 6, stopTokenIds: [], seed: 5 } as const;
    const greedy: Pick<EngineGenerateOptions, 'sampling'> = {
      sampling: { temperature: 0, topP: 1, topK: 0 },
    };
    const first = await cached.generate({
      prompts: round1,
      ...options,
      ...greedy,
    });
    expect(first).toEqual(
      await plain.generate({ prompts: round1, ...options, ...greedy }),
    );
    expect(cached.prefixCacheStats.hits).toBe(0);

    // The next call of each episode: the prompt, the reply and new tokens (an observation),
    // plus a prompt the cache has never seen.
    const round2 = [
      ...round1.map((prompt, i) => [
        ...prompt,
        ...first[i]!.tokenIds,
        ...tokens(10 + i, 25 + 10 * i),
      ]),
      tokens(4, 70),
    ];
    const expectSame = async (sampling: EngineGenerateOptions['sampling']) => {
      const fromCache = await cached.generate({
        prompts: round2,
        ...options,
        sampling,
      });
      const full = await plain.generate({
        prompts: round2,
        ...options,
        sampling,
      });
      expect(fromCache.map((g) => g.tokenIds)).toEqual(
        full.map((g) => g.tokenIds),
      );
      fromCache.forEach((generation, i) =>
        generation.modelLogprobs.forEach((value, t) =>
          expect(Math.abs(value - full[i]!.modelLogprobs[t]!)).toBeLessThan(
            1e-4,
          ),
        ),
      );
    };
    await expectSame(greedy.sampling);
    // Three prompts reused their earlier sequence: the prompt and the reply but its last token.
    const reused = round1.reduce(
      (sum, prompt, i) => sum + prompt.length + first[i]!.tokenIds.length - 1,
      0,
    );
    expect(cached.prefixCacheStats).toEqual({ hits: 3, reusedTokens: reused });
    // Asked again, all four prompts are cached: everything but their last token is reused.
    await expectSame({ temperature: 1, topP: 1, topK: 0 });
    const again = round2.reduce((sum, prompt) => sum + prompt.length - 1, 0);
    expect(cached.prefixCacheStats).toEqual({
      hits: 7,
      reusedTokens: reused + again,
    });
    await cached.close();
    await plain.close();
  });

  it('should match a full prefill when rows extend their prefixes by very different counts', async () => {
    const cached = new OrtEngine({ config, weights, settings: { threads: 1 } });
    const plain = new OrtEngine({
      config,
      weights,
      settings: { threads: 1, prefixCacheBytes: 0 },
    });
    const options = { maxTokens: 5, stopTokenIds: [], seed: 9 } as const;
    const round1 = [tokens(21, 34), tokens(22, 40), tokens(23, 200)];
    const first = await cached.generate({
      prompts: round1,
      ...options,
      sampling: { temperature: 0, topP: 1, topK: 0 },
    });
    // One row adds 90 tokens, so all rows run 128 in the extend step: the two
    // short prompts (about 40 tokens) are left-padded with filler, the long one
    // recomputes cached tokens.
    const round2 = [
      [...round1[0]!, ...first[0]!.tokenIds, 5],
      [...round1[1]!, ...first[1]!.tokenIds, ...tokens(31, 90)],
      [...round1[2]!, ...first[2]!.tokenIds, ...tokens(32, 3)],
    ];
    await expectSameAsFullPrefill({ cached, plain, prompts: round2, options });
    expect(cached.prefixCacheStats.hits).toBe(6);
    await cached.close();
    await plain.close();
  });

  it('should prefill a prompt shared by several rows once and give every row its own draws', async () => {
    const engine = new OrtEngine({
      config,
      weights,
      settings: { threads: 1, prefixCacheBytes: 0 },
    });
    const shared = tokens(41, 70);
    const other = tokens(42, 33);
    const prompts = [shared, shared, other, shared];
    const options = { maxTokens: 8, stopTokenIds: [], seed: 3 } as const;
    const greedy = await engine.generate({
      prompts,
      ...options,
      sampling: { temperature: 0, topP: 1, topK: 0 },
    });
    // Greedy rows of one prompt agree with each other and with the prompt generated alone.
    const [alone] = await engine.generate({
      prompts: [shared],
      ...options,
      sampling: { temperature: 0, topP: 1, topK: 0 },
    });
    for (const row of [0, 1, 3])
      expect(greedy[row]!.tokenIds).toEqual(alone!.tokenIds);
    // Sampled rows draw from their own streams, and each row's log-probabilities are
    // those a full forward pass over its sequence gives.
    const sampled = await engine.generate({
      prompts,
      ...options,
      sampling: { temperature: 1, topP: 1, topK: 0 },
    });
    expect(
      new Set(
        sampled.filter((_, row) => row !== 2).map((g) => g.tokenIds.join(',')),
      ).size,
    ).toBeGreaterThan(1);
    const scored = await engine.score(
      sampled.map((g, row) => [...prompts[row]!, ...g.tokenIds]),
    );
    sampled.forEach((generation, row) =>
      generation.modelLogprobs.forEach((value, t) =>
        expect(
          Math.abs(value - scored[row]![prompts[row]!.length + t]!),
        ).toBeLessThan(1e-4),
      ),
    );
    await engine.close();
  });

  it('should match a full prefill when many rows add few tokens and a few add many (grouped extend steps)', async () => {
    const cached = new OrtEngine({ config, weights, settings: { threads: 1 } });
    const plain = new OrtEngine({
      config,
      weights,
      settings: { threads: 1, prefixCacheBytes: 0 },
    });
    const options = { maxTokens: 4, stopTokenIds: [], seed: 11 } as const;
    const round1 = range(0, 12).map((i) => tokens(50 + i, 40 + 13 * i));
    const first = await cached.generate({
      prompts: round1,
      ...options,
      sampling: { temperature: 0, topP: 1, topK: 0 },
    });
    const added = [3, 150, 7, 12, 5, 140, 9, 4, 20, 6, 2, 11];
    const round2 = round1.map((prompt, i) => [
      ...prompt,
      ...first[i]!.tokenIds,
      ...tokens(70 + i, added[i]!),
    ]);
    // The rows split into several extend steps (the cached part: the prompt and the reply but its last token).
    const plan = planExtendGroups(
      round2.map((prompt, i) => ({
        length: prompt.length,
        newTokens: added[i]! + 1,
      })),
    );
    expect(plan.length).toBeGreaterThan(1);
    await expectSameAsFullPrefill({ cached, plain, prompts: round2, options });
    expect(cached.prefixCacheStats.hits).toBe(24);
    await cached.close();
    await plain.close();
  });

  it('should generate after clearPrefixCache exactly what a fresh engine generates', async () => {
    // A run resumed from a checkpoint starts with an empty cache; clearing it
    // at the same points in the uninterrupted run makes the two replay alike.
    const engine = new OrtEngine({ config, weights, settings: { threads: 1 } });
    const options = {
      maxTokens: 5,
      stopTokenIds: [],
      seed: 9,
      sampling: { temperature: 1, topP: 1, topK: 0 },
    };
    const shared = tokens(11, 80);
    const [earlier] = await engine.generate({
      prompts: [[...shared, ...tokens(12, 9)]],
      ...options,
    });
    expect(earlier!.tokenIds).toHaveLength(5);
    engine.clearPrefixCache();
    const later = [
      [...shared, ...tokens(13, 17)],
      [...shared, ...tokens(14, 30)],
    ];
    const afterClear = await engine.generate({ prompts: later, ...options });
    expect(engine.prefixCacheStats.hits).toBe(0);
    const fresh = new OrtEngine({ config, weights, settings: { threads: 1 } });
    expect(afterClear).toEqual(
      await fresh.generate({ prompts: later, ...options }),
    );
    await engine.close();
    await fresh.close();
  });

  it('should not reuse keys and values computed with other weights', async () => {
    const engine = new OrtEngine({ config, weights, settings: { threads: 1 } });
    const prompt = tokens(7, 60);
    const options = {
      maxTokens: 4,
      stopTokenIds: [],
      seed: 1,
      sampling: { temperature: 0, topP: 1, topK: 0 },
    };
    const [generation] = await engine.generate({
      prompts: [prompt],
      ...options,
    });
    const next = [...prompt, ...generation!.tokenIds, ...tokens(8, 20)];
    engine.setWeights(initializeWeights({ config, seed: 4 }));
    const afterUpdate = await engine.generate({ prompts: [next], ...options });
    expect(engine.prefixCacheStats.hits).toBe(0);
    const fresh = new OrtEngine({
      config,
      weights: initializeWeights({ config, seed: 4 }),
      settings: { threads: 1, prefixCacheBytes: 0 },
    });
    expect(afterUpdate).toEqual(
      await fresh.generate({ prompts: [next], ...options }),
    );
    await engine.close();
    await fresh.close();
  });
});

describe('planExtendGroups', () => {
  it('should keep rows with similar counts of new tokens in one extend step', () => {
    const rows = range(0, 16).map((i) => ({
      length: 500 + i,
      newTokens: 40 + i,
    }));
    expect(planExtendGroups(rows)).toEqual([range(0, 16)]);
  });

  it('should run a few rows with many new tokens apart from many rows with few', () => {
    const rows = range(0, 32).map((i) => ({
      length: 600,
      newTokens: i % 8 === 0 ? 180 : 30 + (i % 5),
    }));
    const groups = planExtendGroups(rows);
    expect(groups.length).toBeGreaterThan(1);
    // A partition of the rows, fewest new tokens first, each group's counts above the last's.
    expect(groups.flat().sort((a, b) => a - b)).toEqual(range(0, 32));
    const longest = groups.map((group) =>
      Math.max(...group.map((i) => rows[i]!.newTokens)),
    );
    const shortest = groups.map((group) =>
      Math.min(...group.map((i) => rows[i]!.newTokens)),
    );
    for (let g = 1; g < groups.length; g++)
      expect(shortest[g]!).toBeGreaterThanOrEqual(longest[g - 1]!);
    expect(groups.at(-1)!.every((i) => rows[i]!.newTokens === 180)).toBe(true);
  });

  it('should plan nothing for no rows', () => {
    expect(planExtendGroups([])).toEqual([]);
  });
});

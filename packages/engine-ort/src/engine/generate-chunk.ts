import { SeededRandom } from '../io/seeded-random';
import {
  buildDecodeGraph,
  buildExtendGraph,
  buildPrefillGraph,
  type BuiltGraph,
} from '../model/graph-families';
import type { MatmulPrecision } from '../graph/graph-builder';
import type { ModelConfig } from '../model/model-config';
import { decodeFeeds, extendFeeds, prefillFeeds } from './generation-feeds';
import { DecodeCache } from './kv-cache';
import type { ort } from './ort-session';
import {
  prefixMinTokens,
  type PrefixCache,
  type PrefixHit,
} from './prefix-cache';
import { compactRows, type DecodeRows } from './row-compaction';
import { sampleToken, type SamplingSettings } from './sampler';
import { nextPowerOfTwo } from './sequence-feeds';

/** One request of {@link OrtEngine.generate}. */
export type EngineGenerateOptions = {
  prompts: ReadonlyArray<readonly number[]>;
  maxTokens: number;
  sampling: SamplingSettings;
  stopTokenIds: readonly number[];
  /**
   * Token ids that are never drawn, greedy or not: control tokens a reply
   * cannot contain. They stay in the normaliser, so the reported
   * log-probabilities are the model's, as `score` computes them.
   */
  suppressTokenIds?: readonly number[];
  seed: number;
  /** Optional extra stop test on the generated ids so far (stop strings). */
  shouldStop?: (tokenIds: readonly number[]) => boolean;
};

/** One generated continuation. */
export type EngineGeneration = {
  tokenIds: number[];
  logprobs: number[];
  modelLogprobs: number[];
  finishReason: 'stop' | 'length';
};

/** What generation needs from the engine that owns the weights and sessions. */
export type GenerationRuntime = {
  config: ModelConfig;
  /** Keys and values of earlier generations, read by the caller and written here. */
  prefixCache: PrefixCache;
  /** Intra-op threads for prefill, extend and decode at batch ≥ 8. */
  threads: number;
  /** Intra-op threads for decode steps at batch < 8. */
  decodeThreads: number;
  /** Reduced-precision matrix products of the generation graphs; undefined for fp32. */
  matmulPrecision: MatmulPrecision | undefined;
  /** The model weights as feeds. */
  modelWeightFeeds(): Promise<Record<string, ort.Tensor>>;
  /** The session of a graph, built once per key. */
  session(
    key: string,
    build: () => BuiltGraph,
    threads: number,
    options: { memoryArena: boolean },
  ): Promise<ort.InferenceSession>;
};

/**
 * Generates for the prompts `indices` of `options`: a left-padded prefill
 * when `past` is undefined, otherwise each prompt's cached prefix is copied
 * into the KV cache (left-padded to a common end) and its remaining tokens
 * run in one extend step (graph `extend`). Either way every sequence
 * occupies contiguous cache slots, so one bias rule masks them. Then one
 * decode step per token; finished rows leave the batch, and the sequences
 * they finish go into the prefix cache.
 */
export async function generateChunk({
  runtime,
  options,
  indices,
  past,
}: {
  runtime: GenerationRuntime;
  options: EngineGenerateOptions;
  indices: readonly number[];
  past: readonly PrefixHit[] | undefined;
}): Promise<EngineGeneration[]> {
  const { config, prefixCache } = runtime;
  const { maxTokens } = options;
  const prompts = indices.map((i) => options.prompts[i]!);
  const vocab = config.vocabSize;
  const count = prompts.length;
  const batch = nextPowerOfTwo(count);
  const generations: EngineGeneration[] = prompts.map(() => ({
    tokenIds: [],
    logprobs: [],
    modelLogprobs: [],
    finishReason: 'length',
  }));
  const randoms = indices.map(
    (i) => new SeededRandom(mixSeed(options.seed, i)),
  );
  const modelWeights = await runtime.modelWeightFeeds();
  const stop = new Set(options.stopTokenIds);
  const suppress = new Set(options.suppressTokenIds ?? []);
  // Generation graphs run without a memory arena (see OrtEngine.session).
  const graphOptions = { memoryArena: false };

  // Slot of the first decode step.
  let base: number;
  let cache: DecodeCache;
  let rows: DecodeRows;
  let firstLogits: Float32Array;
  if (past === undefined) {
    const prefill = prefillFeeds({ config, prompts, batch });
    const { length } = prefill;
    const session = await runtime.session(
      `prefill:${batch}:${length}`,
      () => buildPrefillGraph({ config, bucket: { batch, length }, matmulPrecision: runtime.matmulPrecision }),
      runtime.threads,
      graphOptions,
    );
    const out = await session.run({ ...modelWeights, ...prefill.feeds });
    // Static KV cache: slots [0, length) hold the prompts, then one slot per generated token.
    base = length;
    cache = DecodeCache.fromParts({
      config,
      rows: batch,
      cacheLength: Math.ceil((length + maxTokens) / 64) * 64,
      parts: [{ ...layerOutputs(out, 'present', config), slots: length }],
    });
    rows = { prompts: rowPrompts(batch, count), pads: prefill.pads };
    firstLogits = out.logits!.data as Float32Array;
  } else {
    const extend = extendFeeds({ config, prompts, past, batch });
    const { length, start } = extend;
    const session = await runtime.session(
      `extend:${batch}:${length}:${start}`,
      () => buildExtendGraph({ config, batch, length, cacheLength: start, matmulPrecision: runtime.matmulPrecision }),
      runtime.threads,
      graphOptions,
    );
    const out = await session.run({ ...modelWeights, ...extend.feeds });
    // The decode cache: the prefixes, the extended tokens, then room to generate.
    base = start + length;
    cache = DecodeCache.fromParts({
      config,
      rows: batch,
      cacheLength: Math.ceil((start + length + maxTokens) / 64) * 64,
      parts: [
        { ...extend.prefixes, slots: start },
        { ...layerOutputs(out, 'new', config), slots: length },
      ],
    });
    rows = { prompts: rowPrompts(batch, count), pads: extend.pads };
    past.forEach((hit) => prefixCache.recordHit(hit.length));
    firstLogits = out.logits!.data as Float32Array;
  }

  // The tokens of prompt p whose keys and values are in row r's slots
  // [pads[r], pads[r] + n) go into the prefix cache when p finishes.
  const remember = (p: number, r: number): void => {
    if (prefixCache.maxBytes === 0) return;
    const generated = generations[p]!.tokenIds;
    const n = prompts[p]!.length + generated.length - 1;
    if (n < prefixMinTokens) return;
    const tokens = new Int32Array(n);
    tokens.set(prompts[p]!);
    tokens.set(generated.slice(0, -1), prompts[p]!.length);
    const { keys, values } = cache.readRow({
      row: r,
      start: rows.pads[r]!,
      count: n,
    });
    prefixCache.add({ tokens, keys, values });
  };

  const active = new Set<number>(prompts.map((_, i) => i));
  const accept = (prompt: number, row: number, logits: Float32Array): void => {
    const generation = generations[prompt]!;
    const sampled = sampleToken({
      logits,
      settings: options.sampling,
      random: randoms[prompt]!,
      suppress,
    });
    generation.tokenIds.push(sampled.tokenId);
    generation.logprobs.push(sampled.logprob);
    generation.modelLogprobs.push(sampled.modelLogprob);
    if (
      stop.has(sampled.tokenId) ||
      options.shouldStop?.(generation.tokenIds) === true
    ) {
      generation.finishReason = 'stop';
    } else if (generation.tokenIds.length < maxTokens) {
      return;
    }
    active.delete(prompt);
    remember(prompt, row);
  };
  for (let r = 0; r < count; r++) {
    accept(r, r, firstLogits.subarray(r * vocab, (r + 1) * vocab));
  }

  for (let step = 0; active.size > 0; step++) {
    rows = compactRows({ rows, active, cache, fillerPad: base - 1 });
    const slot = base + step;
    const batchRows = cache.rows;
    const decode = await runtime.session(
      `decode:${batchRows}:${cache.cacheLength}`,
      () =>
        buildDecodeGraph({
          config,
          batch: batchRows,
          cacheLength: cache.cacheLength,
          matmulPrecision: runtime.matmulPrecision,
        }),
      batchRows >= 8 ? runtime.threads : runtime.decodeThreads,
      graphOptions,
    );
    const tokens = rows.prompts.map((prompt) => {
      if (prompt < 0) return undefined;
      const generated = generations[prompt]!.tokenIds;
      return {
        tokenId: generated.at(-1)!,
        position: prompts[prompt]!.length + generated.length - 1,
      };
    });
    const out = await decode.run({
      ...modelWeights,
      ...decodeFeeds({ config, cache, tokens, pads: rows.pads, slot }),
    });
    cache.writeSlot({ slot, ...layerOutputs(out, 'new', config) });
    const logits = out.logits!.data as Float32Array;
    for (let r = 0; r < batchRows; r++) {
      const prompt = rows.prompts[r]!;
      if (prompt < 0 || !active.has(prompt)) continue;
      accept(prompt, r, logits.subarray(r * vocab, (r + 1) * vocab));
    }
  }
  return generations;
}

/** Rows `[0, count)` decode prompts `0…count-1`; the rest of `batch` is filler. */
function rowPrompts(batch: number, count: number): number[] {
  return Array.from({ length: batch }, (_, r) => (r < count ? r : -1));
}

/** A generation graph's per-layer key and value outputs (`present_*` or `new_*`). */
function layerOutputs(
  out: ort.InferenceSession.OnnxValueMapType,
  prefix: 'present' | 'new',
  config: ModelConfig,
): { keys: Float32Array[]; values: Float32Array[] } {
  const keys: Float32Array[] = [];
  const values: Float32Array[] = [];
  for (let layer = 0; layer < config.numLayers; layer++) {
    keys.push(out[`${prefix}_keys.${layer}`]!.data as Float32Array);
    values.push(out[`${prefix}_values.${layer}`]!.data as Float32Array);
  }
  return { keys, values };
}

/** Derives the seed of one prompt's sampling stream. */
function mixSeed(seed: number, index: number): number {
  let h =
    (Math.imul(seed | 0, 0x9e3779b1) ^ Math.imul(index + 1, 0x85ebca6b)) >>> 0;
  h = Math.imul(h ^ (h >>> 15), 0x2c1b3c6d) >>> 0;
  return (h ^ (h >>> 12)) >>> 0;
}

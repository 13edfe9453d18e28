import { SeededRandom } from '../io/seeded-random';
import {
  buildDecodeGraph,
  buildExtendGraph,
  buildPrefillGraph,
  type BuiltGraph,
  type DecodeAttention,
} from '../model/graph-families';
import type { MatmulPrecision } from '../graph/graph-builder';
import type { ModelConfig } from '../model/model-config';
import { decodeFeeds, extendFeeds, prefillFeeds } from './generation-feeds';
import { DecodeCache, type CacheSegment } from './kv-cache';
import { floatTensor, type ort } from './ort-session';
import {
  prefixMinTokens,
  type PrefixCache,
  type PrefixHit,
} from './prefix-cache';
import { disposeTensors, type TensorSet } from './resident-weights';
import { compactRows, type DecodeRows } from './row-compaction';
import { sampleToken, type SamplingSettings } from './sampler';
import { lengthBucket, nextPowerOfTwo } from './sequence-feeds';

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
  /**
   * Keep the decode KV cache on the device: each step's graph writes its
   * slot and its device-located output is the next step's cache, so the host
   * uploads the cache only after a prefill, an extend or a compaction, and
   * reads back only logits and the step's new keys and values (which keep
   * its own copy current for the prefix cache and compaction).
   */
  residentCache: boolean;
  /**
   * How decode steps attend (decision engine-013): `where` writes the slot
   * with a `Where` over the whole cache (with `residentCache`); `gqa` runs
   * ONNX Runtime's `GroupQueryAttention`, which writes the slot in place: the
   * cache is kept as with `residentCache` (whatever that says), and from the
   * second step on the cache buffers are bound as the step's own outputs.
   */
  decodeAttention: DecodeAttention;
  /** The model weights as feeds. */
  modelWeightFeeds(): Promise<Record<string, ort.Tensor>>;
  /** The session of a graph, built once per key. */
  session(
    key: string,
    build: () => BuiltGraph,
    threads: number,
    options: { memoryArena: boolean; deviceOutputs?: readonly string[] },
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

  const start =
    past === undefined
      ? await prefillStart({ runtime, prompts, batch, maxTokens, modelWeights })
      : await extendStart({
          runtime,
          prompts,
          past,
          batch,
          maxTokens,
          modelWeights,
        });
  const { cache, base } = start;
  let rows = start.rows;

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
  for (let r = 0; r < count; r++) accept(r, r, start.logits(r));

  const attention = runtime.decodeAttention;
  const gqa = attention === 'gqa';
  const resident = runtime.residentCache || gqa;
  // With `resident`, the cache the device holds (the last step's
  // `present_*` outputs); undefined until the first step and after a
  // compaction, when the host copy is uploaded.
  let deviceCache: TensorSet | undefined;
  try {
    for (let step = 0; active.size > 0; step++) {
      const compacted = compactRows({
        rows,
        active,
        cache,
        fillerPad: base - 1,
      });
      if (compacted !== rows) {
        disposeTensors(deviceCache);
        deviceCache = undefined;
      }
      rows = compacted;
      const slot = base + step;
      const batchRows = cache.rows;
      const decode = await runtime.session(
        `decode:${batchRows}:${cache.cacheLength}${gqa ? ':gqa' : resident ? ':resident' : ''}`,
        () =>
          buildDecodeGraph({
            config,
            batch: batchRows,
            cacheLength: cache.cacheLength,
            matmulPrecision: runtime.matmulPrecision,
            residentCache: resident,
            attention,
          }),
        batchRows >= 8 ? runtime.threads : runtime.decodeThreads,
        resident
          ? { ...generationGraphOptions, deviceOutputs: presentNames(config) }
          : generationGraphOptions,
      );
      const tokens = rows.prompts.map((prompt) => {
        if (prompt < 0) return undefined;
        const generated = generations[prompt]!.tokenIds;
        return {
          tokenId: generated.at(-1)!,
          position: prompts[prompt]!.length + generated.length - 1,
        };
      });
      const feeds = decodeFeeds({
        config,
        cache,
        tokens,
        pads: rows.pads,
        slot,
        withCache: deviceCache === undefined,
        attention,
      });
      if (gqa) {
        const inPlace = deviceCache !== undefined;
        Object.assign(feeds, deviceCache);
        const out = await runGqaDecode({
          session: decode,
          feeds: { ...modelWeights, ...feeds },
          cache: inPlace ? deviceCache : undefined,
          config,
        });
        if (!out.inPlace) {
          disposeTensors(deviceCache);
          deviceCache = cacheFeeds(out.outputs, config);
        }
        cache.writeSlot({
          slot,
          ...unpackNewKv(
            out.outputs.new_kv!.data as Float32Array,
            config,
            batchRows,
          ),
        });
        const logits = out.outputs.logits!.data as Float32Array;
        for (let r = 0; r < batchRows; r++) {
          const prompt = rows.prompts[r]!;
          if (prompt < 0 || !active.has(prompt)) continue;
          accept(prompt, r, logits.subarray(r * vocab, (r + 1) * vocab));
        }
        continue;
      }
      if (resident) {
        const onehot = new Float32Array(cache.cacheLength);
        onehot[slot] = 1;
        Object.assign(feeds, deviceCache, {
          slot_onehot: floatTensor(onehot, [cache.cacheLength]),
        });
      }
      const out = await decode.run({ ...modelWeights, ...feeds });
      if (resident) {
        disposeTensors(deviceCache);
        deviceCache = cacheFeeds(out, config);
        cache.writeSlot({
          slot,
          ...unpackNewKv(out.new_kv!.data as Float32Array, config, batchRows),
        });
      } else {
        cache.writeSlot({ slot, ...layerOutputs(out, 'new', config) });
      }
      const logits = out.logits!.data as Float32Array;
      for (let r = 0; r < batchRows; r++) {
        const prompt = rows.prompts[r]!;
        if (prompt < 0 || !active.has(prompt)) continue;
        accept(prompt, r, logits.subarray(r * vocab, (r + 1) * vocab));
      }
    }
  } finally {
    disposeTensors(deviceCache);
  }
  return generations;
}

/**
 * Whether binding the cache buffers as a `gqa` decode step's outputs failed
 * once in this process (an execution provider whose binding takes no
 * pre-allocated outputs): later steps then let the operator write a new
 * cache (one copy per step) instead of failing.
 */
let gqaBindingFailed: string | undefined;

/** Why in-place `gqa` decode steps are off in this process, if they are. */
export function gqaInPlaceUnavailable(): string | undefined {
  return gqaBindingFailed;
}

/**
 * One `gqa` decode step. With `cache` (the device cache of the previous
 * step), its `cache_*` tensors are also bound as the `present_*` outputs, so
 * `GroupQueryAttention` shares the buffers and writes only this step's slot;
 * `inPlace` says whether that happened (`cache` is then current).
 */
async function runGqaDecode({
  session,
  feeds,
  cache,
  config,
}: {
  session: ort.InferenceSession;
  feeds: Record<string, ort.Tensor>;
  cache: TensorSet | undefined;
  config: ModelConfig;
}): Promise<{
  outputs: ort.InferenceSession.OnnxValueMapType;
  inPlace: boolean;
}> {
  if (cache !== undefined && gqaBindingFailed === undefined) {
    const fetches: Record<string, ort.Tensor | null> = {
      logits: null,
      new_kv: null,
    };
    for (let layer = 0; layer < config.numLayers; layer++) {
      fetches[`present_keys.${layer}`] = cache[`cache_keys.${layer}`]!;
      fetches[`present_values.${layer}`] = cache[`cache_values.${layer}`]!;
    }
    try {
      return { outputs: await session.run(feeds, fetches), inPlace: true };
    } catch (error) {
      gqaBindingFailed = String(error).split('\n')[0];
      process.emitWarning(
        `gqa decode: binding the KV cache as the step's outputs failed (${gqaBindingFailed}); each step now writes a new cache`,
      );
    }
  }
  return { outputs: await session.run(feeds), inPlace: false };
}

/** Names of a resident decode graph's cache outputs. */
function presentNames(config: ModelConfig): string[] {
  const names: string[] = [];
  for (let layer = 0; layer < config.numLayers; layer++)
    names.push(`present_keys.${layer}`, `present_values.${layer}`);
  return names;
}

/** A resident decode step's cache outputs, as the next step's cache inputs. */
function cacheFeeds(
  out: ort.InferenceSession.OnnxValueMapType,
  config: ModelConfig,
): TensorSet {
  const feeds: TensorSet = {};
  for (let layer = 0; layer < config.numLayers; layer++) {
    feeds[`cache_keys.${layer}`] = out[`present_keys.${layer}`]!;
    feeds[`cache_values.${layer}`] = out[`present_values.${layer}`]!;
  }
  return feeds;
}

/** Splits a resident decode step's `new_kv` `[2L,B,kvh,d]` into per-layer keys and values `[B,kvh,d]`. */
function unpackNewKv(
  data: Float32Array,
  config: ModelConfig,
  rows: number,
): { keys: Float32Array[]; values: Float32Array[] } {
  const size = rows * config.numKeyValueHeads * config.headDim;
  const keys: Float32Array[] = [];
  const values: Float32Array[] = [];
  for (let layer = 0; layer < config.numLayers; layer++) {
    keys.push(data.subarray(2 * layer * size, (2 * layer + 1) * size));
    values.push(data.subarray((2 * layer + 1) * size, (2 * layer + 2) * size));
  }
  return { keys, values };
}

// Generation graphs run without a memory arena (see OrtEngine.session).
const generationGraphOptions = { memoryArena: false };

/**
 * Where decoding starts: every row's prompt in the cache, contiguous and
 * ending at slot `base` (the first decode slot), and the logits of each
 * prompt's last token.
 */
type DecodeStart = {
  cache: DecodeCache;
  rows: DecodeRows;
  base: number;
  logits: (prompt: number) => Float32Array;
};

type StartInputs = {
  runtime: GenerationRuntime;
  prompts: ReadonlyArray<readonly number[]>;
  /** Rows of the decode batch (a power of two, at least the prompts). */
  batch: number;
  maxTokens: number;
  modelWeights: Record<string, ort.Tensor>;
};

/**
 * Prefills the distinct prompts (the rollouts of a group share their first
 * prompt) in one left-padded batch, then gives every row the keys and values
 * of its prompt.
 */
async function prefillStart({
  runtime,
  prompts,
  batch,
  maxTokens,
  modelWeights,
}: StartInputs): Promise<DecodeStart> {
  const { config } = runtime;
  const distinct: Array<readonly number[]> = [];
  const seen = new Map<string, number>();
  const source = prompts.map((prompt) => {
    const key = prompt.join(',');
    let index = seen.get(key);
    if (index === undefined) {
      index = distinct.push(prompt) - 1;
      seen.set(key, index);
    }
    return index;
  });
  const prefillBatch = nextPowerOfTwo(distinct.length);
  const prefill = prefillFeeds({
    config,
    prompts: distinct,
    batch: prefillBatch,
  });
  const { length } = prefill;
  const session = await runtime.session(
    `prefill:${prefillBatch}:${length}`,
    () =>
      buildPrefillGraph({
        config,
        bucket: { batch: prefillBatch, length },
        matmulPrecision: runtime.matmulPrecision,
      }),
    runtime.threads,
    generationGraphOptions,
  );
  const out = await session.run({ ...modelWeights, ...prefill.feeds });
  const present = layerOutputs(out, 'present', config);
  // Static KV cache: slots [0, length) hold the prompts, then one slot per generated token.
  const cache = DecodeCache.fromRows({
    config,
    rows: batch,
    cacheLength: Math.ceil((length + maxTokens) / 64) * 64,
    segments: prompts.map((_, p) => {
      const pad = prefill.pads[source[p]!]!;
      return [
        {
          part: present,
          partSlots: length,
          row: source[p]!,
          from: pad,
          count: length - pad,
          to: pad,
        },
      ];
    }),
  });
  const logits = out.logits!.data as Float32Array;
  const vocab = config.vocabSize;
  return {
    cache,
    base: length,
    rows: {
      prompts: rowPrompts(batch, prompts.length),
      pads: Array.from({ length: batch }, (_, r) =>
        r < prompts.length ? prefill.pads[source[r]!]! : length - 1,
      ),
    },
    logits: (p) =>
      logits.subarray(source[p]! * vocab, (source[p]! + 1) * vocab),
  };
}

/**
 * Runs the new tokens of prompts that extend cached prefixes, in groups of
 * rows with similar counts of new tokens ({@link planExtendGroups}), one
 * extend step per group, then lays every row's sequence in one decode cache,
 * all ending at the same slot.
 */
async function extendStart({
  runtime,
  prompts,
  past,
  batch,
  maxTokens,
  modelWeights,
}: StartInputs & { past: readonly PrefixHit[] }): Promise<DecodeStart> {
  const { config, prefixCache } = runtime;
  const groups = planExtendGroups(
    prompts.map((prompt, p) => ({
      length: prompt.length,
      newTokens: prompt.length - past[p]!.length,
    })),
  );
  const runs = [];
  for (const members of groups) {
    const groupBatch = nextPowerOfTwo(members.length);
    const extend = extendFeeds({
      config,
      prompts: members.map((p) => prompts[p]!),
      past: members.map((p) => past[p]!),
      batch: groupBatch,
    });
    const { length, start } = extend;
    const session = await runtime.session(
      `extend:${groupBatch}:${length}:${start}`,
      () =>
        buildExtendGraph({
          config,
          batch: groupBatch,
          length,
          cacheLength: start,
          matmulPrecision: runtime.matmulPrecision,
        }),
      runtime.threads,
      generationGraphOptions,
    );
    const out = await session.run({ ...modelWeights, ...extend.feeds });
    runs.push({
      members,
      extend,
      added: layerOutputs(out, 'new', config),
      logits: out.logits!.data as Float32Array,
    });
  }
  past.forEach((hit) => prefixCache.recordHit(hit.length));
  // The decode cache: each row's prefix and extended tokens, shifted so that
  // all rows end at `base`, then room to generate.
  const base = Math.max(
    ...runs.map(({ extend }) => extend.start + extend.length),
  );
  const segments: CacheSegment[][] = Array.from({ length: batch }, () => []);
  const pads = new Array<number>(batch).fill(base - 1);
  const logitRows: Array<{ data: Float32Array; row: number }> = [];
  for (const { members, extend, added, logits } of runs) {
    const { start, length } = extend;
    const shift = base - (start + length);
    members.forEach((p, k) => {
      const pad = extend.pads[k]!;
      pads[p] = pad + shift;
      if (pad < start) {
        segments[p]!.push({
          part: extend.prefixes,
          partSlots: start,
          row: k,
          from: pad,
          count: start - pad,
          to: pad + shift,
        });
      }
      const from = Math.max(0, pad - start);
      segments[p]!.push({
        part: added,
        partSlots: length,
        row: k,
        from,
        count: length - from,
        to: start + from + shift,
      });
      logitRows[p] = { data: logits, row: k };
    });
  }
  const vocab = config.vocabSize;
  return {
    cache: DecodeCache.fromRows({
      config,
      rows: batch,
      cacheLength: Math.ceil((base + maxTokens) / 64) * 64,
      segments,
    }),
    base,
    rows: { prompts: rowPrompts(batch, prompts.length), pads },
    logits: (p) =>
      logitRows[p]!.data.subarray(
        logitRows[p]!.row * vocab,
        (logitRows[p]!.row + 1) * vocab,
      ),
  };
}

/**
 * Relative cost, in the attention's per-slot work, of the dense layers for
 * one token: the embedded models' dense work per token is about 900 slots of
 * attention, and attention's element-wise steps (bias, softmax) make a slot
 * dearer than its multiply-adds alone.
 */
const extendDenseCost = 512;
/** Fixed cost of one more extend run (dispatch, feeds, a session) in the same units. */
const extendRunCost = 256 * 1024;

/**
 * Splits the rows of an extend call into groups that each run one extend
 * step. One step runs every row's last `T` tokens, `T` the bucket of the
 * group's longest run of new tokens, so a row with few new tokens beside one
 * with many recomputes cached ones; each group also pads its batch to a power
 * of two and its cache to the longest prefix. With rows sorted by their new
 * tokens, a dynamic program picks the contiguous groups of least estimated
 * cost: per group `batch · T · (dense + P + T)` plus a fixed cost per run.
 * Returns the groups as row indices, fewest new tokens first.
 */
export function planExtendGroups(
  rows: ReadonlyArray<{ length: number; newTokens: number }>,
): number[][] {
  const order = rows
    .map((_, i) => i)
    .sort((a, b) => rows[a]!.newTokens - rows[b]!.newTokens || a - b);
  const n = order.length;
  // best[j]: least cost of the first j rows in order; cut[j]: where its last group starts.
  const best = new Array<number>(n + 1).fill(Infinity);
  const cut = new Array<number>(n + 1).fill(0);
  best[0] = 0;
  for (let j = 1; j <= n; j++) {
    const length = lengthBucket(rows[order[j - 1]!]!.newTokens);
    let longestReuse = 0;
    for (let i = j - 1; i >= 0; i--) {
      longestReuse = Math.max(longestReuse, rows[order[i]!]!.length - length);
      const start = Math.ceil(Math.max(1, longestReuse) / 64) * 64;
      const cost =
        best[i]! +
        nextPowerOfTwo(j - i) * length * (extendDenseCost + start + length) +
        extendRunCost;
      if (cost < best[j]!) {
        best[j] = cost;
        cut[j] = i;
      }
    }
  }
  const groups: number[][] = [];
  for (let j = n; j > 0; j = cut[j]!) groups.unshift(order.slice(cut[j]!, j));
  return groups;
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

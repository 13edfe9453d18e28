import type { DecodeAttention } from '../model/graph-families';
import type { ModelConfig } from '../model/model-config';
import {
  gatherPrefixes,
  type DecodeCache,
  type LayerTensors,
} from './kv-cache';
import { floatTensor, ort } from './ort-session';
import type { PrefixHit } from './prefix-cache';
import { fillRope, lengthBucket, maskedBias } from './sequence-feeds';

/** Inputs of one generation graph run, the model weights aside. */
type Feeds = Record<string, ort.Tensor>;

/**
 * The inputs of a prefill graph (`prefill:batch:length`): the prompts
 * left-padded to a common length bucket, so that all end at the same slot.
 * Pad positions attend to themselves only (a softmax needs one open slot);
 * rows past the prompts are all padding.
 */
export function prefillFeeds({
  config,
  prompts,
  batch,
}: {
  config: ModelConfig;
  prompts: ReadonlyArray<readonly number[]>;
  batch: number;
}): {
  /** The length bucket: slots `[0, length)` of each row. */
  length: number;
  /** Per row, the first slot of its prompt. */
  pads: number[];
  feeds: Feeds;
} {
  const count = prompts.length;
  const half = config.headDim / 2;
  const length = lengthBucket(Math.max(...prompts.map((p) => p.length)));
  const pads = Array.from({ length: batch }, (_, row) =>
    row < count ? length - prompts[row]!.length : length - 1,
  );
  const ids = new BigInt64Array(batch * length);
  const positions = new Array<number>(batch * length).fill(0);
  for (let row = 0; row < count; row++) {
    const prompt = prompts[row]!;
    for (let i = 0; i < prompt.length; i++) {
      ids[row * length + pads[row]! + i] = BigInt(prompt[i]!);
      positions[row * length + pads[row]! + i] = i;
    }
  }
  const cos = new Float32Array(batch * length * half);
  const sin = new Float32Array(batch * length * half);
  fillRope({ config, positions, cos, sin });
  const bias = new Float32Array(batch * length * length).fill(maskedBias);
  for (let row = 0; row < batch; row++) {
    for (let i = 0; i < length; i++) {
      const start = (row * length + i) * length;
      if (i < pads[row]!) bias[start + i] = 0;
      else for (let j = pads[row]!; j <= i; j++) bias[start + j] = 0;
    }
  }
  return {
    length,
    pads,
    feeds: {
      input_ids: new ort.Tensor('int64', ids, [batch * length]),
      rope_cos: floatTensor(cos, [batch, length, 1, half]),
      rope_sin: floatTensor(sin, [batch, length, 1, half]),
      attention_bias: floatTensor(bias, [batch, 1, 1, length, length]),
    },
  };
}

/**
 * The inputs of an extend graph (`extend:batch:length:start`) for prompts
 * that extend cached prefixes. Every row runs its last `length` prompt
 * tokens in one step: the tokens after its cached prefix, plus as many cached
 * ones recomputed as make the rows' counts equal (a row shorter than `length`
 * is left-padded with filler instead). The rest of each prefix is copied from
 * the cache, left-padded so that all rows end at slot `start`.
 */
export function extendFeeds({
  config,
  prompts,
  past,
  batch,
}: {
  config: ModelConfig;
  prompts: ReadonlyArray<readonly number[]>;
  past: readonly PrefixHit[];
  batch: number;
}): {
  /** Tokens each row runs (a length bucket). */
  length: number;
  /** Cached slots per head before them. */
  start: number;
  /** Per row, the first slot of its sequence. */
  pads: number[];
  /** The copied prefixes, per layer, `start` slots per head. */
  prefixes: LayerTensors;
  feeds: Feeds;
} {
  const count = prompts.length;
  const kvh = config.numKeyValueHeads;
  const d = config.headDim;
  const half = d / 2;
  const longestNew = Math.max(
    ...prompts.map((prompt, p) => prompt.length - past[p]!.length),
  );
  const length = lengthBucket(longestNew);
  const reuse = prompts.map((prompt) => Math.max(0, prompt.length - length));
  const filler = Array.from({ length: batch }, (_, row) =>
    row < count ? Math.max(0, length - prompts[row]!.length) : length,
  );
  const start = Math.ceil(Math.max(1, ...reuse) / 64) * 64;
  const pads = Array.from({ length: batch }, (_, row) =>
    row < count ? start - reuse[row]! + filler[row]! : start + length - 1,
  );
  const prefixes = gatherPrefixes({ config, past, reuse, rows: batch, start });
  const ids = new BigInt64Array(batch * length);
  const positions = new Array<number>(batch * length).fill(0);
  const width = start + length;
  const bias = new Float32Array(batch * length * width).fill(maskedBias);
  for (let row = 0; row < batch; row++) {
    const pad = filler[row]!;
    if (row < count) {
      const prompt = prompts[row]!;
      for (let i = pad; i < length; i++) {
        const position = reuse[row]! + i - pad;
        ids[row * length + i] = BigInt(prompt[position]!);
        positions[row * length + i] = position;
      }
    }
    for (let i = 0; i < length; i++) {
      const offset = (row * length + i) * width;
      if (i < pad) {
        // Filler attends to itself only (a softmax needs one open slot).
        bias[offset + start + i] = 0;
      } else {
        if (row < count) {
          bias.fill(0, offset + start - reuse[row]!, offset + start);
        }
        bias.fill(0, offset + start + pad, offset + start + i + 1);
      }
    }
  }
  const cos = new Float32Array(batch * length * half);
  const sin = new Float32Array(batch * length * half);
  fillRope({ config, positions, cos, sin });
  const feeds: Feeds = {
    input_ids: new ort.Tensor('int64', ids, [batch * length]),
    rope_cos: floatTensor(cos, [batch, length, 1, half]),
    rope_sin: floatTensor(sin, [batch, length, 1, half]),
    attention_bias: floatTensor(bias, [batch, 1, 1, length, width]),
  };
  for (let layer = 0; layer < config.numLayers; layer++) {
    feeds[`cache_keys.${layer}`] = floatTensor(prefixes.keys[layer]!, [
      batch,
      kvh,
      d,
      start,
    ]);
    feeds[`cache_values.${layer}`] = floatTensor(prefixes.values[layer]!, [
      batch,
      kvh,
      start,
      d,
    ]);
  }
  return { length, start, pads, prefixes, feeds };
}

/**
 * The inputs of one decode step (`decode:rows:cacheLength`): each row's last
 * token at its position, attending to its cache slots `[pads[r], slot)` and
 * itself. Rows without a token (filler) run token 0 at position 0.
 */
export function decodeFeeds({
  config,
  cache,
  tokens,
  pads,
  slot,
  withCache = true,
  attention = 'where',
}: {
  config: ModelConfig;
  cache: DecodeCache;
  /** Per row, the token to run and its position, or undefined for filler. */
  tokens: ReadonlyArray<{ tokenId: number; position: number } | undefined>;
  pads: readonly number[];
  /** The cache slot this step's keys and values go to. */
  slot: number;
  /** Feed the host cache (default true); false when the device holds it. */
  withCache?: boolean;
  /**
   * The decode graph's attention (`buildDecodeGraph`): `gqa` feeds
   * `attention_bias` (the row's slots up to and with `slot`), `seqlens_k` and
   * `total_sequence_length` instead of `past_bias`, and the cache keys in the
   * values' layout `[B,kvh,P,d]` (a transposed copy of the host cache).
   */
  attention?: DecodeAttention;
}): Feeds {
  const { rows, cacheLength } = cache;
  const kvh = config.numKeyValueHeads;
  const d = config.headDim;
  const half = d / 2;
  const ids = new BigInt64Array(rows);
  const positions = new Array<number>(rows).fill(0);
  const pastBias = new Float32Array(rows * cacheLength).fill(maskedBias);
  for (let r = 0; r < rows; r++) {
    const token = tokens[r];
    if (token !== undefined) {
      ids[r] = BigInt(token.tokenId);
      positions[r] = token.position;
    }
    pastBias.fill(
      0,
      r * cacheLength + pads[r]!,
      r * cacheLength + slot + (attention === 'gqa' ? 1 : 0),
    );
  }
  const cos = new Float32Array(rows * half);
  const sin = new Float32Array(rows * half);
  fillRope({ config, positions, cos, sin });
  const feeds: Feeds = {
    input_ids: new ort.Tensor('int64', ids, [rows]),
    rope_cos: floatTensor(cos, [rows, 1, 1, half]),
    rope_sin: floatTensor(sin, [rows, 1, 1, half]),
  };
  if (attention === 'gqa') {
    feeds['attention_bias'] = floatTensor(pastBias, [rows, 1, 1, cacheLength]);
    feeds['seqlens_k'] = new ort.Tensor(
      'int32',
      new Int32Array(rows).fill(slot),
      [rows],
    );
    feeds['total_sequence_length'] = new ort.Tensor(
      'int32',
      Int32Array.of(slot + 1),
      [1],
    );
  } else {
    feeds['past_bias'] = floatTensor(pastBias, [rows, 1, 1, cacheLength]);
  }
  if (!withCache) return feeds;
  for (let layer = 0; layer < config.numLayers; layer++) {
    if (attention === 'gqa') {
      feeds[`cache_keys.${layer}`] = floatTensor(
        keysSlotMajor(cache.keys[layer]!, rows * kvh, d, cacheLength),
        [rows, kvh, cacheLength, d],
      );
      feeds[`cache_values.${layer}`] = floatTensor(cache.values[layer]!, [
        rows,
        kvh,
        cacheLength,
        d,
      ]);
      continue;
    }
    feeds[`cache_keys.${layer}`] = floatTensor(cache.keys[layer]!, [
      rows,
      kvh,
      d,
      cacheLength,
    ]);
    feeds[`cache_values.${layer}`] = floatTensor(cache.values[layer]!, [
      rows,
      kvh,
      cacheLength,
      d,
    ]);
  }
  return feeds;
}

/**
 * Host cache keys `[heads, d, P]` (transposed, engine-002) as `[heads, P, d]`,
 * the layout `GroupQueryAttention` reads: a new array.
 */
export function keysSlotMajor(
  keys: Float32Array,
  heads: number,
  d: number,
  cacheLength: number,
): Float32Array {
  const out = new Float32Array(keys.length);
  for (let head = 0; head < heads; head++) {
    const base = head * d * cacheLength;
    for (let i = 0; i < d; i++) {
      const row = base + i * cacheLength;
      for (let slot = 0; slot < cacheLength; slot++)
        out[base + slot * d + i] = keys[row + slot]!;
    }
  }
  return out;
}

import type { ModelConfig } from '../model/model-config';
import type { PrefixHit } from './prefix-cache';

/**
 * Slots `[start, start + count)` of one head of a KV-cache array of `slots`
 * slots per head.
 */
type HeadSlots = {
  data: Float32Array;
  head: number;
  slots: number;
  start: number;
};

/**
 * Copies cached keys, laid out `[heads, headDim, slots]` (each dimension's
 * slots contiguous).
 */
function copyKeySlots(
  from: HeadSlots,
  to: HeadSlots,
  count: number,
  headDim: number,
): void {
  for (let x = 0; x < headDim; x++) {
    const source = (from.head * headDim + x) * from.slots + from.start;
    to.data.set(
      from.data.subarray(source, source + count),
      (to.head * headDim + x) * to.slots + to.start,
    );
  }
}

/**
 * Copies cached values, laid out `[heads, slots, headDim]` (each head's slots
 * contiguous).
 */
function copyValueSlots(
  from: HeadSlots,
  to: HeadSlots,
  count: number,
  headDim: number,
): void {
  const source = (from.head * from.slots + from.start) * headDim;
  to.data.set(
    from.data.subarray(source, source + count * headDim),
    (to.head * to.slots + to.start) * headDim,
  );
}

/** Keys and values per layer: keys `[heads, d, slots]`, values `[heads, slots, d]`. */
export type LayerTensors = { keys: Float32Array[]; values: Float32Array[] };

/**
 * The cached prefixes of a batch of extend rows, per layer, `start` slots per
 * head: row `r` holds the first `reuse[r]` tokens of `past[r]`'s entry,
 * left-padded so that every row ends at slot `start`.
 */
export function gatherPrefixes({
  config,
  past,
  reuse,
  rows,
  start,
}: {
  config: ModelConfig;
  past: readonly PrefixHit[];
  reuse: readonly number[];
  rows: number;
  start: number;
}): LayerTensors {
  const kvh = config.numKeyValueHeads;
  const d = config.headDim;
  const keys: Float32Array[] = [];
  const values: Float32Array[] = [];
  for (let layer = 0; layer < config.numLayers; layer++) {
    const layerKeys = new Float32Array(rows * kvh * d * start);
    const layerValues = new Float32Array(rows * kvh * start * d);
    past.forEach(({ entry }, r) => {
      const stored = entry.tokens.length;
      for (let h = 0; h < kvh; h++) {
        const target = {
          head: r * kvh + h,
          slots: start,
          start: start - reuse[r]!,
        };
        copyKeySlots(
          { data: entry.keys[layer]!, head: h, slots: stored, start: 0 },
          { data: layerKeys, ...target },
          reuse[r]!,
          d,
        );
        copyValueSlots(
          { data: entry.values[layer]!, head: h, slots: stored, start: 0 },
          { data: layerValues, ...target },
          reuse[r]!,
          d,
        );
      }
    });
    keys.push(layerKeys);
    values.push(layerValues);
  }
  return { keys, values };
}

/**
 * Slots `[from, from + count)` of row `row` of a source part (per layer,
 * `partSlots` slots per head, laid out as a cache), copied to slot `to` on.
 */
export type CacheSegment = {
  part: LayerTensors;
  partSlots: number;
  row: number;
  from: number;
  count: number;
  to: number;
};

/**
 * The static KV cache of a decode batch: per layer, `rows × kvh` heads of
 * `cacheLength` slots (keys `[rows, kvh, d, cacheLength]`, values
 * `[rows, kvh, cacheLength, d]`). Each row's sequence occupies contiguous
 * slots; a decode step writes one slot of every row.
 */
export class DecodeCache {
  /** The model description. */
  readonly config: ModelConfig;
  /** Slots per head. */
  readonly cacheLength: number;
  /** Rows of the batch (a power of two). */
  rows: number;
  /** Per layer `[rows, kvh, d, cacheLength]`. */
  keys: Float32Array[];
  /** Per layer `[rows, kvh, cacheLength, d]`. */
  values: Float32Array[];

  private constructor({
    config,
    rows,
    cacheLength,
    keys,
    values,
  }: {
    config: ModelConfig;
    rows: number;
    cacheLength: number;
    keys: Float32Array[];
    values: Float32Array[];
  }) {
    this.config = config;
    this.rows = rows;
    this.cacheLength = cacheLength;
    this.keys = keys;
    this.values = values;
  }

  /**
   * A cache of `cacheLength` slots per head whose first slots hold `parts`
   * (each per layer, `slots` slots per head) laid end to end from slot 0; the
   * rest is left for generated tokens.
   */
  static fromParts({
    config,
    rows,
    cacheLength,
    parts,
  }: {
    config: ModelConfig;
    rows: number;
    cacheLength: number;
    parts: ReadonlyArray<LayerTensors & { slots: number }>;
  }): DecodeCache {
    const heads = rows * config.numKeyValueHeads;
    const d = config.headDim;
    const keys: Float32Array[] = [];
    const values: Float32Array[] = [];
    for (let layer = 0; layer < config.numLayers; layer++) {
      const layerKeys = new Float32Array(heads * d * cacheLength);
      const layerValues = new Float32Array(heads * cacheLength * d);
      let start = 0;
      for (const part of parts) {
        for (let head = 0; head < heads; head++) {
          copyKeySlots(
            { data: part.keys[layer]!, head, slots: part.slots, start: 0 },
            { data: layerKeys, head, slots: cacheLength, start },
            part.slots,
            d,
          );
          copyValueSlots(
            { data: part.values[layer]!, head, slots: part.slots, start: 0 },
            { data: layerValues, head, slots: cacheLength, start },
            part.slots,
            d,
          );
        }
        start += part.slots;
      }
      keys.push(layerKeys);
      values.push(layerValues);
    }
    return new DecodeCache({ config, rows, cacheLength, keys, values });
  }

  /**
   * A cache of `rows` rows, `cacheLength` slots per head, assembled row by
   * row: destination row `r` receives `segments[r]`, each a run of slots of
   * one row of a source part (per layer, `partSlots` slots per head). Slots
   * and rows no segment covers are zero.
   */
  static fromRows({
    config,
    rows,
    cacheLength,
    segments,
  }: {
    config: ModelConfig;
    rows: number;
    cacheLength: number;
    segments: ReadonlyArray<readonly CacheSegment[]>;
  }): DecodeCache {
    const kvh = config.numKeyValueHeads;
    const d = config.headDim;
    const keys: Float32Array[] = [];
    const values: Float32Array[] = [];
    for (let layer = 0; layer < config.numLayers; layer++) {
      const layerKeys = new Float32Array(rows * kvh * d * cacheLength);
      const layerValues = new Float32Array(rows * kvh * cacheLength * d);
      segments.forEach((rowSegments, r) => {
        for (const segment of rowSegments) {
          for (let h = 0; h < kvh; h++) {
            const source = {
              head: segment.row * kvh + h,
              slots: segment.partSlots,
              start: segment.from,
            };
            const target = {
              head: r * kvh + h,
              slots: cacheLength,
              start: segment.to,
            };
            copyKeySlots(
              { data: segment.part.keys[layer]!, ...source },
              { data: layerKeys, ...target },
              segment.count,
              d,
            );
            copyValueSlots(
              { data: segment.part.values[layer]!, ...source },
              { data: layerValues, ...target },
              segment.count,
              d,
            );
          }
        }
      });
      keys.push(layerKeys);
      values.push(layerValues);
    }
    return new DecodeCache({ config, rows, cacheLength, keys, values });
  }

  /**
   * Writes one decode step's keys and values (per layer `[rows, kvh, d]`)
   * into slot `slot` of every row.
   */
  writeSlot({ slot, keys, values }: LayerTensors & { slot: number }): void {
    const { cacheLength } = this;
    const d = this.config.headDim;
    const heads = this.rows * this.config.numKeyValueHeads;
    for (let layer = 0; layer < this.config.numLayers; layer++) {
      const stepKeys = keys[layer]!;
      const stepValues = values[layer]!;
      const layerKeys = this.keys[layer]!;
      const layerValues = this.values[layer]!;
      for (let head = 0; head < heads; head++) {
        for (let x = 0; x < d; x++) {
          layerKeys[(head * d + x) * cacheLength + slot] =
            stepKeys[head * d + x]!;
          layerValues[(head * cacheLength + slot) * d + x] =
            stepValues[head * d + x]!;
        }
      }
    }
  }

  /**
   * Keeps the rows `kept` (in that order) in a batch of `rows` rows; the rows
   * after them are zero.
   */
  keepRows({ kept, rows }: { kept: readonly number[]; rows: number }): void {
    const rowSize =
      this.config.numKeyValueHeads * this.config.headDim * this.cacheLength;
    const remap = (source: Float32Array): Float32Array => {
      const out = new Float32Array(rows * rowSize);
      kept.forEach((r, i) =>
        out.set(source.subarray(r * rowSize, (r + 1) * rowSize), i * rowSize),
      );
      return out;
    };
    this.keys = this.keys.map(remap);
    this.values = this.values.map(remap);
    this.rows = rows;
  }

  /**
   * Copies slots `[start, start + count)` of row `row`, per layer, as a
   * prefix-cache entry's keys `[kvh, d, count]` and values `[kvh, count, d]`.
   */
  readRow({
    row,
    start,
    count,
  }: {
    row: number;
    start: number;
    count: number;
  }): LayerTensors {
    const kvh = this.config.numKeyValueHeads;
    const d = this.config.headDim;
    const keys: Float32Array[] = [];
    const values: Float32Array[] = [];
    for (let layer = 0; layer < this.config.numLayers; layer++) {
      const entryKeys = new Float32Array(kvh * d * count);
      const entryValues = new Float32Array(kvh * count * d);
      for (let h = 0; h < kvh; h++) {
        const source = { head: row * kvh + h, slots: this.cacheLength, start };
        copyKeySlots(
          { data: this.keys[layer]!, ...source },
          { data: entryKeys, head: h, slots: count, start: 0 },
          count,
          d,
        );
        copyValueSlots(
          { data: this.values[layer]!, ...source },
          { data: entryValues, head: h, slots: count, start: 0 },
          count,
          d,
        );
      }
      keys.push(entryKeys);
      values.push(entryValues);
    }
    return { keys, values };
  }
}

import { describe, expect, it } from 'vitest';
import { createModelConfig } from '../model/model-config';
import { DecodeCache } from './kv-cache';

const config = createModelConfig({
  vocabSize: 32,
  hiddenSize: 8,
  intermediateSize: 16,
  numLayers: 1,
  numHeads: 2,
  numKeyValueHeads: 2,
  maxPositionEmbeddings: 64,
});
const d = config.headDim;
const kvh = config.numKeyValueHeads;

/** Keys `[rows·kvh, d, slots]` and values `[rows·kvh, slots, d]` whose entries name row, head, slot and dimension. */
function part(rows: number, slots: number, offset = 0) {
  const name = (row: number, h: number, slot: number, x: number) =>
    row * 1000 + h * 100 + (slot + offset) * 10 + x;
  const keys = new Float32Array(rows * kvh * d * slots);
  const values = new Float32Array(rows * kvh * slots * d);
  for (let row = 0; row < rows; row++)
    for (let h = 0; h < kvh; h++)
      for (let slot = 0; slot < slots; slot++)
        for (let x = 0; x < d; x++) {
          const head = row * kvh + h;
          keys[(head * d + x) * slots + slot] = name(row, h, slot, x);
          values[(head * slots + slot) * d + x] = name(row, h, slot, x);
        }
  return { keys: [keys], values: [values], slots };
}

describe('DecodeCache', () => {
  it('should lay parts end to end and read a row back as a prefix-cache entry', () => {
    const cache = DecodeCache.fromParts({
      config,
      rows: 2,
      cacheLength: 8,
      parts: [part(2, 3), part(2, 2, 3)],
    });
    expect(cache.readRow({ row: 1, start: 0, count: 5 })).toEqual({
      keys: part(1, 5).keys.map((keys) => keys.map((v) => v + 1000)),
      values: part(1, 5).values.map((values) => values.map((v) => v + 1000)),
    });
  });

  it('should write one slot of every row and keep rows in the order given', () => {
    const cache = DecodeCache.fromParts({
      config,
      rows: 4,
      cacheLength: 4,
      parts: [part(4, 2)],
    });
    const step = part(4, 1, 2);
    cache.writeSlot({ slot: 2, keys: step.keys, values: step.values });
    cache.keepRows({ kept: [3, 1], rows: 2 });
    expect(cache.rows).toBe(2);
    const expected = part(4, 3);
    const row = (r: number) => cache.readRow({ row: r, start: 0, count: 3 });
    const slice = (r: number, source: Float32Array) =>
      source.subarray(r * kvh * d * 3, (r + 1) * kvh * d * 3);
    expect(row(0).keys[0]).toEqual(slice(3, expected.keys[0]!));
    expect(row(1).values[0]).toEqual(slice(1, expected.values[0]!));
  });
});

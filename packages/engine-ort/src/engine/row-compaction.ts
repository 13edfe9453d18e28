import type { DecodeCache } from './kv-cache';
import { nextPowerOfTwo } from './sequence-feeds';

/** The rows of a decode batch. */
export type DecodeRows = {
  /** Per row, the index of the prompt it decodes, or -1 for a filler row. */
  prompts: number[];
  /** Per row, the first cache slot of its sequence. */
  pads: number[];
};

/**
 * Compacts a decode batch when at most half of its rows are still
 * generating: the active rows move, in order, to the smallest power-of-two
 * batch that holds them (their cache rows with them), and the rows after
 * them become filler whose sequence starts at `fillerPad`. Otherwise returns
 * `rows` unchanged.
 */
export function compactRows({
  rows,
  active,
  cache,
  fillerPad,
}: {
  rows: DecodeRows;
  /** Prompts still generating. */
  active: ReadonlySet<number>;
  cache: DecodeCache;
  fillerPad: number;
}): DecodeRows {
  if (active.size > cache.rows / 2) return rows;
  const keep = rows.prompts
    .map((prompt, r) => ({ prompt, r }))
    .filter(({ prompt }) => active.has(prompt));
  const newRows = nextPowerOfTwo(keep.length);
  cache.keepRows({ kept: keep.map(({ r }) => r), rows: newRows });
  const filler = newRows - keep.length;
  return {
    pads: [
      ...keep.map(({ r }) => rows.pads[r]!),
      ...new Array<number>(filler).fill(fillerPad),
    ],
    prompts: [
      ...keep.map(({ prompt }) => prompt),
      ...new Array<number>(filler).fill(-1),
    ],
  };
}

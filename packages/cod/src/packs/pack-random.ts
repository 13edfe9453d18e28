/**
 * A small seeded generator (SplitMix32-style mixing): the same seed gives
 * the same draws on every platform. Used for pack seeds, hidden
 * regularities and generated maps; never for anything security-related.
 */
export type PackRandom = {
  /** A float in [0, 1). */
  next(): number;
  /** An integer in [0, n). */
  int(n: number): number;
  /** A shuffled copy (Fisher–Yates). */
  shuffle<T>(items: readonly T[]): T[];
};

function mix(value: number): number {
  let h = value >>> 0;
  h = Math.imul(h ^ (h >>> 16), 0x85ebca6b) >>> 0;
  h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35) >>> 0;
  return (h ^ (h >>> 16)) >>> 0;
}

/** Mixes integers into one 31-bit seed; different parts give unrelated seeds. */
export function mixSeed(...parts: number[]): number {
  let h = 0x9e3779b9;
  for (const part of parts)
    h = mix((h ^ mix((part | 0) + 0x632be5ab)) + 0x9e3779b9);
  return h & 0x7fffffff;
}

/** A {@link PackRandom} for `seed`. */
export function createPackRandom(seed: number): PackRandom {
  let state = mixSeed(seed) >>> 0;
  const next = () => {
    state = (state + 0x9e3779b9) >>> 0;
    return mix(state) / 4294967296;
  };
  const int = (n: number) => Math.floor(next() * n);
  return {
    next,
    int,
    shuffle<T>(items: readonly T[]): T[] {
      const out = [...items];
      for (let i = out.length - 1; i > 0; i--) {
        const j = int(i + 1);
        [out[i], out[j]] = [out[j]!, out[i]!];
      }
      return out;
    },
  };
}

/**
 * MT19937 states right after `seed(n)` and the first twist, by `n` (bounded:
 * cleared when full). Seeding runs 1,247 rounds of initialisation and the
 * twist 624 more; BFCL's classes seed a fresh generator with one of a few
 * constants per instance, so both are computed once per seed. These arrays
 * are shared by every generator of that seed and are never written (see
 * `PyRandom.state`).
 */
const seededStates = new Map<bigint, Uint32Array>();
const maxSeededStates = 256;

/**
 * CPython's `random.Random`: the MT19937 Mersenne Twister seeded from an int
 * by `init_by_array`, with `random()`, `getrandbits()`, `randint()`,
 * `uniform()`, `choice()` and `shuffle()` drawing exactly what CPython draws.
 * BFCL's APIs derive ids and readings from it, so results match only if the
 * generator does.
 */
export class PyRandom {
  /**
   * This generator's own state, allocated at its first regeneration (the
   * twist after 624 draws); until then the shared `seeded` state stands for
   * it. Drawing only reads the state and moves `index`, so a generator can
   * read the shared words as its own; only `twist` writes, and it must never
   * write `seeded`. Most instances never draw, and the rest draw a few words.
   */
  private state: Uint32Array | undefined;
  private seeded!: Uint32Array;
  private index = 0;

  constructor(seed: bigint | number = 0) {
    this.seed(seed);
  }

  /** `random.seed(n)` for an int seed (its absolute value, as 32-bit words). */
  seed(seed: bigint | number): void {
    let n = typeof seed === 'bigint' ? seed : BigInt(Math.trunc(seed));
    if (n < 0n) n = -n;
    this.state = undefined;
    this.index = 0;
    const seeded = seededStates.get(n);
    if (seeded !== undefined) {
      this.seeded = seeded;
      return;
    }
    const magnitude = n;
    const key: number[] = [];
    while (n > 0n) {
      key.push(Number(n & 0xffffffffn));
      n >>= 32n;
    }
    if (key.length === 0) key.push(0);
    const state = new Uint32Array(624);
    initByArray(state, key);
    twist(state);
    if (seededStates.size >= maxSeededStates) seededStates.clear();
    seededStates.set(magnitude, state);
    this.seeded = state;
  }

  /** The next raw 32-bit output. */
  nextUint32(): number {
    let mt = this.state ?? this.seeded;
    if (this.index >= 624) {
      // The first twist is the first write: copy the shared state before it.
      if (mt === this.seeded) {
        mt = this.seeded.slice();
        this.state = mt;
      }
      twist(mt);
      this.index = 0;
    }
    let y = mt[this.index++]!;
    y ^= y >>> 11;
    y ^= (y << 7) & 0x9d2c5680;
    y ^= (y << 15) & 0xefc60000;
    y ^= y >>> 18;
    return y >>> 0;
  }

  /** `random()`: a float in [0, 1) with 53 random bits. */
  random(): number {
    const a = this.nextUint32() >>> 5;
    const b = this.nextUint32() >>> 6;
    return (a * 67108864 + b) / 9007199254740992;
  }

  /** `getrandbits(k)`: words are consumed least significant first. */
  getrandbits(k: number): bigint {
    if (k < 0) throw new RangeError('number of bits must be non-negative');
    if (k === 0) return 0n;
    if (k <= 32) return BigInt(this.nextUint32() >>> (32 - k));
    let result = 0n;
    let shift = 0n;
    for (let remaining = k; remaining > 0; remaining -= 32) {
      let word = this.nextUint32();
      if (remaining < 32) word >>>= 32 - remaining;
      result |= BigInt(word) << shift;
      shift += 32n;
    }
    return result;
  }

  /** `_randbelow(n)` by rejection sampling on `n.bit_length()` bits. */
  randbelow(n: bigint): bigint {
    if (n <= 0n) throw new RangeError('randbelow needs a positive bound');
    const k = n.toString(2).length;
    let r = this.getrandbits(k);
    while (r >= n) r = this.getrandbits(k);
    return r;
  }

  /** `randint(a, b)`, both ends included. */
  randint(a: bigint | number, b: bigint | number): bigint {
    const lo = BigInt(a);
    const hi = BigInt(b);
    if (hi < lo) throw new RangeError(`empty range in randint(${lo}, ${hi})`);
    return lo + this.randbelow(hi - lo + 1n);
  }

  /** `uniform(a, b) = a + (b - a) * random()`. */
  uniform(a: number, b: number): number {
    return a + (b - a) * this.random();
  }

  /** `choice(sequence)`. */
  choice<T>(sequence: readonly T[]): T {
    if (sequence.length === 0)
      throw new RangeError('Cannot choose from an empty sequence');
    return sequence[Number(this.randbelow(BigInt(sequence.length)))]!;
  }

  /** `shuffle(list)` in place. */
  shuffle<T>(list: T[]): T[] {
    for (let i = list.length - 1; i > 0; i--) {
      const j = Number(this.randbelow(BigInt(i + 1)));
      [list[i], list[j]] = [list[j]!, list[i]!];
    }
    return list;
  }
}

function initGenrand(mt: Uint32Array, s: number): void {
  mt[0] = s >>> 0;
  for (let i = 1; i < 624; i++) {
    const prev = mt[i - 1]! ^ (mt[i - 1]! >>> 30);
    mt[i] = (Math.imul(1812433253, prev) + i) >>> 0;
  }
}

function initByArray(mt: Uint32Array, key: number[]): void {
  initGenrand(mt, 19650218);
  let i = 1;
  let j = 0;
  for (let k = Math.max(624, key.length); k > 0; k--) {
    const prev = mt[i - 1]! ^ (mt[i - 1]! >>> 30);
    mt[i] = ((mt[i]! ^ Math.imul(prev, 1664525)) + key[j]! + j) >>> 0;
    i++;
    j++;
    if (i >= 624) {
      mt[0] = mt[623]!;
      i = 1;
    }
    if (j >= key.length) j = 0;
  }
  for (let k = 623; k > 0; k--) {
    const prev = mt[i - 1]! ^ (mt[i - 1]! >>> 30);
    mt[i] = ((mt[i]! ^ Math.imul(prev, 1566083941)) - i) >>> 0;
    i++;
    if (i >= 624) {
      mt[0] = mt[623]!;
      i = 1;
    }
  }
  mt[0] = 0x80000000;
}

/** MT19937's regeneration of all 624 words. */
function twist(mt: Uint32Array): void {
  for (let k = 0; k < 624; k++) {
    const y = (mt[k]! & 0x80000000) | (mt[(k + 1) % 624]! & 0x7fffffff);
    mt[k] = mt[(k + 397) % 624]! ^ (y >>> 1) ^ (y & 1 ? 0x9908b0df : 0);
  }
}

/**
 * Keys and values of token sequences the engine has already run, so that a
 * later prompt that extends one (the next model call of a multi-turn episode:
 * the previous prompt, the reply, the tool results) only runs its new tokens.
 *
 * An entry holds, per layer, keys `[kvh, d, L]` and values `[kvh, L, d]` for
 * its `L` tokens at positions `0…L-1`. Entries are valid for one version of
 * the weights: the engine clears the cache whenever the weights change.
 * Least recently used entries are evicted past the byte budget.
 */
export type PrefixCacheEntry = {
  tokens: Int32Array;
  /** Per layer `[kvh, d, L]`. */
  keys: Float32Array[];
  /** Per layer `[kvh, L, d]`. */
  values: Float32Array[];
};

/** Shortest cached prefix worth reusing. */
export const prefixMinTokens = 32;
/** Longest run of new tokens run in an extend step after a cached prefix; longer ones are prefilled. */
export const prefixMaxNewTokens = 256;

/** A prompt's reusable prefix: the first `length` tokens of `entry`. */
export type PrefixHit = { entry: PrefixCacheEntry; length: number };

export class PrefixCache {
  private entries: PrefixCacheEntry[] = [];
  private bytes = 0;
  /** Prompts served from the cache and the tokens they did not have to run, since creation. */
  readonly stats = { hits: 0, reusedTokens: 0 };

  constructor(
    /** Byte budget of the cached keys and values (0 disables the cache). */
    readonly maxBytes: number,
  ) {}

  get size(): number {
    return this.entries.length;
  }

  clear(): void {
    this.entries = [];
    this.bytes = 0;
  }

  /**
   * The entry sharing the longest prefix with `prompt`, if that prefix is at
   * least `minLength` tokens; at most `prompt.length - 1` tokens are reused,
   * so the prompt's last token always runs and yields the next logits.
   */
  match(prompt: readonly number[], minLength: number): PrefixHit | undefined {
    let best: PrefixHit | undefined;
    const limit = prompt.length - 1;
    for (const entry of this.entries) {
      const tokens = entry.tokens;
      const bound = Math.min(limit, tokens.length);
      if (bound < minLength || (best !== undefined && bound <= best.length))
        continue;
      let length = 0;
      while (length < bound && tokens[length] === prompt[length]) length++;
      if (length >= minLength && (best === undefined || length > best.length))
        best = { entry, length };
    }
    if (best !== undefined) {
      // Refresh LRU order: the most recently used entry goes last.
      this.entries.splice(this.entries.indexOf(best.entry), 1);
      this.entries.push(best.entry);
    }
    return best;
  }

  /** Counts a hit that was used. */
  recordHit(length: number): void {
    this.stats.hits += 1;
    this.stats.reusedTokens += length;
  }

  /** Adds an entry; entries it extends are dropped, then the oldest past the budget. */
  add(entry: PrefixCacheEntry): void {
    const entryBytes = byteSize(entry);
    if (entryBytes > this.maxBytes) return;
    this.entries = this.entries.filter((other) => {
      if (!isPrefix(other.tokens, entry.tokens)) return true;
      this.bytes -= byteSize(other);
      return false;
    });
    this.entries.push(entry);
    this.bytes += entryBytes;
    while (this.bytes > this.maxBytes) {
      const oldest = this.entries.shift()!;
      this.bytes -= byteSize(oldest);
    }
  }
}

function byteSize(entry: PrefixCacheEntry): number {
  let floats = 0;
  for (const keys of entry.keys) floats += keys.length;
  for (const values of entry.values) floats += values.length;
  return floats * 4 + entry.tokens.length * 4;
}

function isPrefix(shorter: Int32Array, longer: Int32Array): boolean {
  if (shorter.length > longer.length) return false;
  for (let i = 0; i < shorter.length; i++)
    if (shorter[i] !== longer[i]) return false;
  return true;
}

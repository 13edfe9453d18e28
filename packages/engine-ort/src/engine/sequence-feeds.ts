import type { ModelConfig } from '../model/model-config';
import type {
  SequenceBucket,
  SharedPrefixBucket,
} from '../model/graph-families';

/** Additive bias of masked attention slots (exp underflows to exactly 0 in fp32 and fp64). */
export const maskedBias = -1e9;

type FloatArray = Float32Array | Float64Array;

function allocate(
  floatType: 'float32' | 'float64',
  length: number,
): FloatArray {
  return floatType === 'float64'
    ? new Float64Array(length)
    : new Float32Array(length);
}

/**
 * Fills RoPE tables for given positions: `cos[i, j] = cos(pos_i · θ^(−2j/d))`
 * for `j < d/2` (rotate-half layout: both halves share the angle), computed
 * in fp64 on the host.
 */
export function fillRope({
  config,
  positions,
  cos,
  sin,
}: {
  config: ModelConfig;
  positions: ArrayLike<number>;
  cos: FloatArray;
  sin: FloatArray;
}): void {
  const half = config.headDim / 2;
  for (let i = 0; i < positions.length; i++) {
    const position = positions[i]!;
    for (let j = 0; j < half; j++) {
      const angle =
        position * Math.pow(config.ropeTheta, (-2 * j) / config.headDim);
      cos[i * half + j] = Math.cos(angle);
      sin[i * half + j] = Math.sin(angle);
    }
  }
}

/** Host-side inputs of a score or grad graph for one micro-batch. */
export type SequenceFeeds = {
  /** `[B·S]` ids, right padded with 0. */
  inputIds: BigInt64Array;
  /** `[B·S, 1]`: the next token (0 past the end). */
  targets: BigInt64Array;
  /** `[B, S, 1, d/2]`. */
  cos: FloatArray;
  /** `[B, S, 1, d/2]`. */
  sin: FloatArray;
  /** `[B, 1, 1, S, S]` causal bias. */
  bias: FloatArray;
};

const staticCache = new Map<
  string,
  { cos: FloatArray; sin: FloatArray; bias: FloatArray }
>();

/**
 * Builds the inputs for right-padded rows: row `b` holds `sequences[b]` from
 * position 0, padding after it. Causal masking alone keeps real tokens from
 * seeing padding, and every padded query still sees itself, so no row is
 * fully masked. RoPE tables and the causal bias depend only on the bucket
 * and are cached.
 */
export function buildSequenceFeeds({
  config,
  bucket,
  sequences,
  floatType,
}: {
  config: ModelConfig;
  bucket: SequenceBucket;
  sequences: ReadonlyArray<readonly number[]>;
  floatType: 'float32' | 'float64';
}): SequenceFeeds {
  const { batch, length } = bucket;
  const { inputIds, targets } = idsAndTargets(sequences, batch, length);
  const key = `${config.headDim}|${config.ropeTheta}|${batch}|${length}|${floatType}`;
  let tables = staticCache.get(key);
  if (tables === undefined) {
    const half = config.headDim / 2;
    const positions = Array.from(
      { length: batch * length },
      (_, i) => i % length,
    );
    const cos = allocate(floatType, batch * length * half);
    const sin = allocate(floatType, batch * length * half);
    fillRope({ config, positions, cos, sin });
    const bias = allocate(floatType, batch * length * length);
    for (let row = 0; row < batch; row++) {
      for (let i = 0; i < length; i++) {
        const base = (row * length + i) * length;
        for (let j = i + 1; j < length; j++) bias[base + j] = maskedBias;
      }
    }
    tables = { cos, sin, bias };
    if (staticCache.size > 64) staticCache.clear();
    staticCache.set(key, tables);
  }
  return { inputIds, targets, ...tables };
}

/** `[B·S]` ids of right-padded rows and `[B·S]` next-token targets (0 past each row's end). */
function idsAndTargets(
  rows: ReadonlyArray<readonly number[]>,
  batch: number,
  length: number,
): { inputIds: BigInt64Array; targets: BigInt64Array } {
  const inputIds = new BigInt64Array(batch * length);
  const targets = new BigInt64Array(batch * length);
  rows.forEach((row, r) => {
    for (let t = 0; t < row.length; t++) {
      inputIds[r * length + t] = BigInt(row[t]!);
      if (t + 1 < row.length) targets[r * length + t] = BigInt(row[t + 1]!);
    }
  });
  return { inputIds, targets };
}

/** Host-side inputs of a shared-prefix score or grad graph for one micro-batch. */
export type SharedPrefixFeeds = SequenceFeeds & {
  /** `[P]` the prefix's ids, right padded with 0. */
  prefixIds: BigInt64Array;
  /** `[1, P, 1, d/2]`. */
  prefixCos: FloatArray;
  /** `[1, P, 1, d/2]`. */
  prefixSin: FloatArray;
  /** `[1, 1, 1, P, P]` causal bias. */
  prefixBias: FloatArray;
};

/**
 * Builds the inputs of a shared-prefix graph: `prefix` (its real tokens,
 * padded to `bucket.prefix`) and the rows that continue it, each right
 * padded to `bucket.length`. A row's token `t` sits at position
 * `prefix.length + t`; it attends to the prefix's real tokens and to its
 * own tokens up to `t`, never to the prefix's padding.
 */
export function buildSharedPrefixFeeds({
  config,
  bucket,
  prefix,
  rows,
  floatType,
}: {
  config: ModelConfig;
  bucket: SharedPrefixBucket;
  prefix: readonly number[];
  rows: ReadonlyArray<readonly number[]>;
  floatType: 'float32' | 'float64';
}): SharedPrefixFeeds {
  const { prefix: slots, batch, length } = bucket;
  const real = prefix.length;
  const half = config.headDim / 2;
  const prefixIds = new BigInt64Array(slots);
  prefix.forEach((id, t) => (prefixIds[t] = BigInt(id)));
  const prefixCos = allocate(floatType, slots * half);
  const prefixSin = allocate(floatType, slots * half);
  fillRope({
    config,
    positions: Array.from({ length: slots }, (_, i) => i),
    cos: prefixCos,
    sin: prefixSin,
  });
  const prefixBias = allocate(floatType, slots * slots);
  for (let i = 0; i < slots; i++)
    for (let j = i + 1; j < slots; j++) prefixBias[i * slots + j] = maskedBias;
  const { inputIds, targets } = idsAndTargets(rows, batch, length);
  const cos = allocate(floatType, batch * length * half);
  const sin = allocate(floatType, batch * length * half);
  fillRope({
    config,
    positions: Array.from(
      { length: batch * length },
      (_, i) => real + (i % length),
    ),
    cos,
    sin,
  });
  const keys = slots + length;
  const bias = allocate(floatType, batch * length * keys);
  for (let r = 0; r < batch; r++) {
    for (let i = 0; i < length; i++) {
      const base = (r * length + i) * keys;
      for (let j = real; j < slots; j++) bias[base + j] = maskedBias;
      for (let j = i + 1; j < length; j++) bias[base + slots + j] = maskedBias;
    }
  }
  return {
    inputIds,
    targets,
    cos,
    sin,
    bias,
    prefixIds,
    prefixCos,
    prefixSin,
    prefixBias,
  };
}

/** Rounds a sequence length up to its bucket: powers of two to 64, then multiples of 64. */
export function lengthBucket(length: number): number {
  if (length <= 16) return 16;
  if (length <= 64) return 2 ** Math.ceil(Math.log2(length));
  return Math.ceil(length / 64) * 64;
}

/** The smallest power of two at least `n`. */
export function nextPowerOfTwo(n: number): number {
  return 2 ** Math.ceil(Math.log2(Math.max(1, n)));
}

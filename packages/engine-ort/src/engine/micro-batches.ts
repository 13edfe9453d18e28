import type { SequenceBucket } from '../model/graph-families';
import { lengthBucket, nextPowerOfTwo } from './sequence-feeds';
import type { EngineTrainSequence } from './train';

/** Shortest prefix that rows share through the shared-prefix grad graph (shorter ones gain little). */
export const minSharedPrefix = 64;

/** A training micro-batch: plain rows, or the continuations of one shared prefix. */
export type TrainMicroBatch = {
  bucket: SequenceBucket;
  rows: EngineTrainSequence[];
} & (
  | { prefix?: undefined; prefixBucket?: undefined }
  | {
      /** The shared prefix's tokens. */
      prefix: readonly number[];
      /** The prefix's bucket (its padded length). */
      prefixBucket: number;
    }
);

/** Groups sequences (longest first) into micro-batches of at most `microBatchTokens`. */
export function microBatches(
  lengths: readonly number[],
  microBatchTokens: number,
  bucketOf: (length: number) => number = lengthBucket,
): Array<{ bucket: SequenceBucket; indices: number[] }> {
  const order = lengths
    .map((_, i) => i)
    .sort((a, b) => lengths[b]! - lengths[a]! || a - b);
  const groups: Array<{ bucket: SequenceBucket; indices: number[] }> = [];
  let position = 0;
  while (position < order.length) {
    const length = bucketOf(lengths[order[position]!]!);
    const maxRows = Math.max(
      1,
      2 ** Math.floor(Math.log2(Math.max(1, microBatchTokens / length))),
    );
    const indices = order.slice(position, position + maxRows);
    position += indices.length;
    groups.push({
      bucket: {
        batch: Math.min(nextPowerOfTwo(indices.length), maxRows),
        length,
      },
      indices,
    });
  }
  return groups;
}

/**
 * The micro-batches of a training batch. With `sharePrefixes`, rows whose
 * tokens before their first weighted one are equal (and at least
 * {@link minSharedPrefix} long) go to the shared-prefix graph, each
 * cut to its continuation; the other rows, and all of them without it, go
 * to the plain grad graph in {@link microBatches}.
 */
export function trainMicroBatches(
  sequences: readonly EngineTrainSequence[],
  {
    microBatchTokens,
    sharePrefixes,
  }: { microBatchTokens: number; sharePrefixes: boolean },
): TrainMicroBatch[] {
  const plain: number[] = [];
  const groups = new Map<string, number[]>();
  sequences.forEach((sequence, i) => {
    const prefixLength = sharePrefixes ? weightlessPrefixLength(sequence) : 0;
    if (prefixLength < minSharedPrefix) {
      plain.push(i);
      return;
    }
    const key = sequence.tokenIds.slice(0, prefixLength).join(',');
    groups.set(key, [...(groups.get(key) ?? []), i]);
  });
  const batches: TrainMicroBatch[] = [];
  for (const members of groups.values()) {
    if (members.length < 2) {
      plain.push(...members);
      continue;
    }
    const first = sequences[members[0]!]!;
    const prefixLength = weightlessPrefixLength(first);
    const prefix = first.tokenIds.slice(0, prefixLength);
    const continuations = members.map((i) =>
      continuationOf(sequences[i]!, prefixLength),
    );
    // Coarser buckets than the plain graph's: every shape is a session
    // with its own arena, and prefix × continuation × rows shapes multiply.
    for (const { bucket, indices } of microBatches(
      continuations.map((row) => row.tokenIds.length),
      microBatchTokens,
      sharedBucket,
    )) {
      batches.push({
        bucket,
        rows: indices.map((k) => continuations[k]!),
        prefix,
        prefixBucket: sharedBucket(prefixLength),
      });
    }
  }
  plain.sort((a, b) => a - b);
  for (const { bucket, indices } of microBatches(
    plain.map((i) => sequences[i]!.tokenIds.length),
    microBatchTokens,
  )) {
    batches.push({ bucket, rows: indices.map((k) => sequences[plain[k]!]!) });
  }
  return batches;
}

/** The shared-prefix graph's bucket of a prefix or continuation length: multiples of 128. */
function sharedBucket(length: number): number {
  return Math.max(128, Math.ceil(length / 128) * 128);
}

/**
 * The slots of a plain micro-batch whose token has a loss weight (slot
 * `r·S + t − 1` predicts token `t` of row `r`), padded with slot 0 (its
 * weight is 0) to an eighth, a quarter or half of the batch's slots,
 * whichever first holds them; undefined when they need more. Few sizes, so
 * few sessions: each size is its own graph.
 */
export function weightedSlots(
  { batch, length }: SequenceBucket,
  rows: ReadonlyArray<{ tokenWeights: readonly number[] }>,
): Int32Array | undefined {
  const tokens = batch * length;
  const found: number[] = [];
  rows.forEach((row, r) => {
    for (let t = 1; t < row.tokenWeights.length; t++)
      if (row.tokenWeights[t] !== 0) found.push(r * length + t - 1);
  });
  for (const share of [8, 4, 2]) {
    const size = tokens / share;
    if (!Number.isInteger(size) || found.length > size) continue;
    const slots = new Int32Array(size);
    slots.set(found);
    return slots;
  }
  return undefined;
}

/**
 * The tokens of a row before the first token it is trained on, less one:
 * the row's continuation starts at the token whose slot predicts the first
 * weighted token. 0 when no token is weighted.
 */
function weightlessPrefixLength(sequence: EngineTrainSequence): number {
  for (let t = 1; t < sequence.tokenWeights.length; t++)
    if (sequence.tokenWeights[t] !== 0) return t - 1;
  return 0;
}

/** A row from position `offset` on: its tokens and per-token values, cut alike. */
function continuationOf(
  sequence: EngineTrainSequence,
  offset: number,
): EngineTrainSequence {
  return {
    tokenIds: sequence.tokenIds.slice(offset),
    tokenWeights: sequence.tokenWeights.slice(offset),
    advantages: sequence.advantages?.slice(offset),
    oldLogprobs: sequence.oldLogprobs?.slice(offset),
    refLogprobs: sequence.refLogprobs?.slice(offset),
  };
}

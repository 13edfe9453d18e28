/** Float type of a graph: fp32 normally, fp64 for gradient checks and parity. */
export type FloatType = 'float32' | 'float64';

/** A serialised graph. */
export type BuiltGraph = {
  /** The ONNX model bytes. */
  model: Uint8Array;
  /** Number of nodes, for diagnostics. */
  nodeCount: number;
};

/** Training objectives with their own grad graph. */
export type TrainObjective = 'ppo' | 'cross-entropy';

/**
 * Shape bucket of a full-sequence graph: `batch` rows of `length` tokens.
 * With `selected`, the graph computes the log-probabilities of only that
 * many token slots, named by its `slots` input; otherwise of all `B·S`.
 */
export type SequenceBucket = {
  batch: number;
  length: number;
  selected?: number;
};

/** The number of token slots whose log-probabilities a sequence graph computes. */
export function scoredSlots(bucket: SequenceBucket): number {
  return bucket.selected ?? bucket.batch * bucket.length;
}

/**
 * Shape bucket of a shared-prefix graph: one prefix of `prefix` tokens and
 * `batch` continuations of `length` tokens each.
 */
export type SharedPrefixBucket = {
  prefix: number;
  batch: number;
  length: number;
};

import type { GraphBuilder, Value } from '../../graph/graph-builder';
import {
  buildDecoder,
  lmHeadWeight,
  type WeightValues,
} from '../decoder-graph';
import type { ModelConfig } from '../model-config';
import { scoredSlots, type SequenceBucket } from './graph-types';

/** The per-batch inputs of the full-sequence graphs. */
export type SequenceInputValues = {
  inputIds: Value;
  /** `[K, 1]`: the next token of each scored slot. */
  targets: Value;
  /** `[K]` int64 flat slots `b·S + t` whose log-probabilities are computed (with `bucket.selected`). */
  slots?: Value;
  cos: Value;
  sin: Value;
  bias: Value;
};

/**
 * Declares `input_ids`, `targets`, `rope_cos`, `rope_sin`, `attention_bias`,
 * and with `bucket.selected` the `slots` that are scored.
 */
export function sequenceInputs({
  builder: g,
  config,
  bucket,
}: {
  builder: GraphBuilder;
  config: ModelConfig;
  bucket: SequenceBucket;
}): SequenceInputValues {
  const { batch, length, selected } = bucket;
  const tokens = batch * length;
  const half = config.headDim / 2;
  return {
    inputIds: g.input({ name: 'input_ids', shape: [tokens], dtype: 'int64' }),
    targets: g.input({
      name: 'targets',
      shape: [scoredSlots(bucket), 1],
      dtype: 'int64',
    }),
    ...(selected === undefined
      ? {}
      : {
          slots: g.input({ name: 'slots', shape: [selected], dtype: 'int64' }),
        }),
    cos: g.input({ name: 'rope_cos', shape: [batch, length, 1, half] }),
    sin: g.input({ name: 'rope_sin', shape: [batch, length, 1, half] }),
    bias: g.input({
      name: 'attention_bias',
      shape: [batch, 1, 1, length, length],
    }),
  };
}

/**
 * Forward to per-token log-probabilities `[B·S]`: `lp[t] = log p(targets[t]
 * | inputs[≤t])` under `softmax(logits · inverseTemperature)`. Shared by the
 * score and grad graphs, so both compute bit-identical numbers for the same
 * weights and batch. The scale multiplies the final hidden state (`[B·S, H]`)
 * rather than the logits (`[B·S, V]`): the same product, V/H times cheaper.
 * With `slots` (`[K]`), the final norm, the LM head and the log-softmax run
 * on those hidden rows only, and the output is `[K]`: the vocabulary-sized
 * work is the largest per-token cost after the decoder, and a PPO loss
 * weights only the generated tokens (about a tenth of an episode's).
 */
export function forwardLogprobs({
  builder: g,
  config,
  weights,
  bucket,
  inputs,
  inverseTemperature,
  queryBlocks,
}: {
  builder: GraphBuilder;
  config: ModelConfig;
  weights: WeightValues;
  bucket: SequenceBucket;
  inputs: SequenceInputValues;
  inverseTemperature: Value;
  /** Query blocks of the causal attention (default: by length, see `causalQueryBlocks`). */
  queryBlocks?: number;
}): Value {
  const { hidden } = buildDecoder({
    queryBlocks,
    builder: g,
    config,
    weights,
    inputIds: inputs.inputIds,
    cos: inputs.cos,
    sin: inputs.sin,
    bias: inputs.bias,
    batch: bucket.batch,
    length: bucket.length,
    ...(inputs.slots === undefined ? {} : { outputRows: inputs.slots }),
  });
  const logits = g.linear(
    g.mul(hidden, inverseTemperature),
    lmHeadWeight({ config, weights }),
  );
  return g.chosenLogprob(logits, inputs.targets);
}

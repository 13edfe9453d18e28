import type { GraphBuilder, Value } from '../../graph/graph-builder';
import {
  buildSharedPrefixDecoder,
  lmHeadWeight,
  type WeightValues,
} from '../decoder-graph';
import type { ModelConfig } from '../model-config';
import type { SharedPrefixBucket } from './graph-types';

/**
 * The inputs of the shared-prefix graphs: `prefix_ids` `[P]`, `prefix_cos`,
 * `prefix_sin` `[1, P, 1, d/2]`, `prefix_bias` `[1, 1, 1, P, P]`; and for the
 * continuations `input_ids`, `targets` `[B·S]` (`[B·S, 1]`), `rope_cos`,
 * `rope_sin` `[B, S, 1, d/2]` and `attention_bias` `[B, 1, 1, S, P + S]`.
 */
export function sharedPrefixLogprobs({
  builder: g,
  config,
  weights,
  bucket,
}: {
  builder: GraphBuilder;
  config: ModelConfig;
  weights: WeightValues;
  bucket: SharedPrefixBucket;
}): Value {
  const { prefix, batch, length } = bucket;
  const half = config.headDim / 2;
  const tokens = batch * length;
  const { hidden } = buildSharedPrefixDecoder({
    builder: g,
    config,
    weights,
    prefix: {
      inputIds: g.input({
        name: 'prefix_ids',
        shape: [prefix],
        dtype: 'int64',
      }),
      cos: g.input({ name: 'prefix_cos', shape: [1, prefix, 1, half] }),
      sin: g.input({ name: 'prefix_sin', shape: [1, prefix, 1, half] }),
      bias: g.input({ name: 'prefix_bias', shape: [1, 1, 1, prefix, prefix] }),
      length: prefix,
    },
    rows: {
      inputIds: g.input({ name: 'input_ids', shape: [tokens], dtype: 'int64' }),
      cos: g.input({ name: 'rope_cos', shape: [batch, length, 1, half] }),
      sin: g.input({ name: 'rope_sin', shape: [batch, length, 1, half] }),
      bias: g.input({
        name: 'attention_bias',
        shape: [batch, 1, 1, length, prefix + length],
      }),
      batch,
      length,
    },
  });
  const targets = g.input({
    name: 'targets',
    shape: [tokens, 1],
    dtype: 'int64',
  });
  const inverseTemperature = g.input({
    name: 'inverse_temperature',
    shape: [],
  });
  const logits = g.linear(
    g.mul(hidden, inverseTemperature),
    lmHeadWeight({ config, weights }),
  );
  return g.chosenLogprob(logits, targets);
}

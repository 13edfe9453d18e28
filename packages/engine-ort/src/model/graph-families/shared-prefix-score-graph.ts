import { GraphBuilder, type MatmulPrecision } from '../../graph/graph-builder';
import { declareWeights } from '../decoder-graph';
import type { ModelConfig } from '../model-config';
import type { BuiltGraph, FloatType, SharedPrefixBucket } from './graph-types';
import { sharedPrefixLogprobs } from './shared-prefix-forward';

/**
 * The score graph of rows sharing a prefix: output `logprobs` `[B·S]`, slot
 * `t` of row `b` the log-probability of its token `t + 1` (as the score
 * graph's, for the continuations only). Inputs as the shared-prefix grad
 * graph's, without the loss inputs.
 */
export function buildSharedPrefixScoreGraph({
  config,
  bucket,
  floatType = 'float32',
  matmulPrecision,
}: {
  config: ModelConfig;
  bucket: SharedPrefixBucket;
  floatType?: FloatType;
  matmulPrecision?: MatmulPrecision | undefined;
}): BuiltGraph {
  const g = new GraphBuilder({ floatType, matmulPrecision });
  const weights = declareWeights({ builder: g, config, requiresGrad: false });
  g.output(
    sharedPrefixLogprobs({ builder: g, config, weights, bucket }),
    'logprobs',
  );
  return { model: g.toOnnx({ name: 'score-shared' }), nodeCount: g.nodeCount };
}

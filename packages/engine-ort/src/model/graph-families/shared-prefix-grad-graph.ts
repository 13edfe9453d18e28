import { GraphBuilder, type MatmulPrecision } from '../../graph/graph-builder';
import { declareWeights } from '../decoder-graph';
import type { ModelConfig } from '../model-config';
import { addLossAndGradients } from './grad-graph';
import {
  scoredSlots,
  type BuiltGraph,
  type FloatType,
  type SharedPrefixBucket,
  type TrainObjective,
} from './graph-types';
import { sharedPrefixLogprobs } from './shared-prefix-forward';

/**
 * The grad graph of rows that share a prefix ({@link buildSharedPrefixDecoder}):
 * the same loss, outputs and accumulators as {@link buildGradGraph} over the
 * continuations' tokens, with the prefix's forward and backward computed
 * once for all rows. Equal to the grad graph of the full rows when the
 * prefix's own positions carry no loss weight.
 */
export function buildSharedPrefixGradGraph({
  config,
  bucket,
  objective,
  floatType = 'float32',
  matmulPrecision,
  lossScaling = false,
}: {
  config: ModelConfig;
  bucket: SharedPrefixBucket;
  objective: TrainObjective;
  floatType?: FloatType;
  matmulPrecision?: MatmulPrecision | undefined;
  lossScaling?: boolean;
}): BuiltGraph {
  const g = new GraphBuilder({ floatType, matmulPrecision });
  const weights = declareWeights({ builder: g, config, requiresGrad: true });
  const logprobs = sharedPrefixLogprobs({
    builder: g,
    config,
    weights,
    bucket,
  });
  addLossAndGradients({
    builder: g,
    config,
    weights,
    logprobs,
    tokens: scoredSlots(bucket),
    objective,
    lossScaling,
  });
  return {
    model: g.toOnnx({ name: `grad-shared-${objective}` }),
    nodeCount: g.nodeCount,
  };
}

import { GraphBuilder, type MatmulPrecision } from '../../graph/graph-builder';
import { declareWeights } from '../decoder-graph';
import type { ModelConfig } from '../model-config';
import type { BuiltGraph, FloatType, SequenceBucket } from './graph-types';
import { forwardLogprobs, sequenceInputs } from './sequence-forward';

/**
 * The score graph: per-token log-probabilities of given sequences under
 * temperature `1 / inverse_temperature` (a scalar input). Output `logprobs` `[B·S]`.
 */
export function buildScoreGraph({
  config,
  bucket,
  floatType = 'float32',
  matmulPrecision,
}: {
  config: ModelConfig;
  bucket: SequenceBucket;
  floatType?: FloatType;
  /** Reduced-precision matrix products (default: none, products in `floatType`). */
  matmulPrecision?: MatmulPrecision | undefined;
}): BuiltGraph {
  const g = new GraphBuilder({ floatType, matmulPrecision });
  const weights = declareWeights({ builder: g, config, requiresGrad: false });
  const inputs = sequenceInputs({ builder: g, config, bucket });
  const inverseTemperature = g.input({
    name: 'inverse_temperature',
    shape: [],
  });
  g.output(
    forwardLogprobs({
      builder: g,
      config,
      weights,
      bucket,
      inputs,
      inverseTemperature,
    }),
    'logprobs',
  );
  return { model: g.toOnnx({ name: 'score' }), nodeCount: g.nodeCount };
}

import { GraphBuilder, type MatmulPrecision } from '../../graph/graph-builder';
import { buildDecoder, declareWeights, lmHeadWeight } from '../decoder-graph';
import type { ModelConfig } from '../model-config';
import type { BuiltGraph, FloatType, SequenceBucket } from './graph-types';
import { sequenceInputs } from './sequence-forward';

/**
 * Full logits `[B·S, V]` of right-padded sequences (parity tests and
 * debugging; the engine itself never materialises them outside the loss).
 */
export function buildLogitsGraph({
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
  const { hidden } = buildDecoder({
    builder: g,
    config,
    weights,
    inputIds: inputs.inputIds,
    cos: inputs.cos,
    sin: inputs.sin,
    bias: inputs.bias,
    batch: bucket.batch,
    length: bucket.length,
  });
  g.output(g.linear(hidden, lmHeadWeight({ config, weights })), 'logits');
  return { model: g.toOnnx({ name: 'logits' }), nodeCount: g.nodeCount };
}

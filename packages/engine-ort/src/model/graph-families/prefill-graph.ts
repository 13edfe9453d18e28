import { GraphBuilder, type MatmulPrecision } from '../../graph/graph-builder';
import { buildDecoder, declareWeights } from '../decoder-graph';
import type { ModelConfig } from '../model-config';
import type { BuiltGraph, FloatType, SequenceBucket } from './graph-types';
import { cacheOutputs, lastTokenLogits } from './kv-cache-io';

/**
 * The prefill graph: a left-padded prompt batch through the decoder.
 * Outputs `logits` `[B, V]` at the last position, and per layer
 * `present_keys.<l>` `[B, kvh, d, S]` and `present_values.<l>` `[B, kvh, S, d]`.
 */
export function buildPrefillGraph({
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
  const { batch, length } = bucket;
  const half = config.headDim / 2;
  const { hidden, caches } = buildDecoder({
    builder: g,
    config,
    weights,
    inputIds: g.input({
      name: 'input_ids',
      shape: [batch * length],
      dtype: 'int64',
    }),
    cos: g.input({ name: 'rope_cos', shape: [batch, length, 1, half] }),
    sin: g.input({ name: 'rope_sin', shape: [batch, length, 1, half] }),
    bias: g.input({
      name: 'attention_bias',
      shape: [batch, 1, 1, length, length],
    }),
    batch,
    length,
  });
  g.output(
    lastTokenLogits({ builder: g, config, weights, hidden, batch, length }),
    'logits',
  );
  cacheOutputs({
    builder: g,
    prefix: 'present',
    keys: caches.map((cache) => cache.keysTransposed),
    values: caches.map((cache) => cache.values),
  });
  return { model: g.toOnnx({ name: 'prefill' }), nodeCount: g.nodeCount };
}

import { GraphBuilder, type MatmulPrecision } from '../../graph/graph-builder';
import { buildExtendStep, declareWeights } from '../decoder-graph';
import type { ModelConfig } from '../model-config';
import type { BuiltGraph, FloatType } from './graph-types';
import { cacheInputs, cacheOutputs, lastTokenLogits } from './kv-cache-io';

/**
 * The extend graph: `length` new tokens per row against a KV cache of
 * `cacheLength` slots (a multi-turn prompt's tokens after its cached prefix).
 * Inputs `input_ids` `[B·T]`, `rope_cos`/`rope_sin` `[B,T,1,d/2]`,
 * `attention_bias` `[B,1,1,T,P+T]`, `cache_keys.<l>`
 * `[B,kvh,d,P]`, `cache_values.<l>` `[B,kvh,P,d]`. Outputs `logits` `[B,V]`
 * (of each row's last token), `new_keys.<l>` `[B,kvh,d,T]` and
 * `new_values.<l>` `[B,kvh,T,d]`, in the cache's layouts.
 */
export function buildExtendGraph({
  config,
  batch,
  length,
  cacheLength,
  floatType = 'float32',
  matmulPrecision,
}: {
  config: ModelConfig;
  batch: number;
  length: number;
  cacheLength: number;
  floatType?: FloatType;
  /** Reduced-precision matrix products (default: none). The KV cache stays float32. */
  matmulPrecision?: MatmulPrecision | undefined;
}): BuiltGraph {
  const g = new GraphBuilder({ floatType, matmulPrecision });
  const weights = declareWeights({ builder: g, config, requiresGrad: false });
  const half = config.headDim / 2;
  const { cacheKeys, cacheValues } = cacheInputs({
    builder: g,
    config,
    batch,
    cacheLength,
  });
  const { hidden, newKeys, newValues } = buildExtendStep({
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
      shape: [batch, 1, 1, length, cacheLength + length],
    }),
    cacheKeys,
    cacheValues,
    batch,
    length,
    cacheLength,
  });
  g.output(
    lastTokenLogits({ builder: g, config, weights, hidden, batch, length }),
    'logits',
  );
  cacheOutputs({ builder: g, prefix: 'new', keys: newKeys, values: newValues });
  return { model: g.toOnnx({ name: 'extend' }), nodeCount: g.nodeCount };
}

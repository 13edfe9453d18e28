import type { GraphBuilder, Value } from '../../graph/graph-builder';
import { lmHeadWeight, type WeightValues } from '../decoder-graph';
import type { ModelConfig } from '../model-config';

/** Declares the KV-cache inputs `cache_keys.<l>` `[B,kvh,d,P]` and `cache_values.<l>` `[B,kvh,P,d]`. */
export function cacheInputs({
  builder: g,
  config,
  batch,
  cacheLength,
}: {
  builder: GraphBuilder;
  config: ModelConfig;
  batch: number;
  cacheLength: number;
}): { cacheKeys: Value[]; cacheValues: Value[] } {
  const kvh = config.numKeyValueHeads;
  const d = config.headDim;
  const cacheKeys: Value[] = [];
  const cacheValues: Value[] = [];
  for (let layer = 0; layer < config.numLayers; layer++) {
    cacheKeys.push(
      g.input({
        name: `cache_keys.${layer}`,
        shape: [batch, kvh, d, cacheLength],
      }),
    );
    cacheValues.push(
      g.input({
        name: `cache_values.${layer}`,
        shape: [batch, kvh, cacheLength, d],
      }),
    );
  }
  return { cacheKeys, cacheValues };
}

/** Outputs each layer's keys and values as `<prefix>_keys.<l>` and `<prefix>_values.<l>`. */
export function cacheOutputs({
  builder: g,
  prefix,
  keys,
  values,
}: {
  builder: GraphBuilder;
  prefix: string;
  keys: Value[];
  values: Value[];
}): void {
  keys.forEach((key, layer) => {
    g.output(key, `${prefix}_keys.${layer}`);
    g.output(values[layer]!, `${prefix}_values.${layer}`);
  });
}

/** The logits `[B, V]` of each row's last position, from final hidden rows `[B·S, H]`. */
export function lastTokenLogits({
  builder: g,
  config,
  weights,
  hidden,
  batch,
  length,
}: {
  builder: GraphBuilder;
  config: ModelConfig;
  weights: WeightValues;
  hidden: Value;
  batch: number;
  length: number;
}): Value {
  const rows = g.reshape(hidden, [batch, length, config.hiddenSize]);
  const last = g.reshape(g.slice(rows, 1, length - 1, length), [
    batch,
    config.hiddenSize,
  ]);
  return g.linear(last, lmHeadWeight({ config, weights }));
}

import {
  GraphBuilder,
  type MatmulPrecision,
  type Value,
} from '../../graph/graph-builder';
import {
  buildDecodeStep,
  declareWeights,
  lmHeadWeight,
} from '../decoder-graph';
import type { ModelConfig } from '../model-config';
import type { BuiltGraph, FloatType } from './graph-types';
import { cacheInputs, cacheOutputs } from './kv-cache-io';

/**
 * The decode graph: one token per row against a KV cache of `cacheLength`
 * slots. Inputs `input_ids` `[B]`, `rope_cos`/`rope_sin` `[B,1,1,d/2]`,
 * `past_bias` `[B,1,1,P]`, `cache_keys.<l>` `[B,kvh,d,P]`,
 * `cache_values.<l>` `[B,kvh,P,d]`. Outputs `logits` `[B,V]`,
 * `new_keys.<l>` and `new_values.<l>` `[B,kvh,1,d]`.
 *
 * With `residentCache` the graph also writes the cache, so that it can stay
 * on the device between steps: an extra input `slot_onehot` `[P]` (1 at the
 * slot this step fills, 0 elsewhere) and outputs `present_keys.<l>` and
 * `present_values.<l>` (the cache with that slot set to this step's key and
 * value, fed back as the next step's `cache_*`). The new keys and values
 * then come out packed in one output, `new_kv` `[2L,B,kvh,d]` (layer `l`'s
 * keys at `2l`, values at `2l+1`), so a device reads them back in one
 * transfer.
 */
export function buildDecodeGraph({
  config,
  batch,
  cacheLength,
  floatType = 'float32',
  matmulPrecision,
  residentCache = false,
  attention = 'where',
}: {
  config: ModelConfig;
  batch: number;
  cacheLength: number;
  floatType?: FloatType;
  /** Reduced-precision matrix products (default: none). The KV cache stays float32. */
  matmulPrecision?: MatmulPrecision | undefined;
  /** Output the updated cache (see above); default false. */
  residentCache?: boolean;
  /**
   * How the step attends and writes the cache: `where` (default, above) or
   * `gqa`, ONNX Runtime's `GroupQueryAttention` (decision engine-013), which
   * writes the slot itself, in place when the caller binds `present_*` to
   * the buffers it feeds as `cache_*`. A `gqa` graph always outputs the
   * cache (as with `residentCache`) and takes, instead of `past_bias` and
   * `slot_onehot`: `attention_bias` `[B,1,1,P]` (0 on each row's slots
   * `[pad, slot]`, this step's included), `seqlens_k` `[B]` int32 (the slot)
   * and `total_sequence_length` `[1]` int32 (slot + 1). Its `cache_keys.<l>`
   * are `[B,kvh,P,d]`, the layout of the values.
   */
  attention?: DecodeAttention;
}): BuiltGraph {
  if (attention === 'gqa') {
    return buildGqaDecodeGraph({
      config,
      batch,
      cacheLength,
      floatType,
      matmulPrecision,
    });
  }
  const g = new GraphBuilder({ floatType, matmulPrecision });
  const weights = declareWeights({ builder: g, config, requiresGrad: false });
  const half = config.headDim / 2;
  const { cacheKeys, cacheValues } = cacheInputs({
    builder: g,
    config,
    batch,
    cacheLength,
  });
  const { hidden, newKeys, newValues } = buildDecodeStep({
    builder: g,
    config,
    weights,
    inputIds: g.input({ name: 'input_ids', shape: [batch], dtype: 'int64' }),
    cos: g.input({ name: 'rope_cos', shape: [batch, 1, 1, half] }),
    sin: g.input({ name: 'rope_sin', shape: [batch, 1, 1, half] }),
    pastBias: g.input({ name: 'past_bias', shape: [batch, 1, 1, cacheLength] }),
    cacheKeys,
    cacheValues,
    batch,
    cacheLength,
  });
  g.output(g.linear(hidden, lmHeadWeight({ config, weights })), 'logits');
  if (!residentCache) {
    cacheOutputs({
      builder: g,
      prefix: 'new',
      keys: newKeys,
      values: newValues,
    });
    return { model: g.toOnnx({ name: 'decode' }), nodeCount: g.nodeCount };
  }
  const { numKeyValueHeads: kvh, headDim: d } = config;
  const onehot = g.input({ name: 'slot_onehot', shape: [cacheLength] });
  const threshold = g.scalar(0.5);
  const keySlot = g.compare(
    'Greater',
    g.reshape(onehot, [1, 1, 1, cacheLength]),
    threshold,
  );
  const valueSlot = g.compare(
    'Greater',
    g.reshape(onehot, [1, 1, cacheLength, 1]),
    threshold,
  );
  const packed: Value[] = [];
  newKeys.forEach((key, layer) => {
    // [B,kvh,1,d] and [B,kvh,d,1] share one memory layout.
    g.output(
      g.where(keySlot, g.reshape(key, [batch, kvh, d, 1]), cacheKeys[layer]!),
      `present_keys.${layer}`,
    );
    g.output(
      g.where(valueSlot, newValues[layer]!, cacheValues[layer]!),
      `present_values.${layer}`,
    );
    packed.push(
      g.reshape(key, [1, batch, kvh, d]),
      g.reshape(newValues[layer]!, [1, batch, kvh, d]),
    );
  });
  g.output(g.concat(packed, 0), 'new_kv');
  return { model: g.toOnnx({ name: 'decode' }), nodeCount: g.nodeCount };
}

/** How a decode or extend graph attends (see {@link buildDecodeGraph}). */
export type DecodeAttention = 'where' | 'gqa';

/** Every accepted value of {@link DecodeAttention}. */
export const decodeAttentions = [
  'where',
  'gqa',
] as const satisfies readonly DecodeAttention[];

/** The decode graph through `GroupQueryAttention` (see {@link buildDecodeGraph}). */
function buildGqaDecodeGraph({
  config,
  batch,
  cacheLength,
  floatType,
  matmulPrecision,
}: {
  config: ModelConfig;
  batch: number;
  cacheLength: number;
  floatType: FloatType;
  matmulPrecision: MatmulPrecision | undefined;
}): BuiltGraph {
  const g = new GraphBuilder({ floatType, matmulPrecision });
  const weights = declareWeights({ builder: g, config, requiresGrad: false });
  const { numKeyValueHeads: kvh, headDim: d, numLayers } = config;
  const half = d / 2;
  const cacheKeys: Value[] = [];
  const cacheValues: Value[] = [];
  for (let layer = 0; layer < numLayers; layer++) {
    cacheKeys.push(
      g.input({
        name: `cache_keys.${layer}`,
        shape: [batch, kvh, cacheLength, d],
      }),
    );
    cacheValues.push(
      g.input({
        name: `cache_values.${layer}`,
        shape: [batch, kvh, cacheLength, d],
      }),
    );
  }
  const totalLength = g.input({
    name: 'total_sequence_length',
    shape: [1],
    dtype: 'int32',
  });
  const fullBias = g.input({
    name: 'attention_bias',
    shape: [batch, 1, 1, cacheLength],
  });
  // The operator reads a bias over the slots it attends, [0, slot + 1).
  const [slicedBias] = g.node(
    'Slice',
    [
      fullBias,
      g.constant({ dtype: 'int64', shape: [1], values: [0] }),
      g.cast(totalLength, 'int64'),
      g.constant({ dtype: 'int64', shape: [1], values: [3] }),
    ],
    [{ dtype: fullBias.dtype, shape: [batch, 1, 1, cacheLength] }],
  );
  // One bias row per query head, `[B, nh, 1, slot + 1]`: the CPU kernel
  // broadcasts a head dimension of 1, but WebGPU's flash-attention decode
  // (as read in ORT's source before its bias-broadcast change) indexes the
  // bias as `(b·nh + h)·T`, so with one row per batch entry a head would read
  // another row's mask (decision engine-013).
  const [attentionBias] = g.node(
    'Expand',
    [
      slicedBias!,
      g.constant({
        dtype: 'int64',
        shape: [4],
        values: [1, config.numHeads, 1, 1],
      }),
    ],
    [
      {
        dtype: fullBias.dtype,
        shape: [batch, config.numHeads, 1, cacheLength],
      },
    ],
  );
  const { hidden, newKeys, newValues, presentKeys, presentValues } =
    buildDecodeStep({
      builder: g,
      config,
      weights,
      inputIds: g.input({ name: 'input_ids', shape: [batch], dtype: 'int64' }),
      cos: g.input({ name: 'rope_cos', shape: [batch, 1, 1, half] }),
      sin: g.input({ name: 'rope_sin', shape: [batch, 1, 1, half] }),
      pastBias: undefined,
      cacheKeys,
      cacheValues,
      batch,
      cacheLength,
      gqa: {
        attentionBias: attentionBias!,
        seqlensK: g.input({
          name: 'seqlens_k',
          shape: [batch],
          dtype: 'int32',
        }),
        totalLength,
      },
    });
  g.output(g.linear(hidden, lmHeadWeight({ config, weights })), 'logits');
  const packed: Value[] = [];
  for (let layer = 0; layer < numLayers; layer++) {
    g.output(presentKeys[layer]!, `present_keys.${layer}`);
    g.output(presentValues[layer]!, `present_values.${layer}`);
    packed.push(
      g.reshape(newKeys[layer]!, [1, batch, kvh, d]),
      g.reshape(newValues[layer]!, [1, batch, kvh, d]),
    );
  }
  g.output(g.concat(packed, 0), 'new_kv');
  return { model: g.toOnnx({ name: 'decode-gqa' }), nodeCount: g.nodeCount };
}

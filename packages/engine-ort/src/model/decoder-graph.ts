import { SealError } from '@seal/spec';
import type { GraphBuilder, Value } from '../graph/graph-builder';
import type { ModelConfig } from './model-config';
import { listWeightSpecs } from './model-weights';

/** The weight inputs of a graph, by Hugging Face name. */
export type WeightValues = Map<string, Value>;

/** Declares every weight as a graph input (named as in the checkpoint). */
export function declareWeights({
  builder,
  config,
  requiresGrad,
}: {
  builder: GraphBuilder;
  config: ModelConfig;
  requiresGrad: boolean;
}): WeightValues {
  const weights: WeightValues = new Map();
  for (const spec of listWeightSpecs(config)) {
    weights.set(
      spec.name,
      builder.input({ name: spec.name, shape: spec.shape, requiresGrad }),
    );
  }
  return weights;
}

function weight(weights: WeightValues, name: string): Value {
  return weights.get(name)!;
}

function optionalWeight(
  weights: WeightValues,
  name: string,
): Value | undefined {
  return weights.get(name);
}

/** Per-layer query/key/value projections with RoPE applied. */
type Projections = {
  /** `[B, S, numHeads, headDim]`, rotated and scaled by `1/sqrt(headDim)`. */
  q: Value;
  /** `[B, S, kvHeads, headDim]`, rotated. */
  k: Value;
  /** `[B, S, kvHeads, headDim]`. */
  v: Value;
};

function project({
  builder: g,
  config,
  weights,
  layer,
  x,
  batch,
  length,
  cos,
  sin,
}: {
  builder: GraphBuilder;
  config: ModelConfig;
  weights: WeightValues;
  layer: number;
  x: Value;
  batch: number;
  length: number;
  cos: Value;
  sin: Value;
}): Projections {
  const p = `model.layers.${layer}.self_attn`;
  const { numHeads, numKeyValueHeads, headDim } = config;
  const q = g.reshape(
    g.linear(
      x,
      weight(weights, `${p}.q_proj.weight`),
      optionalWeight(weights, `${p}.q_proj.bias`),
    ),
    [batch, length, numHeads, headDim],
  );
  const k = g.reshape(
    g.linear(
      x,
      weight(weights, `${p}.k_proj.weight`),
      optionalWeight(weights, `${p}.k_proj.bias`),
    ),
    [batch, length, numKeyValueHeads, headDim],
  );
  const v = g.reshape(
    g.linear(
      x,
      weight(weights, `${p}.v_proj.weight`),
      optionalWeight(weights, `${p}.v_proj.bias`),
    ),
    [batch, length, numKeyValueHeads, headDim],
  );
  const scale = g.scalar(1 / Math.sqrt(headDim));
  return { q: g.mul(g.rope(q, cos, sin), scale), k: g.rope(k, cos, sin), v };
}

function mlpBlock({
  builder: g,
  config,
  weights,
  layer,
  hidden,
}: {
  builder: GraphBuilder;
  config: ModelConfig;
  weights: WeightValues;
  layer: number;
  hidden: Value;
}): Value {
  const p = `model.layers.${layer}`;
  const x = g.rmsNorm(
    hidden,
    weight(weights, `${p}.post_attention_layernorm.weight`),
    config.rmsNormEps,
  );
  const gate = g.linear(x, weight(weights, `${p}.mlp.gate_proj.weight`));
  const up = g.linear(x, weight(weights, `${p}.mlp.up_proj.weight`));
  return g.add(
    hidden,
    g.linear(g.swiglu(gate, up), weight(weights, `${p}.mlp.down_proj.weight`)),
  );
}

/** The attention heads of a full-sequence layer, laid out for `GraphBuilder.attention`. */
type AttentionHeads = {
  /** Queries `[B, kvh, rep·S, d]` (rows `r·S + t`: head `h = kv·rep + r`). */
  q: Value;
  /** Keys, transposed: `[B, kvh, d, S]`. */
  kT: Value;
  /** Values: `[B, kvh, S, d]`. */
  v: Value;
};

/**
 * One pre-norm decoder block over `[B·S, H]` rows: RMSNorm, the q/k/v
 * projections with RoPE, `attend` (which returns `[B, kvh, rep·S, d]`), the
 * output projection and residual, then the MLP block. Returns the new rows
 * and the layer's keys and values (for a KV cache).
 */
function decoderLayer({
  builder: g,
  config,
  weights,
  layer,
  hidden,
  batch,
  length,
  cos,
  sin,
  attend,
}: {
  builder: GraphBuilder;
  config: ModelConfig;
  weights: WeightValues;
  layer: number;
  hidden: Value;
  batch: number;
  length: number;
  cos: Value;
  sin: Value;
  attend: (heads: AttentionHeads) => Value;
}): { hidden: Value; kT: Value; v: Value } {
  const { numHeads, numKeyValueHeads, headDim } = config;
  const rep = numHeads / numKeyValueHeads;
  const p = `model.layers.${layer}`;
  const x = g.rmsNorm(
    hidden,
    weight(weights, `${p}.input_layernorm.weight`),
    config.rmsNormEps,
  );
  const projections = project({
    builder: g,
    config,
    weights,
    layer,
    x,
    batch,
    length,
    cos,
    sin,
  });
  // [B, S, nh, d] -> [B, nh, S, d] -> [B, kvh, rep·S, d].
  const q = g.reshape(g.transpose(projections.q, [0, 2, 1, 3]), [
    batch,
    numKeyValueHeads,
    rep * length,
    headDim,
  ]);
  const kT = g.transpose(projections.k, [0, 2, 3, 1]);
  const v = g.transpose(projections.v, [0, 2, 1, 3]);
  const attended = attend({ q, kT, v });
  const merged = g.reshape(
    g.transpose(
      g.reshape(attended, [batch, numHeads, length, headDim]),
      [0, 2, 1, 3],
    ),
    [batch * length, numHeads * headDim],
  );
  const residual = g.add(
    hidden,
    g.linear(merged, weight(weights, `${p}.self_attn.o_proj.weight`)),
  );
  return {
    hidden: mlpBlock({ builder: g, config, weights, layer, hidden: residual }),
    kT,
    v,
  };
}

/** Key/value tensors a layer hands to the KV cache. */
export type LayerCache = {
  /** Keys, transposed for the cache: `[B, kvHeads, headDim, S]`. */
  keysTransposed: Value;
  /** Values: `[B, kvHeads, S, headDim]`. */
  values: Value;
};

/**
 * The decoder over full sequences (training, scoring and prefill):
 * embeddings, `numLayers` pre-norm blocks (GQA attention with RoPE, SwiGLU
 * MLP), and the final RMSNorm. Activations are kept as `[B·S, H]` rows so
 * every projection is one Gemm. Returns the final hidden rows and each
 * layer's keys and values.
 */
export function buildDecoder({
  builder: g,
  config,
  weights,
  inputIds,
  cos,
  sin,
  bias,
  batch,
  length,
  queryBlocks = causalQueryBlocks(length),
  outputRows,
}: {
  builder: GraphBuilder;
  config: ModelConfig;
  weights: WeightValues;
  /**
   * `[K]` int64 rows of the `[B·S, H]` hidden state to return (gathered
   * before the final norm, which is per row); default all.
   */
  outputRows?: Value;
  /** `[B·S]` int64 token ids. */
  inputIds: Value;
  /** `[B, S, 1, headDim/2]` RoPE cosines. */
  cos: Value;
  /** `[B, S, 1, headDim/2]` RoPE sines. */
  sin: Value;
  /** `[B, 1, 1, S, S]` additive attention bias: causal, or stricter (padding, packing). */
  bias: Value;
  batch: number;
  length: number;
  /**
   * Query blocks of the causal attention (a divisor of `length`): block `i`
   * attends only to keys up to its own end, skipping the masked upper
   * triangle's blocks. Default {@link causalQueryBlocks}.
   */
  queryBlocks?: number;
}): { hidden: Value; caches: LayerCache[] } {
  const rep = config.numHeads / config.numKeyValueHeads;
  const { hidden, keys, values } = decoderLayers({
    builder: g,
    config,
    weights,
    inputIds,
    ...(outputRows === undefined ? {} : { outputRows }),
    layer: (layer, hidden) => {
      const out = decoderLayer({
        builder: g,
        config,
        weights,
        layer,
        hidden,
        batch,
        length,
        cos,
        sin,
        attend: ({ q, kT, v }) =>
          queryBlocks === 1
            ? g.attention(q, kT, v, bias, rep)
            : blockCausalAttention({
                builder: g,
                q,
                kT,
                v,
                bias,
                rep,
                blocks: queryBlocks,
              }),
      });
      return { hidden: out.hidden, keys: out.kT, values: out.v };
    },
  });
  return {
    hidden,
    caches: keys.map((keysTransposed, layer) => ({
      keysTransposed,
      values: values[layer]!,
    })),
  };
}

/** What one layer of {@link decoderLayers} returns. */
type LayerOutput = {
  /** The layer's output rows. */
  hidden: Value;
  /** The keys it adds to a KV cache, in the caller's layout. */
  keys: Value;
  /** The values it adds to a KV cache. */
  values: Value;
};

/**
 * The decoder's one layer loop: the token embeddings, `numLayers` calls of
 * `layer` (one pre-norm block, whose attention is the caller's: over the
 * full sequence, or over a KV cache in the decode and extend steps), and the
 * final RMSNorm, over the `outputRows` of the hidden state when given.
 * Returns the final hidden rows and each layer's keys and values.
 */
function decoderLayers({
  builder: g,
  config,
  weights,
  inputIds,
  outputRows,
  layer: runLayer,
}: {
  builder: GraphBuilder;
  config: ModelConfig;
  weights: WeightValues;
  /** Token ids (int64), one per hidden row. */
  inputIds: Value;
  /** Int64 rows of the hidden state to normalise and return; default all. */
  outputRows?: Value;
  /** One layer over the hidden rows. */
  layer: (layer: number, hidden: Value) => LayerOutput;
}): { hidden: Value; keys: Value[]; values: Value[] } {
  let hidden = g.gather(weight(weights, 'model.embed_tokens.weight'), inputIds);
  const keys: Value[] = [];
  const values: Value[] = [];
  for (let layer = 0; layer < config.numLayers; layer++) {
    const out = runLayer(layer, hidden);
    keys.push(out.keys);
    values.push(out.values);
    hidden = out.hidden;
  }
  return {
    hidden: g.rmsNorm(
      outputRows === undefined ? hidden : g.gather(hidden, outputRows),
      weight(weights, 'model.norm.weight'),
      config.rmsNormEps,
    ),
    keys,
    values,
  };
}

/**
 * How many query blocks the causal attention of a `length`-token graph uses:
 * 4 from 256 tokens, 2 from 128, else 1. With `n` blocks the score, softmax
 * and probability products cover `(n + 1) / 2n` of the dense `S × S` (62.5%
 * at 4); the blocks' slices and concatenations cost little beside that.
 */
export function causalQueryBlocks(length: number): number {
  if (length >= 256 && length % 4 === 0) return 4;
  if (length >= 128 && length % 2 === 0) return 2;
  return 1;
}

/**
 * Causal attention by query blocks: the queries of block `i` (positions
 * `[i·S/n, (i+1)·S/n)`) attend to keys `[0, (i+1)·S/n)` only. The same result
 * as one dense attention under a bias that masks every later key (the skipped
 * blocks' weights are exactly 0 there), at `(n + 1) / 2n` of its cost.
 * `q` is `[B, kvh, rep·S, d]` (rows `r·S + t`), `kT` `[B, kvh, d, S]`, `v`
 * `[B, kvh, S, d]`, `bias` `[B, 1, 1, S, S]`.
 */
function blockCausalAttention({
  builder: g,
  q,
  kT,
  v,
  bias,
  rep,
  blocks,
  prefixKeys = 0,
}: {
  builder: GraphBuilder;
  q: Value;
  kT: Value;
  v: Value;
  bias: Value;
  rep: number;
  blocks: number;
  /**
   * Keys before the queries' own (a shared prefix, see
   * {@link buildSharedPrefixDecoder}): every block attends to all of them.
   * `kT`, `v` and the bias's last axis then cover `prefixKeys + S` keys.
   */
  prefixKeys?: number;
}): Value {
  const [batch, kvh, rows, d] = q.shape as [number, number, number, number];
  const length = rows / rep;
  const size = length / blocks;
  if (!Number.isInteger(size)) {
    throw new SealError({
      code: 'INVALID_ARGUMENT',
      message: `causal attention: ${blocks} query blocks do not divide ${length} positions`,
    });
  }
  const queries = g.reshape(q, [batch, kvh, rep, length, d]);
  const outputs: Value[] = [];
  for (let block = 0; block < blocks; block++) {
    const start = block * size;
    const end = start + size;
    const query = g.reshape(g.slice(queries, 3, start, end), [
      batch,
      kvh,
      rep * size,
      d,
    ]);
    const keys = end === length ? kT : g.slice(kT, 3, 0, prefixKeys + end);
    const values = end === length ? v : g.slice(v, 2, 0, prefixKeys + end);
    const blockBias = g.slice(
      g.slice(bias, 3, start, end),
      4,
      0,
      prefixKeys + end,
    );
    outputs.push(
      g.reshape(g.attention(query, keys, values, blockBias, rep), [
        batch,
        kvh,
        rep,
        size,
        d,
      ]),
    );
  }
  return g.reshape(g.concat(outputs, 3), [batch, kvh, rows, d]);
}

/**
 * The decoder over rows that share a prefix (the rollouts of one prompt):
 * the prefix runs once, as one row of `prefixLength` tokens, and each of the
 * `batch` rows holds only its own continuation of `length` tokens, whose
 * queries attend to the prefix's keys and values (broadcast to every row)
 * and then to their own, causally. Each row computes what the full decoder
 * computes for the prefix followed by the row; the prefix's keys and values
 * get the gradients of every row (the broadcast's backward sums them). The
 * prefix's own final hidden rows are not computed: no loss reads them.
 *
 * `rowBias` `[B, 1, 1, S, P + S]` masks the prefix's padded slots and the
 * rows' later tokens; `prefixBias` `[1, 1, 1, P, P]` is the prefix's causal
 * bias; the rows' RoPE tables hold their positions after the prefix.
 * Returns the rows' final hidden states `[B·S, H]`.
 */
export function buildSharedPrefixDecoder({
  builder: g,
  config,
  weights,
  prefix,
  rows,
}: {
  builder: GraphBuilder;
  config: ModelConfig;
  weights: WeightValues;
  /** The prefix: `inputIds` `[P]`, `cos`/`sin` `[1, P, 1, d/2]`, `bias` `[1, 1, 1, P, P]`. */
  prefix: {
    inputIds: Value;
    cos: Value;
    sin: Value;
    bias: Value;
    length: number;
  };
  /** The continuations: `inputIds` `[B·S]`, `cos`/`sin` `[B, S, 1, d/2]`, `bias` `[B, 1, 1, S, P + S]`. */
  rows: {
    inputIds: Value;
    cos: Value;
    sin: Value;
    bias: Value;
    batch: number;
    length: number;
  };
}): { hidden: Value } {
  const rep = config.numHeads / config.numKeyValueHeads;
  const { numKeyValueHeads: kvh, headDim } = config;
  const embedding = weight(weights, 'model.embed_tokens.weight');
  let prefixHidden = g.gather(embedding, prefix.inputIds);
  let hidden = g.gather(embedding, rows.inputIds);
  const prefixBlocks = causalQueryBlocks(prefix.length);
  const rowBlocks = causalQueryBlocks(rows.length);
  for (let layer = 0; layer < config.numLayers; layer++) {
    let prefixKT: Value;
    let prefixV: Value;
    if (layer < config.numLayers - 1) {
      const out = decoderLayer({
        builder: g,
        config,
        weights,
        layer,
        hidden: prefixHidden,
        batch: 1,
        length: prefix.length,
        cos: prefix.cos,
        sin: prefix.sin,
        attend: ({ q, kT, v }) =>
          prefixBlocks === 1
            ? g.attention(q, kT, v, prefix.bias, rep)
            : blockCausalAttention({
                builder: g,
                q,
                kT,
                v,
                bias: prefix.bias,
                rep,
                blocks: prefixBlocks,
              }),
      });
      prefixHidden = out.hidden;
      prefixKT = out.kT;
      prefixV = out.v;
    } else {
      // The last layer's prefix rows feed nothing but their keys and values.
      const x = g.rmsNorm(
        prefixHidden,
        weight(weights, `model.layers.${layer}.input_layernorm.weight`),
        config.rmsNormEps,
      );
      const projections = project({
        builder: g,
        config,
        weights,
        layer,
        x,
        batch: 1,
        length: prefix.length,
        cos: prefix.cos,
        sin: prefix.sin,
      });
      prefixKT = g.transpose(projections.k, [0, 2, 3, 1]);
      prefixV = g.transpose(projections.v, [0, 2, 1, 3]);
    }
    const sharedKT = g.expand(prefixKT, [
      rows.batch,
      kvh,
      headDim,
      prefix.length,
    ]);
    const sharedV = g.expand(prefixV, [
      rows.batch,
      kvh,
      prefix.length,
      headDim,
    ]);
    const out = decoderLayer({
      builder: g,
      config,
      weights,
      layer,
      hidden,
      batch: rows.batch,
      length: rows.length,
      cos: rows.cos,
      sin: rows.sin,
      attend: ({ q, kT, v }) => {
        const keys = g.concat([sharedKT, kT], 3);
        const values = g.concat([sharedV, v], 2);
        return rowBlocks === 1
          ? g.attention(q, keys, values, rows.bias, rep)
          : blockCausalAttention({
              builder: g,
              q,
              kT: keys,
              v: values,
              bias: rows.bias,
              rep,
              blocks: rowBlocks,
              prefixKeys: prefix.length,
            });
      },
    });
    hidden = out.hidden;
  }
  return {
    hidden: g.rmsNorm(
      hidden,
      weight(weights, 'model.norm.weight'),
      config.rmsNormEps,
    ),
  };
}

/** The LM head matrix (the embedding when tied). */
export function lmHeadWeight({
  config,
  weights,
}: {
  config: ModelConfig;
  weights: WeightValues;
}): Value {
  return weight(
    weights,
    config.tieWordEmbeddings ? 'model.embed_tokens.weight' : 'lm_head.weight',
  );
}

/**
 * One decode step for a batch against a static-size KV cache. The cache is
 * an input that the graph never copies: attention is computed over the
 * cached slots and the new token separately and merged in one softmax, and
 * the new key and value are outputs the host writes into the cache.
 */
export function buildDecodeStep({
  builder: g,
  config,
  weights,
  inputIds,
  cos,
  sin,
  pastBias,
  cacheKeys,
  cacheValues,
  batch,
  cacheLength,
  gqa,
}: {
  builder: GraphBuilder;
  config: ModelConfig;
  weights: WeightValues;
  /** `[B]` int64. */
  inputIds: Value;
  /** `[B, 1, 1, headDim/2]`. */
  cos: Value;
  /** `[B, 1, 1, headDim/2]`. */
  sin: Value;
  /** `[B, 1, 1, P]`: 0 for filled cache slots, a large negative number otherwise (unused with `gqa`). */
  pastBias: Value | undefined;
  /** Per layer `[B, kvh, headDim, P]` (with `gqa`: `[B, kvh, P, headDim]`). */
  cacheKeys: Value[];
  /** Per layer `[B, kvh, P, headDim]`. */
  cacheValues: Value[];
  batch: number;
  cacheLength: number;
  /**
   * Attend through ONNX Runtime's `GroupQueryAttention` (com.microsoft)
   * instead: the cache keys are then `[B, kvh, P, headDim]` like the values,
   * the operator writes this step's key and value at slot `seqlensK` and
   * returns the written caches as `presentKeys`/`presentValues` (in place
   * when the caller binds them to the cache's own buffers).
   */
  gqa?: GqaDecodeInputs;
}): {
  hidden: Value;
  newKeys: Value[];
  newValues: Value[];
  presentKeys: Value[];
  presentValues: Value[];
} {
  const { numHeads, numKeyValueHeads, headDim } = config;
  const rep = numHeads / numKeyValueHeads;
  const presentKeys: Value[] = [];
  const presentValues: Value[] = [];
  const decodeLayer = (layer: number, hidden: Value): LayerOutput => {
    const p = `model.layers.${layer}`;
    const x = g.rmsNorm(
      hidden,
      weight(weights, `${p}.input_layernorm.weight`),
      config.rmsNormEps,
    );
    const { q, k, v } = project({
      builder: g,
      config,
      weights,
      layer,
      x,
      batch,
      length: 1,
      cos,
      sin,
    });
    const k4 = g.reshape(k, [batch, numKeyValueHeads, 1, headDim]);
    const v4 = g.reshape(v, [batch, numKeyValueHeads, 1, headDim]);
    if (gqa !== undefined) {
      const [attended, presentKey, presentValue] = groupQueryAttention({
        builder: g,
        config,
        // [B,1,nh,d] is [B,1,nh·d] in memory, the operator's BSNH layout.
        query: g.reshape(q, [batch, 1, numHeads * headDim]),
        key: g.reshape(k, [batch, 1, numKeyValueHeads * headDim]),
        value: g.reshape(v, [batch, 1, numKeyValueHeads * headDim]),
        pastKey: cacheKeys[layer]!,
        pastValue: cacheValues[layer]!,
        inputs: gqa,
        batch,
        length: 1,
        presentLength: cacheLength,
      });
      presentKeys.push(presentKey);
      presentValues.push(presentValue);
      const residual = g.add(
        hidden,
        g.linear(
          g.reshape(attended, [batch, numHeads * headDim]),
          weight(weights, `${p}.self_attn.o_proj.weight`),
        ),
      );
      return {
        hidden: mlpBlock({
          builder: g,
          config,
          weights,
          layer,
          hidden: residual,
        }),
        keys: k4,
        values: v4,
      };
    }
    const q4 = g.reshape(q, [batch, numKeyValueHeads, rep, headDim]);
    const pastScores = g.add(g.matmul(q4, cacheKeys[layer]!), pastBias!);
    const newScore = g.reduceSum(g.mul(q4, k4), [-1], true);
    const probabilities = g.softmax(g.concat([pastScores, newScore], -1));
    const pastProbabilities = g.slice(probabilities, -1, 0, cacheLength);
    const newProbability = g.slice(
      probabilities,
      -1,
      cacheLength,
      cacheLength + 1,
    );
    const attended = g.add(
      g.matmul(pastProbabilities, cacheValues[layer]!),
      g.mul(newProbability, v4),
    );
    const merged = g.reshape(attended, [batch, numHeads * headDim]);
    const residual = g.add(
      hidden,
      g.linear(merged, weight(weights, `${p}.self_attn.o_proj.weight`)),
    );
    return {
      hidden: mlpBlock({
        builder: g,
        config,
        weights,
        layer,
        hidden: residual,
      }),
      keys: k4,
      values: v4,
    };
  };
  const { hidden, keys, values } = decoderLayers({
    builder: g,
    config,
    weights,
    inputIds,
    layer: decodeLayer,
  });
  return {
    hidden,
    newKeys: keys,
    newValues: values,
    presentKeys,
    presentValues,
  };
}

/** The extra inputs of a decode or extend step through `GroupQueryAttention`. */
export type GqaDecodeInputs = {
  /**
   * `[B, 1 or nh, T, P']` additive bias over the slots `[0, P')` the step sees
   * (`P'` = `totalLength`): 0 where a token may attend (its own slot included),
   * a large negative number elsewhere (left padding).
   */
  attentionBias: Value;
  /** `[B]` int32: the last slot each row's step writes (its total length − 1). */
  seqlensK: Value;
  /** `[1]` int32: the slots the step attends over, `P'`. */
  totalLength: Value;
};

/**
 * ONNX Runtime's `GroupQueryAttention` (com.microsoft) over a past cache of
 * `[B, kvh, P, d]` keys and values (BNSH) and `length` new tokens (BSNH,
 * queries already scaled, so `scale` is 1). Returns the attended rows
 * `[B, T, nh·d]` and the present caches `[B, kvh, presentLength, d]`.
 */
export function groupQueryAttention({
  builder: g,
  config,
  query,
  key,
  value,
  pastKey,
  pastValue,
  inputs,
  batch,
  length,
  presentLength,
}: {
  builder: GraphBuilder;
  config: ModelConfig;
  query: Value;
  key: Value;
  value: Value;
  pastKey: Value;
  pastValue: Value;
  inputs: GqaDecodeInputs;
  batch: number;
  length: number;
  presentLength: number;
}): [Value, Value, Value] {
  const { numHeads, numKeyValueHeads, headDim } = config;
  const present = {
    dtype: pastKey.dtype,
    shape: [batch, numKeyValueHeads, presentLength, headDim],
  };
  const [attended, presentKey, presentValue] = g.node(
    'GroupQueryAttention',
    [
      query,
      key,
      value,
      pastKey,
      pastValue,
      inputs.seqlensK,
      inputs.totalLength,
      undefined, // cos_cache: RoPE is applied before
      undefined, // sin_cache
      undefined, // position_ids
      inputs.attentionBias,
    ],
    [
      { dtype: query.dtype, shape: [batch, length, numHeads * headDim] },
      present,
      present,
    ],
    {
      num_heads: numHeads,
      kv_num_heads: numKeyValueHeads,
      scale: { float: 1 },
    },
    'com.microsoft',
  );
  return [attended!, presentKey!, presentValue!];
}

/**
 * `length` new tokens per row against a static-size KV cache (the tokens a
 * multi-turn prompt adds after its cached prefix, in one run instead of one
 * decode step each). Attention runs over the cache followed by the new
 * tokens; the cache is an input the graph only reads, and the new keys and
 * values are outputs the host writes into it. Returns the final hidden state of every
 * new token, `[B·T, H]`.
 */
export function buildExtendStep({
  builder: g,
  config,
  weights,
  inputIds,
  cos,
  sin,
  bias,
  cacheKeys,
  cacheValues,
  batch,
  length,
  cacheLength,
}: {
  builder: GraphBuilder;
  config: ModelConfig;
  weights: WeightValues;
  /** `[B·T]` int64. */
  inputIds: Value;
  /** `[B, T, 1, headDim/2]`. */
  cos: Value;
  /** `[B, T, 1, headDim/2]`. */
  sin: Value;
  /**
   * `[B, 1, 1, T, P + T]`: for each new token, 0 for the cache slots and new
   * tokens it may see (causal, padding), a large negative number otherwise.
   */
  bias: Value;
  /** Per layer `[B, kvh, headDim, P]`. */
  cacheKeys: Value[];
  /** Per layer `[B, kvh, P, headDim]`. */
  cacheValues: Value[];
  batch: number;
  length: number;
  cacheLength: number;
}): { hidden: Value; newKeys: Value[]; newValues: Value[] } {
  const { numKeyValueHeads } = config;
  const rep = config.numHeads / numKeyValueHeads;
  const extendLayer = (layer: number, hidden: Value): LayerOutput => {
    const out = decoderLayer({
      builder: g,
      config,
      weights,
      layer,
      hidden,
      batch,
      length,
      cos,
      sin,
      attend: ({ q, kT, v }) => {
        // The cache and the new tokens as one key/value sequence (a copy of the
        // cache, cheaper than splitting the much larger score tensor in two).
        const keys = g.concat([cacheKeys[layer]!, kT], -1);
        const values = g.concat([cacheValues[layer]!, v], 2);
        const scores = g.add(
          g.reshape(g.matmul(q, keys), [
            batch,
            numKeyValueHeads,
            rep,
            length,
            cacheLength + length,
          ]),
          bias,
        );
        const probabilities = g.reshape(g.softmax(scores), [
          batch,
          numKeyValueHeads,
          rep * length,
          cacheLength + length,
        ]);
        return g.matmul(probabilities, values);
      },
    });
    return { hidden: out.hidden, keys: out.kT, values: out.v };
  };
  const { hidden, keys, values } = decoderLayers({
    builder: g,
    config,
    weights,
    inputIds,
    layer: extendLayer,
  });
  return { hidden, newKeys: keys, newValues: values };
}

import {
  GraphBuilder,
  type MatmulPrecision,
  type Value,
} from '../graph/graph-builder';
import {
  buildDecodeStep,
  buildDecoder,
  buildExtendStep,
  buildSharedPrefixDecoder,
  declareWeights,
  lmHeadWeight,
  type WeightValues,
} from './decoder-graph';
import type { ModelConfig } from './model-config';
import { listWeightSpecs, type WeightSpec } from './model-weights';

/** Float type of a graph: fp32 normally, fp64 for gradient checks and parity. */
export type FloatType = 'float32' | 'float64';

/** A serialised graph. */
export type BuiltGraph = {
  /** The ONNX model bytes. */
  model: Uint8Array;
  /** Number of nodes, for diagnostics. */
  nodeCount: number;
};

/** Training objectives with their own grad graph. */
export type TrainObjective = 'ppo' | 'cross-entropy';

/**
 * Shape bucket of a full-sequence graph: `batch` rows of `length` tokens.
 * With `selected`, the graph computes the log-probabilities of only that
 * many token slots, named by its `slots` input; otherwise of all `B·S`.
 */
export type SequenceBucket = {
  batch: number;
  length: number;
  selected?: number;
};

/** The number of token slots whose log-probabilities a sequence graph computes. */
export function scoredSlots(bucket: SequenceBucket): number {
  return bucket.selected ?? bucket.batch * bucket.length;
}

/** The per-batch inputs of the full-sequence graphs. */
export type SequenceInputValues = {
  inputIds: Value;
  /** `[K, 1]`: the next token of each scored slot. */
  targets: Value;
  /** `[K]` int64 flat slots `b·S + t` whose log-probabilities are computed (with `bucket.selected`). */
  slots?: Value;
  cos: Value;
  sin: Value;
  bias: Value;
};

/**
 * Declares `input_ids`, `targets`, `rope_cos`, `rope_sin`, `attention_bias`,
 * and with `bucket.selected` the `slots` that are scored.
 */
export function sequenceInputs({
  builder: g,
  config,
  bucket,
}: {
  builder: GraphBuilder;
  config: ModelConfig;
  bucket: SequenceBucket;
}): SequenceInputValues {
  const { batch, length, selected } = bucket;
  const tokens = batch * length;
  const half = config.headDim / 2;
  return {
    inputIds: g.input({ name: 'input_ids', shape: [tokens], dtype: 'int64' }),
    targets: g.input({
      name: 'targets',
      shape: [scoredSlots(bucket), 1],
      dtype: 'int64',
    }),
    ...(selected === undefined
      ? {}
      : {
          slots: g.input({ name: 'slots', shape: [selected], dtype: 'int64' }),
        }),
    cos: g.input({ name: 'rope_cos', shape: [batch, length, 1, half] }),
    sin: g.input({ name: 'rope_sin', shape: [batch, length, 1, half] }),
    bias: g.input({
      name: 'attention_bias',
      shape: [batch, 1, 1, length, length],
    }),
  };
}

/**
 * Forward to per-token log-probabilities `[B·S]`: `lp[t] = log p(targets[t]
 * | inputs[≤t])` under `softmax(logits · inverseTemperature)`. Shared by the
 * score and grad graphs, so both compute bit-identical numbers for the same
 * weights and batch. The scale multiplies the final hidden state (`[B·S, H]`)
 * rather than the logits (`[B·S, V]`): the same product, V/H times cheaper.
 * With `slots` (`[K]`), the final norm, the LM head and the log-softmax run
 * on those hidden rows only, and the output is `[K]`: the vocabulary-sized
 * work is the largest per-token cost after the decoder, and a PPO loss
 * weights only the generated tokens (about a tenth of an episode's).
 */
export function forwardLogprobs({
  builder: g,
  config,
  weights,
  bucket,
  inputs,
  inverseTemperature,
  queryBlocks,
}: {
  builder: GraphBuilder;
  config: ModelConfig;
  weights: WeightValues;
  bucket: SequenceBucket;
  inputs: SequenceInputValues;
  inverseTemperature: Value;
  /** Query blocks of the causal attention (default: by length, see `causalQueryBlocks`). */
  queryBlocks?: number;
}): Value {
  const { hidden } = buildDecoder({
    queryBlocks,
    builder: g,
    config,
    weights,
    inputIds: inputs.inputIds,
    cos: inputs.cos,
    sin: inputs.sin,
    bias: inputs.bias,
    batch: bucket.batch,
    length: bucket.length,
    ...(inputs.slots === undefined ? {} : { outputRows: inputs.slots }),
  });
  const logits = g.linear(
    g.mul(hidden, inverseTemperature),
    lmHeadWeight({ config, weights }),
  );
  return g.chosenLogprob(logits, inputs.targets);
}

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

/**
 * The grad graph: forward, loss and backward. Inputs: weights, the sequence
 * inputs, the scalar `inverse_temperature`, `token_weights` `[B·S]`, for PPO `advantages`, `old_logprobs`,
 * `ref_logprobs` `[B·S]` and the scalars `clip_low`, `clip_high`,
 * `dual_clip`, `kl_coef`; and one accumulator `acc.<weight>` per weight.
 * Outputs: `loss`, the weighted metric sums `sum_clipped`, `sum_ratio`,
 * `sum_kl`, `sum_nll`, and `grad.<weight> = acc.<weight> + ∂loss/∂weight`.
 *
 * PPO per token, with `r = exp(clip(lp − old, ±20))`:
 * `ℓ = max(−A·r, −A·clip(r, 1−εlow, 1+εhigh))`, capped at `−c·A` when
 * `A < 0` (dual clip), plus `β·(exp(d) − d − 1)` with `d = clip(ref − lp, ±20)`
 * (k3 KL). Loss `= Σ w·ℓ`.
 */
export function buildGradGraph({
  config,
  bucket,
  objective,
  floatType = 'float32',
  matmulPrecision,
  lossScaling = false,
}: {
  config: ModelConfig;
  bucket: SequenceBucket;
  objective: TrainObjective;
  floatType?: FloatType;
  /** Reduced-precision matrix products, forward and backward (default: none). */
  matmulPrecision?: MatmulPrecision | undefined;
  /**
   * Loss scaling (for fp16 products): the backward pass starts from the
   * scalar input `loss_scale` instead of 1, so small gradients survive the
   * fp16 operands, and each gradient is multiplied by `1 / loss_scale` before
   * it is added to its accumulator. `loss` stays unscaled. An overflow shows
   * as a non-finite gradient (and gradient norm).
   */
  lossScaling?: boolean;
}): BuiltGraph {
  const g = new GraphBuilder({ floatType, matmulPrecision });
  const weights = declareWeights({ builder: g, config, requiresGrad: true });
  const inputs = sequenceInputs({ builder: g, config, bucket });
  const inverseTemperature = g.input({
    name: 'inverse_temperature',
    shape: [],
  });
  const logprobs = forwardLogprobs({
    builder: g,
    config,
    weights,
    bucket,
    inputs,
    inverseTemperature,
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
    model: g.toOnnx({ name: `grad-${objective}` }),
    nodeCount: g.nodeCount,
  };
}

/**
 * Shape bucket of a shared-prefix graph: one prefix of `prefix` tokens and
 * `batch` continuations of `length` tokens each.
 */
export type SharedPrefixBucket = {
  prefix: number;
  batch: number;
  length: number;
};

/**
 * The inputs of the shared-prefix graphs: `prefix_ids` `[P]`, `prefix_cos`,
 * `prefix_sin` `[1, P, 1, d/2]`, `prefix_bias` `[1, 1, 1, P, P]`; and for the
 * continuations `input_ids`, `targets` `[B·S]` (`[B·S, 1]`), `rope_cos`,
 * `rope_sin` `[B, S, 1, d/2]` and `attention_bias` `[B, 1, 1, S, P + S]`.
 */
function sharedPrefixLogprobs({
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

/** The loss, metric sums, backward pass and accumulated gradients of a grad graph. */
function addLossAndGradients({
  builder: g,
  config,
  weights,
  logprobs,
  tokens,
  objective,
  lossScaling,
}: {
  builder: GraphBuilder;
  config: ModelConfig;
  weights: WeightValues;
  logprobs: Value;
  tokens: number;
  objective: TrainObjective;
  lossScaling: boolean;
}): void {
  const lossInputs = lossInputValues({ builder: g, tokens, objective });
  const { loss, sums } = policyLoss({ builder: g, logprobs, lossInputs });
  g.output(loss, 'loss');
  for (const [name, value] of Object.entries(sums)) g.output(value, name);
  const specs = listWeightSpecs(config);
  const lossScale = lossScaling
    ? g.input({ name: 'loss_scale', shape: [] })
    : undefined;
  const grads = g.gradients({
    loss,
    wrt: specs.map((spec) => weights.get(spec.name)!),
    ...(lossScale === undefined ? {} : { seed: lossScale }),
  });
  const unscale = lossScale === undefined ? undefined : g.reciprocal(lossScale);
  specs.forEach((spec, i) => {
    const accumulator = g.input({
      name: `acc.${spec.name}`,
      shape: spec.shape,
    });
    const grad = unscale === undefined ? grads[i]! : g.mul(grads[i]!, unscale);
    g.output(g.add(accumulator, grad), `grad.${spec.name}`);
  });
}

/** The loss and the weighted metric sums. */
export type LossParts = { loss: Value; sums: Record<string, Value> };

/** The loss inputs of a grad graph. */
export type LossInputValues = {
  tokenWeights: Value;
  ppo?: {
    advantages: Value;
    oldLogprobs: Value;
    refLogprobs: Value;
    clipLow: Value;
    clipHigh: Value;
    dualClip: Value;
    klCoef: Value;
  };
};

/** Declares the loss inputs of an objective. */
export function lossInputValues({
  builder: g,
  tokens,
  objective,
}: {
  builder: GraphBuilder;
  tokens: number;
  objective: TrainObjective;
}): LossInputValues {
  const tokenWeights = g.input({ name: 'token_weights', shape: [tokens] });
  if (objective === 'cross-entropy') return { tokenWeights };
  return {
    tokenWeights,
    ppo: {
      advantages: g.input({ name: 'advantages', shape: [tokens] }),
      oldLogprobs: g.input({ name: 'old_logprobs', shape: [tokens] }),
      refLogprobs: g.input({ name: 'ref_logprobs', shape: [tokens] }),
      clipLow: g.input({ name: 'clip_low', shape: [] }),
      clipHigh: g.input({ name: 'clip_high', shape: [] }),
      dualClip: g.input({ name: 'dual_clip', shape: [] }),
      klCoef: g.input({ name: 'kl_coef', shape: [] }),
    },
  };
}

/** The policy loss of an objective over per-token log-probabilities. */
export function policyLoss({
  builder,
  logprobs,
  lossInputs,
}: {
  builder: GraphBuilder;
  logprobs: Value;
  lossInputs: LossInputValues;
}): LossParts {
  return lossInputs.ppo === undefined
    ? crossEntropyLoss({
        builder,
        logprobs,
        tokenWeights: lossInputs.tokenWeights,
      })
    : ppoLoss({
        builder,
        logprobs,
        tokenWeights: lossInputs.tokenWeights,
        ...lossInputs.ppo,
      });
}

function weightedSum(g: GraphBuilder, values: Value, weights: Value): Value {
  return g.reduceSum(g.mul(values, weights), [0], false);
}

function crossEntropyLoss({
  builder: g,
  logprobs,
  tokenWeights,
}: {
  builder: GraphBuilder;
  logprobs: Value;
  tokenWeights: Value;
}): LossParts {
  const nll = weightedSum(g, g.neg(logprobs), tokenWeights);
  const zero = g.scalar(0);
  const weightSum = g.untaped(() => g.reduceSum(tokenWeights, [0], false));
  return {
    loss: nll,
    sums: {
      sum_nll: nll,
      sum_clipped: zero,
      sum_ratio: weightSum,
      sum_kl: zero,
    },
  };
}

function ppoLoss({
  builder: g,
  logprobs,
  tokenWeights,
  advantages,
  oldLogprobs,
  refLogprobs,
  clipLow,
  clipHigh,
  dualClip,
  klCoef,
}: {
  builder: GraphBuilder;
  logprobs: Value;
  tokenWeights: Value;
  advantages: Value;
  oldLogprobs: Value;
  refLogprobs: Value;
  clipLow: Value;
  clipHigh: Value;
  dualClip: Value;
  klCoef: Value;
}): LossParts {
  const one = g.scalar(1);
  const limit = g.scalar(20);
  const minusLimit = g.scalar(-20);

  const ratio = g.exp(g.clip(g.sub(logprobs, oldLogprobs), minusLimit, limit));
  const negativeAdvantages = g.neg(advantages);
  const unclipped = g.mul(negativeAdvantages, ratio);
  const clippedRatio = g.clip(ratio, g.sub(one, clipLow), g.add(one, clipHigh));
  const clipped = g.mul(negativeAdvantages, clippedRatio);
  const surrogate = g.maximum(unclipped, clipped);
  const cap = g.mul(negativeAdvantages, dualClip);
  const dual = g.minimum(surrogate, cap);
  const policyLoss = g.where(
    g.compare('Less', advantages, g.scalar(0)),
    dual,
    surrogate,
  );
  const logRatioToRef = g.clip(g.sub(refLogprobs, logprobs), minusLimit, limit);
  const kl = g.sub(g.sub(g.exp(logRatioToRef), logRatioToRef), one);
  const perToken = g.add(policyLoss, g.mul(kl, klCoef));
  const loss = weightedSum(g, perToken, tokenWeights);
  const sums = g.untaped(() => {
    const wasClipped = g.cast(
      g.compare('Greater', clipped, unclipped),
      g.floatType,
    );
    return {
      sum_clipped: weightedSum(g, wasClipped, tokenWeights),
      sum_ratio: weightedSum(g, ratio, tokenWeights),
      sum_kl: weightedSum(g, kl, tokenWeights),
      sum_nll: weightedSum(g, g.neg(logprobs), tokenWeights),
    };
  });
  return { loss, sums };
}

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
}: {
  config: ModelConfig;
  batch: number;
  cacheLength: number;
  floatType?: FloatType;
  /** Reduced-precision matrix products (default: none). The KV cache stays float32. */
  matmulPrecision?: MatmulPrecision | undefined;
  /** Output the updated cache (see above); default false. */
  residentCache?: boolean;
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

/**
 * The optimizer graph: global-norm clipping and AdamW, elementwise per
 * tensor. Inputs per weight `param.<n>`, `grad.<n>`, `m.<n>`, `v.<n>`;
 * scalars `learning_rate`, `embedding_learning_rate` (the rate of
 * embedding tensors), `output_norm_learning_rate` (the rate of the final
 * norm's gain, the logits' scale), `vector_learning_rate` (the rate of the
 * other norm gains and the biases), `output_norm_uniform` (1: that gain
 * moves only as a whole, by multiplicative steps on one scale whose gradient
 * is `Σ gainᵢ·gradᵢ`; 0: each element on its own), `beta1`, `beta2`, `bias_correction1`
 * (`1/(1−β1ᵗ)`), `bias_correction2` (`1/(1−β2ᵗ)`), `eps`, `weight_decay`,
 * `max_grad_norm`. Outputs `new_param.<n>`, `new_m.<n>`, `new_v.<n>` and
 * `grad_norm` (before clipping). Decay applies to matrices and embeddings,
 * not to norms and biases.
 */
export function buildOptimizerGraph({
  specs,
}: {
  specs: readonly WeightSpec[];
}): BuiltGraph {
  const g = new GraphBuilder({ floatType: 'float32' });
  const scalar = (name: string): Value => g.input({ name, shape: [] });
  const learningRate = scalar('learning_rate');
  const embeddingLearningRate = scalar('embedding_learning_rate');
  const outputNormLearningRate = scalar('output_norm_learning_rate');
  const vectorLearningRate = scalar('vector_learning_rate');
  const outputNormUniform = scalar('output_norm_uniform');
  const beta1 = scalar('beta1');
  const beta2 = scalar('beta2');
  const correction1 = scalar('bias_correction1');
  const correction2 = scalar('bias_correction2');
  const eps = scalar('eps');
  const weightDecay = scalar('weight_decay');
  const maxGradNorm = scalar('max_grad_norm');
  const one = g.scalar(1);
  const tensors = specs.map((spec) => ({
    spec,
    param: g.input({ name: `param.${spec.name}`, shape: spec.shape }),
    grad: g.input({ name: `grad.${spec.name}`, shape: spec.shape }),
    m: g.input({ name: `m.${spec.name}`, shape: spec.shape }),
    v: g.input({ name: `v.${spec.name}`, shape: spec.shape }),
  }));
  let squareSum: Value | undefined;
  for (const { grad } of tensors) {
    const part = g.node(
      'ReduceSumSquare',
      [grad],
      [{ dtype: 'float32', shape: [] }],
      { keepdims: 0 },
    )[0]!;
    squareSum = squareSum === undefined ? part : g.add(squareSum, part);
  }
  const norm = g.sqrt(squareSum!);
  g.output(norm, 'grad_norm');
  const clipCoefficient = g.minimum(
    one,
    g.div(maxGradNorm, g.add(norm, g.scalar(1e-6))),
  );
  const oneMinusBeta1 = g.sub(one, beta1);
  const oneMinusBeta2 = g.sub(one, beta2);
  const decayFactor = g.sub(one, g.mul(learningRate, weightDecay));
  const embeddingDecayFactor = g.sub(
    one,
    g.mul(embeddingLearningRate, weightDecay),
  );
  for (const { spec, param, grad, m, v } of tensors) {
    const embedding = spec.kind === 'embedding';
    const rate = embedding
      ? embeddingLearningRate
      : spec.outputNorm
        ? outputNormLearningRate
        : spec.kind === 'matrix'
          ? learningRate
          : vectorLearningRate;
    let clippedGrad = g.mul(grad, clipCoefficient);
    if (spec.outputNorm) {
      // Uniform: the gain is s·gain with one scale s; dL/ds at s = 1 is
      // Σ gainᵢ·gradᵢ, the same for every element, so Adam's moments stay
      // equal across elements and the step below is multiplicative.
      const scaleGrad = g.node(
        'ReduceSum',
        [g.mul(param, clippedGrad)],
        [{ dtype: 'float32', shape: [] }],
        { keepdims: 0 },
      )[0]!;
      const broadcast = g.add(g.mul(param, g.scalar(0)), scaleGrad);
      clippedGrad = g.add(
        g.mul(outputNormUniform, broadcast),
        g.mul(g.sub(one, outputNormUniform), clippedGrad),
      );
    }
    const newM = g.add(g.mul(beta1, m), g.mul(oneMinusBeta1, clippedGrad));
    const newV = g.add(
      g.mul(beta2, v),
      g.mul(oneMinusBeta2, g.mul(clippedGrad, clippedGrad)),
    );
    let update = g.div(
      g.mul(newM, correction1),
      g.add(g.sqrt(g.mul(newV, correction2)), eps),
    );
    if (spec.outputNorm) {
      update = g.mul(
        update,
        g.add(g.mul(outputNormUniform, param), g.sub(one, outputNormUniform)),
      );
    }
    const decays = spec.kind === 'matrix' || spec.kind === 'embedding';
    const decayed = decays
      ? g.mul(param, embedding ? embeddingDecayFactor : decayFactor)
      : param;
    g.output(g.sub(decayed, g.mul(rate, update)), `new_param.${spec.name}`);
    g.output(newM, `new_m.${spec.name}`);
    g.output(newV, `new_v.${spec.name}`);
  }
  return { model: g.toOnnx({ name: 'optimizer' }), nodeCount: g.nodeCount };
}

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

/** Declares the KV-cache inputs `cache_keys.<l>` `[B,kvh,d,P]` and `cache_values.<l>` `[B,kvh,P,d]`. */
function cacheInputs({
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
function cacheOutputs({
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
function lastTokenLogits({
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

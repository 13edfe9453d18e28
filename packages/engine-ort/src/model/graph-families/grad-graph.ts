import {
  GraphBuilder,
  type MatmulPrecision,
  type Value,
} from '../../graph/graph-builder';
import { declareWeights, type WeightValues } from '../decoder-graph';
import type { ModelConfig } from '../model-config';
import { listWeightSpecs } from '../model-weights';
import {
  scoredSlots,
  type BuiltGraph,
  type FloatType,
  type SequenceBucket,
  type TrainObjective,
} from './graph-types';
import { lossInputValues, policyLoss } from './policy-loss';
import { forwardLogprobs, sequenceInputs } from './sequence-forward';

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

/** The loss, metric sums, backward pass and accumulated gradients of a grad graph. */
export function addLossAndGradients({
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

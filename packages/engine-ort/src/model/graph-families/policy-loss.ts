import type { GraphBuilder, Value } from '../../graph/graph-builder';
import type { TrainObjective } from './graph-types';

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

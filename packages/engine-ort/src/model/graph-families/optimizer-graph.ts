import { GraphBuilder, type Value } from '../../graph/graph-builder';
import type { WeightSpec } from '../model-weights';
import type { BuiltGraph } from './graph-types';

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

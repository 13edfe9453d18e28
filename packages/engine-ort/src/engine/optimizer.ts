import { SealError } from '@seal/spec';
import { buildOptimizerGraph } from '../model/graph-families';
import { listWeightSpecs, type FlatTensors } from '../model/model-weights';
import type { EngineContext } from './engine-context';
import { floatTensor, type ort } from './ort-session';
import {
  nextLossScale,
  resolveLossScaling,
  type LossScaleState,
  type LossScalingSettings,
  type Precision,
} from './precision';
import {
  disposeTensors,
  pickTensors,
  prefixTensors,
  type TensorSet,
} from './resident-weights';
import type { EngineTrainSettings } from './train';

/** Adam state and step counter. */
export type OptimizerState = { m: FlatTensors; v: FlatTensors; step: number };

/**
 * Global-norm clipping and AdamW over host buffers: the optimizer graph
 * writes the new weights and moments into the spare buffers, which become
 * current (and the prefix cache is cleared) only when the gradient norm is
 * finite. Returns the gradient norm.
 */
export async function applyOptimizer(
  context: EngineContext,
  {
    gradients,
    settings,
  }: {
    gradients: FlatTensors;
    settings: EngineTrainSettings;
  },
): Promise<number> {
  const { residency } = context;
  const session = await optimizerSession(context);
  const optimizer = residency.hostOptimizer;
  const step = optimizer.step + 1;
  const feeds: Record<string, ort.Tensor> = {
    ...residency.weightFeeds(residency.hostWeights, 'param.'),
    ...residency.weightFeeds(gradients, 'grad.'),
    ...residency.weightFeeds(optimizer.m, 'm.'),
    ...residency.weightFeeds(optimizer.v, 'v.'),
    ...optimizerScalars(settings, step),
  };
  const spares = residency.spares;
  const fetches: Record<string, ort.Tensor | null> = {
    grad_norm: null,
    ...residency.weightFeeds(spares.weights, 'new_param.'),
    ...residency.weightFeeds(spares.m, 'new_m.'),
    ...residency.weightFeeds(spares.v, 'new_v.'),
  };
  const output = await session.run(feeds, fetches);
  const gradNorm = Number((output.grad_norm!.data as Float32Array)[0]);
  if (!Number.isFinite(gradNorm)) return gradNorm;
  residency.commitHostUpdate(step);
  context.prefixCache.clear();
  return gradNorm;
}

/**
 * AdamW on the resident state: the optimizer graph's new weights and
 * moments stay on the device and replace the old ones when the gradient
 * norm is finite; only the norm comes back to the host.
 */
export async function applyResidentOptimizer(
  context: EngineContext,
  {
    gradients,
    settings,
  }: {
    gradients: TensorSet;
    settings: EngineTrainSettings;
  },
): Promise<number> {
  const { residency } = context;
  const specs = residency.hostWeights.specs;
  const session = await optimizerSession(
    context,
    ['new_param.', 'new_m.', 'new_v.'].flatMap((prefix) =>
      specs.map((spec) => `${prefix}${spec.name}`),
    ),
  );
  const state = await residency.resident();
  const step = residency.hostOptimizer.step + 1;
  const output = await session.run({
    ...prefixTensors(state.weights, 'param.'),
    ...prefixTensors(gradients, 'grad.'),
    ...prefixTensors(state.m, 'm.'),
    ...prefixTensors(state.v, 'v.'),
    ...optimizerScalars(settings, step),
  });
  const gradNorm = Number((output.grad_norm!.data as Float32Array)[0]);
  const updated = {
    weights: pickTensors({ output, prefix: 'new_param.', specs }),
    m: pickTensors({ output, prefix: 'new_m.', specs }),
    v: pickTensors({ output, prefix: 'new_v.', specs }),
  };
  if (!Number.isFinite(gradNorm)) {
    disposeTensors(updated.weights, updated.m, updated.v);
    return gradNorm;
  }
  residency.commitResidentUpdate(updated, step);
  context.prefixCache.clear();
  return gradNorm;
}

/** The optimizer graph's session (one shape per model), its outputs device-located when given. */
function optimizerSession(
  { config, sessions, settings }: EngineContext,
  deviceOutputs?: readonly string[],
): ReturnType<EngineContext['sessions']['get']> {
  return sessions.get(
    'optimizer',
    () => buildOptimizerGraph({ specs: listWeightSpecs(config) }),
    settings.threads,
    deviceOutputs === undefined ? {} : { deviceOutputs },
  );
}

/** The scalar feeds of the optimizer graph for `step` (1-based). */
export function optimizerScalars(
  settings: EngineTrainSettings,
  step: number,
): Record<string, ort.Tensor> {
  const [beta1, beta2] = settings.betas;
  const scalar = (x: number): ort.Tensor => floatTensor(Float32Array.of(x), []);
  return {
    learning_rate: scalar(
      settings.learningRate * (settings.matrixLearningRateScale ?? 1),
    ),
    embedding_learning_rate: scalar(
      settings.learningRate * (settings.embeddingLearningRateScale ?? 1),
    ),
    output_norm_learning_rate: scalar(
      settings.learningRate * (settings.outputNormLearningRateScale ?? 1),
    ),
    vector_learning_rate: scalar(
      settings.learningRate * (settings.vectorLearningRateScale ?? 1),
    ),
    output_norm_uniform: scalar(settings.outputNormUniform ? 1 : 0),
    beta1: scalar(beta1),
    beta2: scalar(beta2),
    bias_correction1: scalar(1 / (1 - beta1 ** step)),
    bias_correction2: scalar(1 / (1 - beta2 ** step)),
    eps: scalar(settings.eps),
    weight_decay: scalar(settings.weightDecay),
    max_grad_norm: scalar(Math.min(settings.maxGradNorm, 3e38)),
  };
}

/**
 * Dynamic loss scaling of fp16 training (as PyTorch's `GradScaler`): the
 * grad graph's backward starts from the scale, and an overflow (non-finite
 * gradients under a finite loss) skips the step and shrinks it. Inactive for
 * other precisions.
 */
export class LossScaler {
  private readonly lossScaling: LossScalingSettings;
  private lossScale: LossScaleState | undefined;

  constructor(
    precision: Precision,
    lossScaling: Partial<LossScalingSettings> | undefined,
  ) {
    this.lossScaling = resolveLossScaling(lossScaling);
    this.lossScale =
      precision === 'fp16'
        ? { scale: this.lossScaling.initialScale, goodSteps: 0 }
        : undefined;
  }

  /** The current scale; undefined unless the precision is fp16. */
  get scale(): number | undefined {
    return this.lossScale?.scale;
  }

  /** The scaler's state (a copy); undefined unless the precision is fp16. */
  get state(): LossScaleState | undefined {
    return this.lossScale === undefined ? undefined : { ...this.lossScale };
  }

  /**
   * Replaces the state (from a checkpoint); undefined restarts it at the
   * initial scale. Ignored unless the precision is fp16.
   */
  setState(state: LossScaleState | undefined): void {
    if (this.lossScale === undefined) return;
    if (
      state !== undefined &&
      !(
        Number.isFinite(state.scale) &&
        state.scale > 0 &&
        Number.isInteger(state.goodSteps) &&
        state.goodSteps >= 0
      )
    ) {
      throw new SealError({
        code: 'INVALID_ARGUMENT',
        message: `loss scale state must have a positive scale and a count of good steps, got ${JSON.stringify(state)}`,
      });
    }
    this.lossScale =
      state === undefined
        ? { scale: this.lossScaling.initialScale, goodSteps: 0 }
        : { ...state };
  }

  /**
   * After a step whose loss was finite: inf/nan gradients are an overflow of
   * the scaled gradients (the step was skipped), so the scale shrinks;
   * finite ones count towards growing it.
   */
  update(gradientsFinite: boolean): void {
    if (this.lossScale !== undefined)
      this.lossScale = nextLossScale(
        this.lossScale,
        gradientsFinite,
        this.lossScaling,
      );
  }
}

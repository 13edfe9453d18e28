import { SealError, type PolicyV1TrainResult } from '@seal/spec';
import {
  buildGradGraph,
  buildSharedPrefixGradGraph,
  scoredSlots,
  type SequenceBucket,
  type TrainObjective,
} from '../model/graph-families';
import type { ModelConfig } from '../model/model-config';
import { FlatTensors } from '../model/model-weights';
import type { EngineContext } from './engine-context';
import { checkTemperature, checkTokens } from './input-checks';
import {
  trainMicroBatches,
  weightedSlots,
  type TrainMicroBatch,
} from './micro-batches';
import {
  applyOptimizer,
  applyResidentOptimizer,
  type LossScaler,
} from './optimizer';
import { floatTensor, type ort } from './ort-session';
import {
  disposeTensors,
  pickTensors,
  prefixTensors,
  type TensorSet,
} from './resident-weights';
import {
  inverseTemperatureTensor,
  sequenceFeedTensors,
  sharedPrefixFeedTensors,
} from './sequence-tensors';
import type { Session } from './session-cache';

/** One training sequence, validated, all arrays aligned with `tokenIds`. */
export type EngineTrainSequence = {
  tokenIds: readonly number[];
  tokenWeights: readonly number[];
  advantages?: readonly number[] | undefined;
  oldLogprobs?: readonly number[] | undefined;
  refLogprobs?: readonly number[] | undefined;
};

/** Loss and optimizer settings with defaults applied. */
export type EngineTrainSettings = {
  learningRate: number;
  clipLow: number;
  clipHigh: number;
  dualClipC: number;
  klCoef: number;
  maxGradNorm: number;
  weightDecay: number;
  /** Learning-rate multiplier of the embedding tensors (0 freezes them; default 1). */
  embeddingLearningRateScale?: number;
  /**
   * Learning-rate multiplier of the final norm's gain, which scales every
   * logit (the policy's inverse temperature; default 1).
   */
  outputNormLearningRateScale?: number;
  /**
   * Learning-rate multiplier of the other norm gains and the biases
   * (default 1).
   */
  vectorLearningRateScale?: number;
  /** Learning-rate multiplier of the weight matrices (0 freezes them; default 1). */
  matrixLearningRateScale?: number;
  /**
   * The final norm's gain moves only as a whole: one scale for every logit,
   * stepped multiplicatively (default false: each element on its own).
   */
  outputNormUniform?: boolean;
  betas: [number, number];
  eps: number;
  /** The loss's log-probabilities are those of `softmax(logits / temperature)`. */
  temperature: number;
};

/** The outcome of one training step: the policy contract's result, field for field. */
export type EngineTrainResult = PolicyV1TrainResult;

/** The loss and the weighted metric sums of a batch, summed over its micro-batches. */
type LossSums = {
  loss: number;
  sumClipped: number;
  sumRatio: number;
  sumKl: number;
  sumNll: number;
};

/** A batch's summed gradients: in the host accumulator, or (with `resident`) on the device. */
type AccumulatedGradients = {
  host: FlatTensors;
  resident: TensorSet | undefined;
};

/**
 * The training step of an engine: validation, gradients accumulated over
 * micro-batches, then global-norm clipping and AdamW, whose result becomes
 * current only when the loss and the gradient norm are finite. Holds the
 * host gradient accumulators (two, fed back in turn) between steps.
 */
export class Trainer {
  private accumulators: [FlatTensors, FlatTensors] | undefined;

  constructor(
    private readonly context: EngineContext,
    private readonly lossScaler: LossScaler,
  ) {}

  /** One optimizer step over `sequences`. */
  async train({
    objective,
    sequences,
    settings,
  }: {
    objective: TrainObjective;
    sequences: readonly EngineTrainSequence[];
    settings: EngineTrainSettings;
  }): Promise<EngineTrainResult> {
    validateTrainBatch(this.context.config, objective, sequences, settings);
    const totals = weightTotals(sequences);
    const { sums, gradients } = await this.accumulateGradients({
      objective,
      sequences,
      settings,
    });
    return this.applyStep({
      loss: sums.loss,
      gradients,
      metrics: trainMetrics(sums, totals),
      settings,
    });
  }

  /**
   * Runs the grad graph of each micro-batch, each adding its gradients to
   * the previous ones: on the host through two accumulators fed in turn, or
   * with `resident` through the grad graph's device-located outputs, the
   * first micro-batch adding to the resident zeros.
   */
  private async accumulateGradients({
    objective,
    sequences,
    settings,
  }: {
    objective: TrainObjective;
    sequences: readonly EngineTrainSequence[];
    settings: EngineTrainSettings;
  }): Promise<{ sums: LossSums; gradients: AccumulatedGradients }> {
    const { residency } = this.context;
    const specs = residency.hostWeights.specs;
    this.accumulators ??= [new FlatTensors(specs), new FlatTensors(specs)];
    let [accumulatorIn, accumulatorOut] = this.accumulators;
    accumulatorIn.buffer.fill(0);
    const sums: LossSums = {
      loss: 0,
      sumClipped: 0,
      sumRatio: 0,
      sumKl: 0,
      sumNll: 0,
    };
    const resident = this.context.settings.resident
      ? await residency.resident()
      : undefined;
    let residentGradients: TensorSet | undefined;
    for (const microBatch of trainMicroBatches(
      sequences,
      this.context.settings,
    )) {
      const slots =
        microBatch.prefix === undefined &&
        this.context.settings.weightedSlotsOnly
          ? weightedSlots(microBatch.bucket, microBatch.rows)
          : undefined;
      const bucket: SequenceBucket =
        slots === undefined
          ? microBatch.bucket
          : { ...microBatch.bucket, selected: slots.length };
      const session = await this.gradSession({
        objective,
        microBatch,
        bucket,
        slots,
        deviceOutputs: resident !== undefined,
      });
      const feeds: Record<string, ort.Tensor> = {
        ...(resident === undefined
          ? residency.weightFeeds(residency.hostWeights)
          : resident.weights),
        ...(resident === undefined
          ? residency.weightFeeds(accumulatorIn, 'acc.')
          : prefixTensors(residentGradients ?? resident.zeros, 'acc.')),
        ...this.rowFeeds({ microBatch, bucket, slots }),
        ...lossFeeds({
          objective,
          bucket,
          rows: microBatch.rows,
          settings,
          slots,
        }),
        ...this.lossScaleFeed(),
      };
      let output: Record<string, ort.Tensor>;
      if (resident === undefined) {
        const fetches: Record<string, ort.Tensor | null> = {
          loss: null,
          sum_clipped: null,
          sum_ratio: null,
          sum_kl: null,
          sum_nll: null,
          ...residency.weightFeeds(accumulatorOut, 'grad.'),
        };
        output = await session.run(feeds, fetches);
        [accumulatorIn, accumulatorOut] = [accumulatorOut, accumulatorIn];
      } else {
        output = await session.run(feeds);
        disposeTensors(residentGradients);
        residentGradients = pickTensors({ output, prefix: 'grad.', specs });
      }
      addLossSums(sums, output);
    }
    return {
      sums,
      gradients: { host: accumulatorIn, resident: residentGradients },
    };
  }

  /** The grad graph's session of a micro-batch: plain, scored slots only, or a shared prefix's. */
  private gradSession({
    objective,
    microBatch,
    bucket,
    slots,
    deviceOutputs,
  }: {
    objective: TrainObjective;
    microBatch: TrainMicroBatch;
    bucket: SequenceBucket;
    slots: Int32Array | undefined;
    /** Keep the `grad.<weight>` outputs on the device (with `resident`). */
    deviceOutputs: boolean;
  }): Promise<Session> {
    const { config, matmulPrecision, sessions, settings, residency } =
      this.context;
    const lossScaling = this.lossScaler.scale !== undefined;
    const gradientNames = residency.hostWeights.specs.map(
      (spec) => `grad.${spec.name}`,
    );
    return sessions.get(
      microBatch.prefix === undefined
        ? slots === undefined
          ? `grad-${objective}:${bucket.batch}:${bucket.length}`
          : `grad-${objective}-slots:${bucket.batch}:${bucket.length}:${slots.length}`
        : `grad-shared-${objective}:${microBatch.prefixBucket}:${bucket.batch}:${bucket.length}`,
      () =>
        microBatch.prefix === undefined
          ? buildGradGraph({
              config,
              bucket,
              objective,
              matmulPrecision,
              lossScaling,
            })
          : buildSharedPrefixGradGraph({
              config,
              bucket: { prefix: microBatch.prefixBucket, ...bucket },
              objective,
              matmulPrecision,
              lossScaling,
            }),
      settings.threads,
      deviceOutputs ? { deviceOutputs: gradientNames } : {},
    );
  }

  /** The token, RoPE and bias feeds of a micro-batch's rows (and of its shared prefix). */
  private rowFeeds({
    microBatch,
    bucket,
    slots,
  }: {
    microBatch: TrainMicroBatch;
    bucket: SequenceBucket;
    slots: Int32Array | undefined;
  }): Record<string, ort.Tensor> {
    const { config } = this.context;
    const rows = microBatch.rows.map((row) => row.tokenIds);
    return microBatch.prefix === undefined
      ? sequenceFeedTensors({ config, bucket, rows, slots })
      : sharedPrefixFeedTensors({
          config,
          bucket: { prefix: microBatch.prefixBucket, ...bucket },
          prefix: microBatch.prefix,
          rows,
        });
  }

  /** The `loss_scale` feed of fp16 training; none otherwise. */
  private lossScaleFeed(): Record<string, ort.Tensor> {
    const scale = this.lossScaler.scale;
    return scale === undefined
      ? {}
      : { loss_scale: floatTensor(Float32Array.of(scale), []) };
  }

  /**
   * The optimizer step over the accumulated gradients, skipped (nothing
   * swapped) when the loss or the gradient norm is not finite; then the
   * loss scaler's update.
   */
  private async applyStep({
    loss,
    gradients,
    metrics,
    settings,
  }: {
    loss: number;
    gradients: AccumulatedGradients;
    metrics: EngineTrainResult['metrics'];
    settings: EngineTrainSettings;
  }): Promise<EngineTrainResult> {
    const { residency } = this.context;
    const skipped = (gradNorm: number): EngineTrainResult => ({
      loss,
      gradNorm,
      skipped: true,
      step: residency.hostOptimizer.step,
      metrics,
    });
    let gradNorm: number;
    try {
      if (!Number.isFinite(loss)) return skipped(Number.NaN);
      gradNorm =
        gradients.resident === undefined
          ? await applyOptimizer(this.context, {
              gradients: gradients.host,
              settings,
            })
          : await applyResidentOptimizer(this.context, {
              gradients: gradients.resident,
              settings,
            });
    } finally {
      disposeTensors(gradients.resident);
    }
    // Dynamic loss scaling: inf/nan gradients under a finite loss are an
    // overflow of the scaled gradients (the step was skipped): shrink the scale.
    this.lossScaler.update(Number.isFinite(gradNorm));
    if (!Number.isFinite(gradNorm)) return skipped(gradNorm);
    return {
      loss,
      gradNorm,
      skipped: false,
      step: residency.hostOptimizer.step,
      metrics,
    };
  }
}

/** The batch's summed loss weight and its count of weighted tokens. */
function weightTotals(sequences: readonly EngineTrainSequence[]): {
  weightSum: number;
  tokens: number;
} {
  let weightSum = 0;
  let tokens = 0;
  for (const sequence of sequences) {
    for (let t = 1; t < sequence.tokenWeights.length; t++) {
      weightSum += sequence.tokenWeights[t]!;
      if (sequence.tokenWeights[t] !== 0) tokens++;
    }
  }
  return { weightSum, tokens };
}

/** Adds a grad graph run's loss and metric sums to the batch's. */
function addLossSums(sums: LossSums, output: Record<string, ort.Tensor>): void {
  const scalar = (name: string): number =>
    Number((output[name]!.data as Float32Array)[0]);
  sums.loss += scalar('loss');
  sums.sumClipped += scalar('sum_clipped');
  sums.sumRatio += scalar('sum_ratio');
  sums.sumKl += scalar('sum_kl');
  sums.sumNll += scalar('sum_nll');
}

/** The step's metrics: the weighted sums over the batch's loss weight. */
function trainMetrics(
  sums: LossSums,
  { weightSum, tokens }: { weightSum: number; tokens: number },
): EngineTrainResult['metrics'] {
  const normaliser = weightSum === 0 ? 1 : weightSum;
  return {
    clipFraction: sums.sumClipped / normaliser,
    kl: sums.sumKl / normaliser,
    ratioMean: sums.sumRatio / normaliser,
    negativeLogLikelihood: sums.sumNll / normaliser,
    tokens,
  };
}

/** The per-token loss inputs of a micro-batch, shifted so that slot `t` holds token `t + 1`'s values, and the loss scalars. */
function lossFeeds({
  objective,
  bucket,
  rows,
  settings,
  slots,
}: {
  objective: TrainObjective;
  bucket: SequenceBucket;
  rows: readonly EngineTrainSequence[];
  settings: EngineTrainSettings;
  /** The scored slots of a `bucket.selected` graph; the per-token inputs are theirs only. */
  slots?: Int32Array | undefined;
}): Record<string, ort.Tensor> {
  const tokens = bucket.batch * bucket.length;
  // Slot t of a row predicts token t + 1, so per-token arrays shift by one.
  const shifted = (
    pick: (row: EngineTrainSequence) => readonly number[] | undefined,
  ): Float32Array => {
    const out = new Float32Array(tokens);
    rows.forEach((row, r) => {
      const values = pick(row);
      if (values === undefined) return;
      for (let t = 1; t < row.tokenIds.length; t++)
        out[r * bucket.length + t - 1] = values[t]!;
    });
    return slots === undefined
      ? out
      : Float32Array.from(slots, (slot) => out[slot]!);
  };
  const feeds: Record<string, ort.Tensor> = {
    token_weights: floatTensor(
      shifted((row) => row.tokenWeights),
      [scoredSlots(bucket)],
    ),
    inverse_temperature: inverseTemperatureTensor(settings.temperature),
  };
  if (objective === 'ppo') {
    const scalar = (x: number): ort.Tensor =>
      floatTensor(Float32Array.of(x), []);
    feeds.advantages = floatTensor(
      shifted((row) => row.advantages),
      [scoredSlots(bucket)],
    );
    feeds.old_logprobs = floatTensor(
      shifted((row) => row.oldLogprobs),
      [scoredSlots(bucket)],
    );
    feeds.ref_logprobs = floatTensor(
      shifted((row) => row.refLogprobs ?? row.oldLogprobs),
      [scoredSlots(bucket)],
    );
    feeds.clip_low = scalar(settings.clipLow);
    feeds.clip_high = scalar(settings.clipHigh);
    // An infinite cap would make -A·c = NaN at A = 0; 1e30 is "no cap" in fp32.
    feeds.dual_clip = scalar(Math.min(settings.dualClipC, 1e30));
    feeds.kl_coef = scalar(settings.klCoef);
  }
  return feeds;
}

/** Throws `INVALID_ARGUMENT` or `SHAPE_MISMATCH` for an empty batch, an unknown token, a short row or a per-token array of the wrong length or missing for the objective. */
function validateTrainBatch(
  config: ModelConfig,
  objective: TrainObjective,
  sequences: readonly EngineTrainSequence[],
  settings: EngineTrainSettings,
): void {
  if (sequences.length === 0) {
    throw new SealError({
      code: 'INVALID_ARGUMENT',
      message: 'train: the batch is empty',
    });
  }
  checkTemperature(settings.temperature, 'train');
  sequences.forEach((sequence, i) => {
    const where = `sequences[${i}]`;
    checkTokens(config, sequence.tokenIds, where);
    const n = sequence.tokenIds.length;
    if (n < 2) {
      throw new SealError({
        code: 'INVALID_ARGUMENT',
        message: `${where}: needs at least 2 tokens`,
      });
    }
    const check = (
      name: string,
      values: readonly number[] | undefined,
      required: boolean,
    ): void => {
      if (values === undefined) {
        if (required) {
          throw new SealError({
            code: 'INVALID_ARGUMENT',
            message: `${where}.${name} is required for objective '${objective}'`,
          });
        }
        return;
      }
      if (values.length !== n) {
        throw new SealError({
          code: 'SHAPE_MISMATCH',
          message: `${where}.${name} has ${values.length} entries but tokenIds has ${n}`,
          details: { field: name, length: values.length, expected: n },
        });
      }
    };
    check('tokenWeights', sequence.tokenWeights, true);
    const ppo = objective === 'ppo';
    check('advantages', sequence.advantages, ppo);
    check('oldLogprobs', sequence.oldLogprobs, ppo);
    check('refLogprobs', sequence.refLogprobs, ppo && settings.klCoef > 0);
  });
}

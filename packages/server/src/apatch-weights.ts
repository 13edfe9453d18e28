import {
  applyAPatch,
  defaultTagWeights,
  updateDynamicTagWeights,
} from '@seal/diagnose';
import { SealError } from '@seal/spec';
import * as z from 'zod';
import { parseRequestPart } from './wire';

const finite = z.number().refine(Number.isFinite, 'must be a finite number');
const weightMapSchema = z.record(
  z.string(),
  finite.refine((value) => value > 0, 'must be positive'),
);
const tagStatisticsSchema = z.record(
  z.string(),
  z.object({ count: z.number().int().nonnegative(), reward_sum: finite }),
);

/**
 * `/apatch_weights` params: a batch of trajectories' SEAL tags, and what the
 * trainer carries between steps. Stateless: the caller sends the statistics
 * and ρ it got back last time.
 */
export const apatchWeightsParamsSchema = z
  .object({
    /** Per trajectory, its per-turn SEAL tags (`bfcl_progress_info.failure_tags`). */
    failure_tags: z.array(z.array(z.string()).max(10_000)).max(100_000),
    /** Per trajectory, its reward; when given, the batch is added to `tag_statistics`. */
    rewards: z.array(finite).nullish(),
    /** Per trajectory, its GRPO advantage; returned scaled. */
    advantages: z.array(finite).nullish(),
    /** ρ₀; default SEAL's Table 6 weights (tags not listed weigh 1). */
    tag_weights: weightMapSchema.nullish(),
    /** ρ_{t−1}, as returned by the previous call (`dynamic_weights`). */
    dynamic_weights: weightMapSchema.nullish(),
    /** Window tag statistics before this batch, as returned by the previous call. */
    tag_statistics: tagStatisticsSchema.nullish(),
    /** Run the closed-loop update (§5.4). Default: true when statistics or rewards are given. */
    dynamic: z.boolean().nullish(),
    min_scale: finite.nullish(),
    max_scale: finite.nullish(),
    apply_to: z
      .enum(['all', 'positive_advantage', 'negative_advantage'])
      .nullish(),
    ema_beta: finite.nullish(),
    prevalence_alpha: finite.nullish(),
    confidence_samples: z.number().int().positive().nullish(),
  })
  .superRefine((params, context) => {
    const count = params.failure_tags.length;
    for (const key of ['rewards', 'advantages'] as const) {
      const list = params[key];
      if (list && list.length !== count) {
        context.addIssue({
          code: 'custom',
          path: [key],
          message: `has ${list.length} entries but failure_tags has ${count}`,
        });
      }
    }
  });

/** The tag SEAL counts for a trajectory without tags. */
const unknownTag = 'unknown';

/** What `/apatch_weights` returns. */
export type APatchWeightsResult = {
  /** Per trajectory, its A-Patch scale w_j (mean ρ over its turns, clipped). */
  scales: number[];
  /** The ρ the scales used. */
  weights: Record<string, number>;
  /** ρ_t to send back as `dynamic_weights` next time (equals `weights` when dynamic). */
  dynamic_weights: Record<string, number>;
  /** The window statistics including this batch, to send back next time. */
  tag_statistics: Record<string, { count: number; reward_sum: number }>;
  /** The advantages scaled by `apply_to`, when advantages were given. */
  advantages?: number[];
  /** Mean of `scales` (SEAL logs it as `seal/apatch/mean_scale`). */
  mean_scale: number;
  /** Trajectories whose scale is not 1. */
  scaled_count: number;
};

/**
 * SEAL's diagnosis-guided reweighting for an external trainer (§5.3, §5.4),
 * in SEAL's order: add the batch to the tag statistics (each turn's tag
 * counts once and adds its trajectory's reward; a trajectory without tags
 * counts as `unknown`), update ρ by the closed loop, then scale each
 * trajectory by the mean ρ of its tags (`checker_error`/`gt_error` dropped),
 * clipped to [min_scale, max_scale]. Throws INVALID_ARGUMENT naming the
 * parameter when the params are malformed.
 */
export function computeAPatchWeights(params: unknown): APatchWeightsResult {
  const input = parseRequestPart({
    schema: apatchWeightsParamsSchema,
    value: params,
    field: 'params',
  });
  const base = { ...defaultTagWeights, ...input.tag_weights };
  const statistics: Record<string, { count: number; reward_sum: number }> = {};
  for (const [tag, stat] of Object.entries(input.tag_statistics ?? {}))
    statistics[tag] = { ...stat };
  if (input.rewards) {
    input.failure_tags.forEach((tags, index) => {
      const reward = input.rewards![index]!;
      for (const tag of tags.length > 0 ? tags : [unknownTag]) {
        const stat = (statistics[tag] ??= { count: 0, reward_sum: 0 });
        stat.count += 1;
        stat.reward_sum += reward;
      }
    });
  }
  const dynamic =
    input.dynamic ?? (input.rewards != null || input.tag_statistics != null);
  const minScale = input.min_scale ?? 0.5;
  const maxScale = input.max_scale ?? 2;
  if (minScale > maxScale) {
    throw new SealError({
      code: 'INVALID_ARGUMENT',
      message: `params.min_scale (${minScale}) is larger than params.max_scale (${maxScale})`,
      details: { path: 'params.min_scale' },
    });
  }
  const weights = dynamic
    ? updateDynamicTagWeights({
        base,
        previous: input.dynamic_weights ?? {},
        statistics: Object.fromEntries(
          Object.entries(statistics).map(([tag, stat]) => [
            tag,
            { count: stat.count, rewardSum: stat.reward_sum },
          ]),
        ),
        settings: {
          ...(input.ema_beta == null ? {} : { beta: input.ema_beta }),
          ...(input.prevalence_alpha == null
            ? {}
            : { alpha: input.prevalence_alpha }),
          ...(input.confidence_samples == null
            ? {}
            : { confidenceSamples: input.confidence_samples }),
          minScale,
          maxScale,
        },
      })
    : { ...base, ...input.dynamic_weights };
  const patched = applyAPatch({
    advantages: input.advantages ?? input.failure_tags.map(() => 0),
    tags: input.failure_tags,
    weights,
    settings: { minScale, maxScale, applyTo: input.apply_to ?? 'all' },
  });
  const scales = patched.scales;
  return {
    scales,
    weights,
    dynamic_weights: weights,
    tag_statistics: statistics,
    ...(input.advantages ? { advantages: patched.advantages } : {}),
    mean_scale:
      scales.length === 0
        ? 1
        : scales.reduce((sum, scale) => sum + scale, 0) / scales.length,
    scaled_count: scales.filter((scale) => scale !== 1).length,
  };
}

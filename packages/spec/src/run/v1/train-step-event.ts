import * as z from 'zod';

const countsSchema = z.record(z.string(), z.number());

/** Where a training step's wall time went, in milliseconds. */
export const stepTimingSchema = z.object({
  /** Policy work: generation, scoring, training, checkpoint saves. */
  model: z.number(),
  /** Everything else: environment, verification, diagnosis, evolution, advantages, bookkeeping. */
  other: z.number(),
  /** The step's wall time. */
  total: z.number(),
  /** Parts of `other`, for the loop benchmark. */
  parts: countsSchema,
  /**
   * Time inside each kind of policy call (`generate`, `score`, `train`,
   * `save`; the reference policy's as `reference.score` and so on), summed
   * over the step's calls. Calls of two policies can overlap, so the sum can
   * exceed `model`. Absent in records written before it was kept.
   */
  calls: countsSchema.optional(),
});

/** See {@link stepTimingSchema}. */
export type StepTiming = z.infer<typeof stepTimingSchema>;

/** An episode of a training step as the update saw it (in `TrainStepEvent.samples`). */
export const trainSampleSchema = z.object({
  /** The episode's id (its record is in the step's episode file). */
  episodeId: z.string(),
  /** The task the episode ran. */
  taskId: z.string(),
  /** The verifier's official verdict (the success rate counts these). */
  success: z.boolean(),
  /** The reward the advantage was computed from (binary, or a curriculum stage's reward). */
  reward: z.number(),
  /** The advantage after A-Patch; 0 for an episode left out of the update. */
  advantage: z.number(),
  /** Per-turn failure tags. */
  tags: z.array(z.string()),
  /** With `frozenBaseline`: the verdict of the frozen reference policy's episode with the same task and index. */
  baselineSuccess: z.boolean().optional(),
});

/** See {@link trainSampleSchema}. */
export type TrainSample = z.infer<typeof trainSampleSchema>;

/** The `events.jsonl` record of a training step. */
export const trainStepEventSchema = z.object({
  schemaVersion: z.literal(1),
  type: z.literal('train-step'),
  /** The step (1-based). */
  step: z.number().int().nonnegative(),
  /** The training method (`seal`, `grpo`, ...). */
  method: z.string(),
  /** Mean trajectory reward of the step's rollouts. */
  rewardMean: z.number(),
  /** Share of rollouts with a valid official verdict. */
  successRate: z.number(),
  /** SEAL tag occurrences (one per ground-truth turn) over the step's rollouts. */
  tagCounts: countsSchema,
  /** The policy loss of the update. */
  loss: z.number(),
  /** The gradient's global norm before clipping. */
  gradNorm: z.number(),
  /** The KL estimate against the reference policy. */
  kl: z.number(),
  /** Share of tokens whose surrogate was clipped. */
  clipFraction: z.number(),
  /** Optimizer steps refused for a non-finite loss or gradient. */
  skippedUpdates: z.number().int().nonnegative(),
  /** Rollout groups left out of the update (equal rewards: zero advantage). */
  droppedGroups: z.number().int().nonnegative(),
  /**
   * With dynamic sampling's refill: the groups drawn beyond the scheduled
   * batch to replace groups without gradient (their rollouts are among the
   * step's samples). Absent without refill.
   */
  refilledGroups: z.number().int().nonnegative().optional(),
  /** With dynamic sampling's refill: the rounds of fresh draws the step took. */
  refillRounds: z.number().int().nonnegative().optional(),
  /** The interface overlay in force for the step's rollouts. */
  overlayHash: z.string(),
  /** A-Patch tag weights ρ used for the step's advantages. */
  tagWeights: countsSchema,
  /** The Environment Tuning stage of the step. */
  curriculumStage: z.string().optional(),
  /**
   * With `frozenBaseline`: the success rate of the frozen reference policy on
   * the same tasks, interface and sampling seeds (not trained on).
   */
  baselineSuccessRate: z.number().optional(),
  /** Where the step's wall time went. */
  timing: stepTimingSchema,
  /**
   * One record per episode of the step: its verdict and the advantage it was
   * trained with (empty in records written before samples were recorded).
   */
  samples: z.array(trainSampleSchema).default([]),
});

/** See {@link trainStepEventSchema}. */
export type TrainStepEvent = z.infer<typeof trainStepEventSchema>;

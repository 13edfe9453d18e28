import * as z from 'zod';
import {
  curriculumAdvanceReasonSchema,
  curriculumStageNameSchema,
} from './curriculum-state';

/**
 * The `events.jsonl` record of an Environment Tuning stage change: after
 * `step`, the curriculum moved from stage `from` to `to`, because the
 * validation score plateaued or the stage's step budget was spent.
 */
export const stageEventSchema = z.object({
  schemaVersion: z.literal(1),
  type: z.literal('stage'),
  /** The step after which the stage changed. */
  step: z.number().int().nonnegative(),
  /** The stage left. */
  from: curriculumStageNameSchema,
  /** The stage entered. */
  to: curriculumStageNameSchema,
  /** Why the stage ended. */
  reason: curriculumAdvanceReasonSchema,
  /** The validation accuracy of `step`, when the step was validated. */
  validation: z.number().optional(),
});

/** See {@link stageEventSchema}. */
export type StageEvent = z.infer<typeof stageEventSchema>;

/**
 * The `events.jsonl` record of an Environment Tuning validation: greedy
 * accuracy on the validation split (training tasks set aside, never trained
 * on) on the standard interface, after `step` (0: before training).
 */
export const validationEventSchema = z.object({
  schemaVersion: z.literal(1),
  type: z.literal('validation'),
  /** The step whose weights were validated. */
  step: z.number().int().nonnegative(),
  /** The stage the validated weights were trained in (`syntax` at step 0). */
  stage: curriculumStageNameSchema,
  /** Share of validation tasks solved. */
  accuracy: z.number(),
  /** Validation tasks. */
  tasks: z.number().int().nonnegative(),
  /** Per task id: 1 if the greedy episode succeeded, else 0. */
  taskSuccess: z.record(z.string(), z.number()),
});

/** See {@link validationEventSchema}. */
export type ValidationEvent = z.infer<typeof validationEventSchema>;

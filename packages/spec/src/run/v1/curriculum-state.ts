import * as z from 'zod';

/** Environment Tuning's four curriculum stages, by name, in order. */
export const curriculumStageNameSchema = z.enum([
  'syntax',
  'hints',
  'hard',
  'independent',
]);

/** See {@link curriculumStageNameSchema}. */
export type CurriculumStageName = z.infer<typeof curriculumStageNameSchema>;

/** Why a curriculum stage ended: its validation score plateaued, or its step budget was spent. */
export const curriculumAdvanceReasonSchema = z.enum(['plateau', 'budget']);

/** See {@link curriculumAdvanceReasonSchema}. */
export type CurriculumAdvanceReason = z.infer<
  typeof curriculumAdvanceReasonSchema
>;

/**
 * The serialisable state of an Environment Tuning curriculum (`@seal/evolve`
 * advances it), saved in every checkpoint's trainer state.
 */
export const curriculumStateSchema = z.object({
  schemaVersion: z.literal(1),
  /** Index of the current stage in the curriculum. */
  stage: z.number().int().nonnegative(),
  /**
   * Validation scores of the current stage, in order. A stage entered right
   * after a validation starts from that score (the weights it begins with).
   */
  scores: z.array(z.number()),
  /** The step at which the current stage began. */
  stageStartStep: z.number().int().nonnegative(),
  /**
   * Stage changes so far: after `step`, from stage `from` to `to`, why
   * (absent in states written before reasons were recorded), and the
   * validation score of that step when one was taken.
   */
  transitions: z.array(
    z.object({
      /** The step after which the stage changed. */
      step: z.number().int(),
      /** Index of the stage left. */
      from: z.number().int(),
      /** Index of the stage entered. */
      to: z.number().int(),
      /** Why the stage ended. */
      reason: curriculumAdvanceReasonSchema.optional(),
      /** The validation score of `step`, when one was taken. */
      validation: z.number().optional(),
    }),
  ),
});

/** See {@link curriculumStateSchema}. */
export type CurriculumState = z.infer<typeof curriculumStateSchema>;

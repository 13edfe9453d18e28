import * as z from 'zod';

const countsSchema = z.record(z.string(), z.number());

/** The `events.jsonl` record of an evaluation of one set, on the untouched interface. */
export const evalEventSchema = z.object({
  schemaVersion: z.literal(1),
  type: z.literal('eval'),
  /** The step whose weights were evaluated (0: before training). */
  step: z.number().int().nonnegative(),
  /** The evaluation set (`test-id`, `test-ood`, `eval`, ...). */
  set: z.string(),
  /** Share of tasks solved (BFCL's official verdict). */
  accuracy: z.number(),
  /** BFCL's overall score (the unweighted mean over categories). */
  overall: z.number(),
  /** Accuracy per BFCL category. */
  categories: z.record(
    z.string(),
    z.object({
      accuracy: z.number(),
      correctCount: z.number().int().nonnegative(),
      totalCount: z.number().int().nonnegative(),
    }),
  ),
  /** SEAL tag occurrences over the set's episodes. */
  tagCounts: countsSchema,
  /** The overlay of the evaluation (always the empty overlay's hash). */
  overlayHash: z.string(),
  /** Per task id: 1 if the greedy episode succeeded, else 0 (the pairs of before/after comparisons). */
  taskSuccess: countsSchema.optional(),
  /** With `evalSamples`: sampled pass@1 at temperature 1 on the same tasks. */
  sampled: z
    .object({
      /** Sampled episodes per task. */
      samples: z.number().int().positive(),
      /** Sampling temperature. */
      temperature: z.number(),
      /** Mean success over every sampled episode. */
      accuracy: z.number(),
      /** Per task id: the share of its sampled episodes that succeeded. */
      taskSuccess: countsSchema,
    })
    .optional(),
});

/** See {@link evalEventSchema}. */
export type EvalEvent = z.infer<typeof evalEventSchema>;

import * as z from 'zod';

/**
 * The `events.jsonl` record of a gap-monitor rollback: after `step`, the
 * policy's weights were restored to those of `toStep` (0: the starting
 * weights) and the learning rate scaled to `learningRate`.
 */
export const rollbackEventSchema = z.object({
  schemaVersion: z.literal(1),
  type: z.literal('rollback'),
  /** The step after which the weights were restored. */
  step: z.number().int().nonnegative(),
  /** The step whose weights were restored. */
  toStep: z.number().int().nonnegative(),
  /** The window's mean paired gain over the frozen warm start that triggered it. */
  windowGain: z.number(),
  /** The learning rate from the next step on. */
  learningRate: z.number(),
});

/** See {@link rollbackEventSchema}. */
export type RollbackEvent = z.infer<typeof rollbackEventSchema>;

import * as z from 'zod';

/**
 * The gap monitor's state (`@seal/rl`), saved in every checkpoint's trainer
 * state so that a resumed run decides the same way.
 */
export const gapMonitorStateSchema = z.object({
  /** Gains of the steps since the last rollback (the window reads the last `window`). */
  gains: z.array(z.number()),
  /** The step whose weights are kept as the best (0: the starting weights). */
  bestStep: z.number().int().nonnegative(),
  /** The trailing mean gain that made `bestStep` the best. */
  bestGain: z.number(),
  /** Rollbacks so far. */
  rollbacks: z.number().int().nonnegative(),
  /** The factor on the configured learning rate now in force. */
  learningRateScale: z.number(),
});

/** See {@link gapMonitorStateSchema}. */
export type GapMonitorState = z.infer<typeof gapMonitorStateSchema>;

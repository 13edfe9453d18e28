import * as z from 'zod';

/**
 * `cod-state.json` in a Connect the Dots run directory: where
 * `seal train --method cod` stood after its last finished step. It is
 * written (atomically) after the step's pack runs and checkpoint, so a
 * killed run resumes at `nextStep` from that checkpoint with nothing lost.
 */
export const codTrainStateSchema = z.object({
  schemaVersion: z.literal(1),
  /** The next training step to run, from 0 (the number of finished steps). */
  nextStep: z.number().int().nonnegative(),
  /**
   * The checkpoint after `nextStep` steps, a directory relative to the run
   * directory (`checkpoints/step-000002`). Each step saves a new one before
   * this file names it, so a kill never leaves the state pointing at weights
   * of another step. Absent: `checkpoint` (runs written before it existed).
   */
  checkpoint: z.string().min(1).optional(),
});

/** See {@link codTrainStateSchema}. */
export type CodTrainState = z.infer<typeof codTrainStateSchema>;

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
});

/** See {@link codTrainStateSchema}. */
export type CodTrainState = z.infer<typeof codTrainStateSchema>;

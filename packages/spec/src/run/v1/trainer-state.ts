import * as z from 'zod';
import { curriculumStateSchema } from './curriculum-state';
import { gapMonitorStateSchema } from './gap-monitor-state';

/**
 * A checkpoint's `trainer-state.json`: where the training loop stood after
 * the checkpoint's step, so that a resumed run goes on exactly there.
 */
export const trainerStateSchema = z.object({
  schemaVersion: z.literal(1),
  /** The last completed step. */
  step: z.number().int().nonnegative(),
  /** The Environment Tuning curriculum (its initial state for other methods). */
  curriculum: curriculumStateSchema,
  /** The gap monitor's state (with `gapMonitor`). */
  gapMonitor: gapMonitorStateSchema.optional(),
});

/** See {@link trainerStateSchema}. */
export type TrainerState = z.infer<typeof trainerStateSchema>;

/** `checkpoints/latest.json`: the step of the newest complete checkpoint. */
export const latestCheckpointSchema = z.object({
  /** The step of `checkpoints/step-<step>`. */
  step: z.number().int().nonnegative(),
});

/** See {@link latestCheckpointSchema}. */
export type LatestCheckpoint = z.infer<typeof latestCheckpointSchema>;

import * as z from 'zod';
import { interfaceOverlaySchema } from '../../overlay/v1/interface-overlay';

/** One `overlays.jsonl` line: the interface overlay in force at a training step. */
export const overlayLineSchema = z.object({
  /** The training step whose rollouts ran under the overlay. */
  step: z.number().int().nonnegative(),
  /** The overlay's content hash (episodes record it as `overlayHash`). */
  hash: z.string(),
  /** The overlay itself. */
  overlay: interfaceOverlaySchema,
});

/** See {@link overlayLineSchema}. */
export type OverlayLine = z.infer<typeof overlayLineSchema>;

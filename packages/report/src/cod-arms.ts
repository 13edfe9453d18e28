import * as z from 'zod';

/**
 * The file a Connect the Dots comparison leaves in a CoD run directory
 * (`pnpm bench cod`): success against the pack position for the models it
 * compares (`before` the warm start, `cod` after CoD training, `one-by-one`
 * after GRPO on the same tasks one by one at the same budget), each with a
 * 95% interval, and each model's Δ(position 4 − position 1).
 */
export const codArmsFileName = 'cod-arms.json';

const interval = z.object({
  mean: z.number(),
  low: z.number(),
  high: z.number(),
});

const armSchema = z.object({
  /** `before`, `cod` or `one-by-one`. */
  model: z.string().min(1),
  /** Rows (seeds; the warm start has one) and packs the figures pool. */
  rows: z.number().int().positive(),
  packs: z.number().int().positive(),
  /** Success by position (1-based), mean over rows and packs, with its interval. */
  curve: z.array(interval.extend({ position: z.number().int().positive() })),
  /** Δ4−1 with its interval and the minimum detectable effect (null when it cannot be told). */
  delta: interval.extend({ mde: z.number().nullable() }),
});

const loopSchema = z.object({ arms: z.array(armSchema).min(1) });

/** See {@link codArmsFileName}. */
export const codArmsSchema = z.object({
  schemaVersion: z.literal(1),
  kind: z.literal('cod-arms'),
  /** The command that measured it, and when. */
  command: z.string(),
  date: z.string(),
  seeds: z.array(z.number().int()),
  /** How the intervals were made (e.g. `95% crossed two-way bootstrap over seeds and packs`). */
  intervals: z.string(),
  /** The CoD loop's evaluation packs. */
  cod: loopSchema,
  /** The Ralph loop (each pack's first task repeated), when measured. */
  ralph: loopSchema.optional(),
});

/** See {@link codArmsSchema}. */
export type CodArms = z.infer<typeof codArmsSchema>;

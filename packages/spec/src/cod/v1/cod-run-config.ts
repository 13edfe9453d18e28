import * as z from 'zod';

/**
 * `config.json` in a Connect the Dots run directory: the resolved settings
 * of `seal train --method cod` (preset sizes with the flags applied), for
 * the report and the viewer.
 */
export const codRunConfigSchema = z.object({
  schemaVersion: z.literal(1),
  /** The run's id (also each pack run's `runId`). */
  runId: z.string().min(1),
  method: z.literal('cod'),
  /** The preset the sizes came from (`smoke`, `default`, …). */
  preset: z.string().min(1),
  /** The pack environment's CLI name (`frozen-lake`, `bfcl`). */
  environment: z.string().min(1),
  /** Its id in the pack runs (`frozen-lake-obscure`, `bfcl-aliases`). */
  environmentId: z.string().min(1),
  /** Seed of the tasks, the pack seeds and the sampling. */
  seed: z.number().int().nonnegative(),
  /** Training steps. */
  steps: z.number().int().nonnegative(),
  /** Packs rolled out per step. */
  packsPerStep: z.number().int().positive(),
  /** Runs per pack (the group of the baseline, G). */
  groupSize: z.number().int().min(2),
  /** Tasks per training pack. */
  packSize: z.number().int().min(2),
  /** Packs per evaluation (before and after training). */
  evalPacks: z.number().int().nonnegative(),
  /** Tasks per evaluation pack. */
  evalPackSize: z.number().int().min(2),
  /** Runs of each evaluation pack (sampled together); absent means 1. */
  evalRuns: z.number().int().positive().optional(),
  learningRate: z.number().nonnegative(),
  temperature: z.number().positive(),
  /** Tokens per solve action. */
  maxTokens: z.number().int().positive(),
  /** Tokens per update-context response. */
  updateMaxTokens: z.number().int().positive(),
  /** The model the run started from (a directory). */
  initialModel: z.string(),
  /** Prompt wording (`paper` or `compact`); absent in runs written before it existed (`paper`). */
  format: z.enum(['paper', 'compact']).optional(),
  /**
   * `cod` (pack runs with hint updates) or `one-by-one` (the control: GRPO on
   * the same tasks, each solved with `Hints: null`); absent means `cod`.
   */
  arm: z.enum(['cod', 'one-by-one']).optional(),
});

/** See {@link codRunConfigSchema}. */
export type CodRunConfig = z.infer<typeof codRunConfigSchema>;

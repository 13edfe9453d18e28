import { interfaceOverlaySchema } from '@seal/spec';
import * as z from 'zod';

/*
 * Schemas of the run-directory files written by `@seal/rl`'s training loop.
 * They list only the fields the report reads, so a record with more fields
 * (a newer writer) still parses, and a field an older writer did not record
 * is `null`/absent rather than an error.
 */

const countsSchema = z.record(z.string(), z.number());

/** An `events.jsonl` record of one training step (`type: 'train-step'`). */
export const trainStepEventSchema = z.object({
  type: z.literal('train-step'),
  step: z.number().int().nonnegative(),
  method: z.string().nullish(),
  /** Mean trajectory reward of the step's rollouts. */
  rewardMean: z.number().nullish(),
  /** Share of rollouts with a valid official verdict. */
  successRate: z.number().nullish(),
  /** SEAL tag occurrences (one per ground-truth turn) over the step's rollouts. */
  tagCounts: countsSchema.nullish(),
  loss: z.number().nullish(),
  gradNorm: z.number().nullish(),
  kl: z.number().nullish(),
  clipFraction: z.number().nullish(),
  droppedGroups: z.number().nullish(),
  /** The interface overlay in force for the step's rollouts. */
  overlayHash: z.string().nullish(),
  /** A-Patch tag weights ρ used for the step's advantages. */
  tagWeights: countsSchema.nullish(),
  curriculumStage: z.string().nullish(),
  timing: z
    .object({
      model: z.number().nullish(),
      other: z.number().nullish(),
      total: z.number().nullish(),
    })
    .nullish(),
});

/** See {@link trainStepEventSchema}. */
export type TrainStepRecord = z.infer<typeof trainStepEventSchema>;

/** An `events.jsonl` record of one evaluation of one set (`type: 'eval'`). */
export const evalEventSchema = z.object({
  type: z.literal('eval'),
  step: z.number().int().nonnegative(),
  /** The evaluation set (`test-id`, `test-ood`, `eval`, ...). */
  set: z.string(),
  /** Share of tasks solved (BFCL's official verdict). */
  accuracy: z.number(),
  /** BFCL's overall score (the unweighted mean over categories). */
  overall: z.number().nullish(),
  categories: z
    .record(
      z.string(),
      z.object({
        accuracy: z.number(),
        correctCount: z.number().nullish(),
        totalCount: z.number().nullish(),
      }),
    )
    .nullish(),
  tagCounts: countsSchema.nullish(),
});

/** See {@link evalEventSchema}. */
export type EvalRecord = z.infer<typeof evalEventSchema>;

/** One `overlays.jsonl` line: the overlay in force at a training step. */
export const overlayLineSchema = z.object({
  step: z.number().int().nonnegative(),
  hash: z.string(),
  overlay: interfaceOverlaySchema,
});

/** See {@link overlayLineSchema}. */
export type OverlayLine = z.infer<typeof overlayLineSchema>;

/** The fields of `config.json` (the resolved training config) the report shows. */
export const runConfigSchema = z
  .object({
    runId: z.string().nullish(),
    seed: z.number().int().nullish(),
    method: z.string().nullish(),
    steps: z.number().int().nullish(),
    tasksPerStep: z.number().int().nullish(),
    groupSize: z.number().int().nullish(),
    evalEvery: z.number().int().nullish(),
    episode: z
      .object({
        protocol: z.string().nullish(),
        promptMode: z.string().nullish(),
      })
      .nullish(),
  })
  .loose();

/** See {@link runConfigSchema}. */
export type RunConfig = z.infer<typeof runConfigSchema>;

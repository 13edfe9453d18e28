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

/**
 * An `events.jsonl` record of an Environment Tuning stage change
 * (`type: 'stage'`): after `step`, from stage `from` to `to`.
 */
export const stageEventSchema = z.object({
  type: z.literal('stage'),
  step: z.number().int().nonnegative(),
  from: z.string(),
  to: z.string(),
  /** `plateau` (the validation score stopped improving) or `budget` (the stage's steps were spent). */
  reason: z.string().nullish(),
  /** The validation accuracy of `step`, when it was validated. */
  validation: z.number().nullish(),
});

/**
 * An `events.jsonl` record of a gap-monitor rollback (`type: 'rollback'`):
 * after `step` the weights were restored to those of `toStep` and the
 * learning rate lowered.
 */
export const rollbackEventSchema = z.object({
  type: z.literal('rollback'),
  step: z.number().int().nonnegative(),
  toStep: z.number().int().nonnegative(),
  /** The window's mean paired gain over the frozen warm start that triggered it. */
  windowGain: z.number(),
  /** The learning rate from the next step on. */
  learningRate: z.number(),
});

/** See {@link rollbackEventSchema}. */
export type RollbackRecord = z.infer<typeof rollbackEventSchema>;

/** See {@link stageEventSchema}. */
export type StageRecord = z.infer<typeof stageEventSchema>;

/**
 * An `events.jsonl` record of an Environment Tuning validation
 * (`type: 'validation'`): greedy accuracy on the held-out training tasks after `step`.
 */
export const validationEventSchema = z.object({
  type: z.literal('validation'),
  step: z.number().int().nonnegative(),
  /** The stage the validated weights were trained in. */
  stage: z.string().nullish(),
  accuracy: z.number(),
  tasks: z.number().int().nullish(),
});

/** See {@link validationEventSchema}. */
export type ValidationRecord = z.infer<typeof validationEventSchema>;

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

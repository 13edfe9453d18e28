import * as z from 'zod';
import { sealWarningSchema } from '../../shared/seal-warning';
import { failureTagSchema } from './failure-tag';

/** BFCL's multi-turn error types. */
export const bfclErrorTypeSchema = z.enum([
  'multi_turn:force_terminated',
  'multi_turn:empty_turn_model_response',
  'multi_turn:instance_state_mismatch',
  'multi_turn:execution_response_mismatch',
  'multi_turn:inference_error',
]);

/** BFCL's official verdict for one entry (runner + checker, stopping at the first failure). */
export const officialVerdictSchema = z.object({
  valid: z.boolean(),
  errorType: bfclErrorTypeSchema.optional(),
  /** BFCL's message text. */
  errorMessage: z.string().optional(),
  /** `runner` for the turn-count check, `checker` for the per-turn checks. */
  checkedBy: z.enum(['runner', 'checker']).optional(),
  /** The turn the checker stopped at (absent when valid or force-terminated). */
  failedTurn: z.number().int().optional(),
  /** State mismatch: the first class that differs, in involved-class order. */
  mismatchClass: z.string().optional(),
  /** State mismatch: its differing public attributes, in `vars()` order. */
  mismatchAttributes: z.array(z.string()).optional(),
  /** Response mismatch: ground-truth results missing from the model's accumulated results. */
  missingItems: z.array(z.string()).optional(),
});

/** The per-turn verdict of SEAL's scorer (does not stop at the first failure). */
export const turnVerdictSchema = z.object({
  turn: z.number().int().nonnegative(),
  tag: failureTagSchema,
  /** `true`/`false` for scorable turns; `null` for empty ground-truth turns. */
  valid: z.boolean().nullable(),
  /** For empty ground-truth turns: 1 if the model abstained, else 0; `null` otherwise. */
  irrelevance: z.number().nullable(),
  /** Why the turn failed (`state_mismatch`, a checker error text, ...). */
  error: z.string().optional(),
  /** The model's result strings in this turn (all steps, in order). */
  modelResults: z.array(z.string()),
  /** The ground truth's result strings in this turn. */
  groundTruthResults: z.array(z.string()),
  mismatchClass: z.string().optional(),
  mismatchAttributes: z.array(z.string()).optional(),
  missingItems: z.array(z.string()).optional(),
});

/** Rewards computed from the same execution. */
export const rewardsSchema = z.object({
  /** SEAL's reward: 1 if BFCL's official verdict is valid, else 0. */
  binary: z.number(),
  /**
   * Environment Tuning's progress reward with a fixed denominator: turns that
   * passed (or correctly abstained) over the ground-truth turn count.
   */
  progress: z.number(),
  /** Environment Tuning's format reward (format + tool-call rates, 0–2), from the step codes. */
  format: z.number(),
});

/** Everything the verifier knows about one episode. */
export const verifierV1ResultSchema = z.object({
  schemaVersion: z.literal(1),
  verifierId: z.string(),
  taskId: z.string(),
  episodeId: z.string().optional(),
  category: z.string(),
  official: officialVerdictSchema,
  turns: z.array(turnVerdictSchema),
  /** Passed scorable turns over scorable turns (SEAL's `progress`). */
  progress: z.number(),
  /** (Passed + correct abstentions) over (scorable + empty turns). */
  progressWithIrrelevance: z.number(),
  passedTurns: z.number().int(),
  scorableTurns: z.number().int(),
  passedIrrelevanceTurns: z.number().int(),
  irrelevanceTurns: z.number().int(),
  /** The trajectory had fewer turns than the ground truth. */
  terminatedEarly: z.boolean(),
  rewards: rewardsSchema,
  warnings: z.array(sealWarningSchema),
});

/** See {@link verifierV1ResultSchema}. */
export type VerifierV1Result = z.infer<typeof verifierV1ResultSchema>;
/** See {@link officialVerdictSchema}. */
export type OfficialVerdict = z.infer<typeof officialVerdictSchema>;
/** See {@link turnVerdictSchema}. */
export type TurnVerdict = z.infer<typeof turnVerdictSchema>;
/** See {@link bfclErrorTypeSchema}. */
export type BfclErrorType = z.infer<typeof bfclErrorTypeSchema>;
/** See {@link rewardsSchema}. */
export type Rewards = z.infer<typeof rewardsSchema>;

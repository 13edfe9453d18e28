import * as z from 'zod';
import { sealWarningSchema } from '../../shared/seal-warning';

/**
 * The tags the generic verifier emits, in the order it picks a turn's
 * primary tag. Names shared with SEAL's v1 tags (`failureTagSchema`
 * and the fine tags) mean the same thing; the rest are new. Tags are open
 * strings in results, so a checker may emit its own.
 */
export const genericTagsV2 = [
  /** Replaying the ground truth failed (excluded from reweighting). */
  'gt_error',
  /** The task's checker threw (excluded from reweighting). */
  'checker_error',
  /** Nothing expected but the policy called a tool. */
  'spurious_tool_call',
  /** Nothing expected and nothing called: the right thing (passes). */
  'correct_abstention',
  /** Output that did not parse into calls or a reply, and no valid call. */
  'invalid_call',
  /** Calls expected but the policy made none (SEAL's name). */
  'empty_turn_model_response',
  /** A call failed (tool error, invalid arguments, unknown tool, timeout) and no successful call followed. */
  'recovery_failure',
  /** The policy called another tool where a ground-truth call was expected. */
  'wrong_tool',
  /** A ground-truth call was never made. */
  'missing_call',
  /** The right tool with different arguments. */
  'argument_mismatch',
  /** A successful call the ground truth does not make. */
  'extra_call',
  /** The session state after the turn differs from the ground truth's. */
  'state_mismatch',
  /** A ground-truth result is missing from the policy's results. */
  'response_mismatch',
  /** The task's checker failed the turn without naming a tag. */
  'checker_fail',
  /** The turn passed. */
  'pass',
] as const;

/** One of {@link genericTagsV2}. */
export type GenericTagV2 = (typeof genericTagsV2)[number];

/** The per-turn verdict of a v2 verifier or checker. */
export const turnVerdictV2Schema = z.object({
  turn: z.number().int().nonnegative(),
  /** Whether the turn passed (a correct abstention passes). */
  pass: z.boolean(),
  /** The primary tag: `pass`, `correct_abstention`, or the first failure. */
  tag: z.string(),
  /** Every tag that applies, primary first. */
  tags: z.array(z.string()),
  /** Whether the turn counts for reweighting (false for gt_error, checker_error). */
  scorable: z.boolean(),
  /** Human-readable detail of the failure. */
  detail: z.string().optional(),
});

/** See {@link turnVerdictV2Schema}. */
export type TurnVerdictV2 = z.infer<typeof turnVerdictV2Schema>;

/** What a task checker returns: one verdict per turn. */
export const checkerVerdictV2Schema = z.object({
  turns: z.array(
    z.object({
      pass: z.boolean(),
      /** Defaults to `pass` or `checker_fail`. */
      tag: z.string().optional(),
      detail: z.string().optional(),
    }),
  ),
});

/** See {@link checkerVerdictV2Schema}. */
export type CheckerVerdictV2 = z.infer<typeof checkerVerdictV2Schema>;

/** Generic rewards, each in [0, 1]. */
export const rewardsV2Schema = z.object({
  /** 1 if every turn passed, else 0. */
  success: z.number(),
  /** Passed turns over the task's turns (a per-turn validity rate). */
  validity: z.number(),
  /** Steps that parsed and named an available tool with valid arguments, over all steps (1 with no steps). */
  format: z.number(),
});

/** See {@link rewardsV2Schema}. */
export type RewardsV2 = z.infer<typeof rewardsV2Schema>;

/** Everything a v2 verifier knows about one episode. */
export const verifierV2ResultSchema = z.object({
  schemaVersion: z.literal(2),
  verifierId: z.string(),
  taskId: z.string(),
  /** The task's category, or `default`. */
  category: z.string(),
  /** One per task turn (turns the episode never reached fail as `empty_turn_model_response` or `correct_abstention`). */
  turns: z.array(turnVerdictV2Schema),
  /** Every turn passed. */
  success: z.boolean(),
  rewards: rewardsV2Schema,
  warnings: z.array(sealWarningSchema),
});

/** See {@link verifierV2ResultSchema}. */
export type VerifierV2Result = z.infer<typeof verifierV2ResultSchema>;

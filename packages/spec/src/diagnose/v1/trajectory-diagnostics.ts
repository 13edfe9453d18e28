import * as z from 'zod';

/**
 * SEAL's trajectory-level diagnostics (`env_handler._diagnose_trajectory`),
 * adapted to `EpisodeRecord`s. Stored beside the per-turn tags and never
 * used by reweighting; SEAL tried process rewards built from these rates and
 * dropped them (they reward any well-formed call and hurt miss_func).
 */
export const trajectoryDiagnosticsSchema = z.object({
  /** The episode completed every turn with no invalid call and no tool error. */
  clean: z.boolean(),
  /** Some step had a parse error or a refused call. */
  hasInvalidToolCall: z.boolean(),
  /** Some executed call's result signalled an error. */
  hasToolError: z.boolean(),
  /** Invalid steps (one per step) plus tool errors (one per execution). */
  errorCount: z.number().int().nonnegative(),
  /** Question turns the episode reached (SEAL: user messages). */
  numUserTurns: z.number().int().nonnegative(),
  /** Reached turns with at least one attempted call. */
  numTurnsWithToolCall: z.number().int().nonnegative(),
  /**
   * Calls attempted: every accepted call, plus the calls of a refused step
   * (at least one per step with a parse error or a refused call).
   */
  numToolCallsAttempted: z.number().int().nonnegative(),
  /** Calls accepted by the parser and the availability check. */
  numToolCallsAccepted: z.number().int().nonnegative(),
  /** Executed calls whose result signalled no error. */
  numToolExecutionsNoError: z.number().int().nonnegative(),
  /** `numTurnsWithToolCall / numUserTurns` (0 without turns). */
  turnCoverageRate: z.number(),
  /** `numToolCallsAccepted / numToolCallsAttempted` (0 without attempts). */
  toolCallAcceptRate: z.number(),
  /** `numToolExecutionsNoError / numToolCallsAccepted` (0 without accepted calls). */
  toolExecSuccessRate: z.number(),
});

/** See {@link trajectoryDiagnosticsSchema}. */
export type TrajectoryDiagnostics = z.infer<typeof trajectoryDiagnosticsSchema>;

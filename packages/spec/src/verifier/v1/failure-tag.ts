import * as z from 'zod';

/**
 * SEAL's per-turn failure tags, exactly the set its scorer emits
 * (`multi_turn_progress.py`), in the order the scorer tests them:
 * `gt_error`, then for an empty ground-truth turn `spurious_tool_call` /
 * `correct_abstention`, then `empty_turn_model_response`,
 * `instance_mismatch`, `state_mismatch` (or `checker_error`),
 * `response_mismatch` (or `checker_error`), else `pass`.
 */
export const failureTagSchema = z.enum([
  /** The turn passed the state and response checks. */
  'pass',
  /** Empty ground truth and the model made no call: the right thing. */
  'correct_abstention',
  /** Empty ground truth but the model called tools. */
  'spurious_tool_call',
  /** Non-empty ground truth but the model made no call (BFCL's empty_turn_model_response). */
  'empty_turn_model_response',
  /** The model's and the ground truth's instantiated classes differ. */
  'instance_mismatch',
  /** BFCL's state checker failed. */
  'state_mismatch',
  /** BFCL's response checker failed. */
  'response_mismatch',
  /** A checker raised (excluded from reweighting). */
  'checker_error',
  /** Executing the ground truth raised (excluded from reweighting). */
  'gt_error',
]);

/** See {@link failureTagSchema}. */
export type FailureTag = z.infer<typeof failureTagSchema>;

/**
 * Finer tags derived from the episode's event stream, kept apart from
 * {@link FailureTag} so they never change SEAL's numbers (paper Table 5):
 * `invalid_tool_call` (a parse error or a call to an unavailable tool in the
 * turn), `argument_mismatch` (a call raised an argument or type error),
 * `recovery_failure` (a tool error was not followed by a successful call in
 * the same turn).
 */
export const fineTagSchema = z.enum([
  'invalid_tool_call',
  'argument_mismatch',
  'recovery_failure',
]);

/** See {@link fineTagSchema}. */
export type FineTag = z.infer<typeof fineTagSchema>;

import type {
  EpisodeRecord,
  TrajectoryDiagnostics,
  VerifierV1Result,
} from '@seal/spec';

/**
 * The non-sparse `/evaluate` result, field for field as SEAL's
 * `env_handler.evaluate` returns it (§7.2), plus `bfcl_error_type` and
 * `bfcl_error_message` (BFCL's verdict details, ours).
 */
export type SealEvaluation = {
  /** The evaluation ran (not the verdict: see `accuracy`). */
  valid: true;
  /** BFCL's official multi-turn accuracy: 1 or 0. */
  accuracy: number;
  total_count: number;
  correct_count: number;
  test_category: string;
  test_id: string;
  model_name: string;
  /** Sum of `params.usage.prompt_tokens` sent with `/step` (SEAL never filled it: 0). */
  input_tokens: number;
  /** Sum of `params.usage.completion_tokens` sent with `/step`. */
  output_tokens: number;
  /** SEAL's turn counter: user-turn advances so far (turns reached − 1). */
  turn_count: number;
  /** The conversation reached `[CONVERSATION_COMPLETED]`. */
  completed: boolean;
  bfcl_progress: number;
  bfcl_progress_with_irrelevance: number;
  bfcl_progress_info: {
    /** Per ground-truth turn: pass/fail, `null` for empty ground-truth turns. */
    per_turn_valid: (boolean | null)[];
    /** Per ground-truth turn: 1/0 for empty ground-truth turns, else `null`. */
    irrelevance_per_turn: (number | null)[];
    /** SEAL's per-turn tags, one per ground-truth turn. */
    failure_tags: string[];
    passed_turns: number;
    scorable_turns: number;
    passed_irrelevance_turns: number;
    irrelevance_turns: number;
    terminated_early: boolean;
    error: string | null;
  };
  trajectory_clean: boolean;
  trajectory_has_invalid_tool_call: boolean;
  trajectory_has_tool_error: boolean;
  trajectory_error_count: number;
  trajectory_num_user_turns: number;
  trajectory_num_turns_with_tool_call: number;
  trajectory_num_tool_calls_attempted: number;
  trajectory_num_tool_calls_accepted: number;
  trajectory_num_tool_executions_no_error: number;
  trajectory_turn_coverage_rate: number;
  trajectory_tool_call_accept_rate: number;
  trajectory_tool_exec_success_rate: number;
  /** BFCL's error type when the verdict failed (ours), else `null`. */
  bfcl_error_type: string | null;
  /** BFCL's error message when the verdict failed (ours), else `null`. */
  bfcl_error_message: string | null;
};

/** Builds SEAL's evaluation dict from a record, its verification and its trajectory diagnostics. */
export function toSealEvaluation({
  record,
  result,
  trajectory,
  modelName,
}: {
  record: EpisodeRecord;
  result: VerifierV1Result;
  trajectory: TrajectoryDiagnostics;
  modelName: string;
}): SealEvaluation {
  const accuracy = result.official.valid ? 1 : 0;
  let inputTokens = 0;
  let outputTokens = 0;
  for (const turn of record.turns) {
    for (const step of turn.steps) {
      inputTokens += step.promptTokens ?? 0;
      outputTokens += step.completionTokens ?? 0;
    }
  }
  return {
    valid: true,
    accuracy,
    total_count: 1,
    correct_count: accuracy,
    test_category: result.category,
    test_id: result.taskId,
    model_name: modelName,
    input_tokens: inputTokens,
    output_tokens: outputTokens,
    turn_count: Math.max(0, record.turns.length - 1),
    completed: record.endReason === 'completed',
    bfcl_progress: result.progress,
    bfcl_progress_with_irrelevance: result.progressWithIrrelevance,
    bfcl_progress_info: {
      per_turn_valid: result.turns.map((turn) => turn.valid),
      irrelevance_per_turn: result.turns.map((turn) => turn.irrelevance),
      failure_tags: result.turns.map((turn) => turn.tag),
      passed_turns: result.passedTurns,
      scorable_turns: result.scorableTurns,
      passed_irrelevance_turns: result.passedIrrelevanceTurns,
      irrelevance_turns: result.irrelevanceTurns,
      terminated_early: result.terminatedEarly,
      error: null,
    },
    trajectory_clean: trajectory.clean,
    trajectory_has_invalid_tool_call: trajectory.hasInvalidToolCall,
    trajectory_has_tool_error: trajectory.hasToolError,
    trajectory_error_count: trajectory.errorCount,
    trajectory_num_user_turns: trajectory.numUserTurns,
    trajectory_num_turns_with_tool_call: trajectory.numTurnsWithToolCall,
    trajectory_num_tool_calls_attempted: trajectory.numToolCallsAttempted,
    trajectory_num_tool_calls_accepted: trajectory.numToolCallsAccepted,
    trajectory_num_tool_executions_no_error:
      trajectory.numToolExecutionsNoError,
    trajectory_turn_coverage_rate: trajectory.turnCoverageRate,
    trajectory_tool_call_accept_rate: trajectory.toolCallAcceptRate,
    trajectory_tool_exec_success_rate: trajectory.toolExecSuccessRate,
    bfcl_error_type: result.official.errorType ?? null,
    bfcl_error_message: result.official.errorMessage ?? null,
  };
}

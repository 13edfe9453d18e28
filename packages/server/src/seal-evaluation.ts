import type {
  EnvServiceEvaluation,
  EpisodeRecord,
  TrajectoryDiagnostics,
  VerifierV1Result,
} from '@seal/spec';

/**
 * Builds SEAL's evaluation dict (`/evaluate` with `sparse: false`) from a
 * record, its verification and its trajectory diagnostics.
 */
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
}): EnvServiceEvaluation {
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

import type { EpisodeRecord, TrajectoryDiagnostics } from '@seal/spec';
import { toolErrorOf } from './tool-error';

/**
 * SEAL's trajectory diagnostics (`env_handler._diagnose_trajectory`) over an
 * episode record. Per reached turn and step:
 * - a step with a parse error or refused calls sets `hasInvalidToolCall`,
 *   adds one error, and counts its calls as attempted (SEAL: the calls of the
 *   refused message, at least one; a parse error that decoded nothing counts
 *   as one attempt here);
 * - a step with accepted calls counts them as attempted and accepted;
 * - either kind marks the turn as one with a tool call;
 * - every `call-executed` event whose result signals an error (see
 *   `toolErrorOf`) sets `hasToolError` and adds one error; the others count as
 *   executions without error.
 * `clean` needs the episode to have completed. SEAL also counted an
 * `[ERROR]` environment message as a second error for the same refused step;
 * here each refused step counts once.
 */
export function diagnoseTrajectory(
  record: EpisodeRecord,
): TrajectoryDiagnostics {
  let hasInvalidToolCall = false;
  let hasToolError = false;
  let errorCount = 0;
  let numTurnsWithToolCall = 0;
  let numToolCallsAttempted = 0;
  let numToolCallsAccepted = 0;
  let numToolExecutionsNoError = 0;

  for (const turn of record.turns) {
    let turnHadCall = false;
    for (const step of turn.steps) {
      if (step.parseError !== undefined || step.rejectedCalls > 0) {
        hasInvalidToolCall = true;
        errorCount++;
        numToolCallsAttempted += Math.max(1, step.rejectedCalls);
        turnHadCall = true;
      } else if (step.calls.length > 0) {
        numToolCallsAttempted += step.calls.length;
        numToolCallsAccepted += step.calls.length;
        turnHadCall = true;
      }
    }
    if (turnHadCall) numTurnsWithToolCall++;
  }
  for (const event of record.events) {
    if (event.type !== 'call-executed') continue;
    if (toolErrorOf(event) === undefined) numToolExecutionsNoError++;
    else {
      hasToolError = true;
      errorCount++;
    }
  }

  const numUserTurns = record.turns.length;
  return {
    clean:
      record.endReason === 'completed' && !hasInvalidToolCall && !hasToolError,
    hasInvalidToolCall,
    hasToolError,
    errorCount,
    numUserTurns,
    numTurnsWithToolCall,
    numToolCallsAttempted,
    numToolCallsAccepted,
    numToolExecutionsNoError,
    turnCoverageRate:
      numUserTurns > 0 ? numTurnsWithToolCall / numUserTurns : 0,
    toolCallAcceptRate:
      numToolCallsAttempted > 0
        ? numToolCallsAccepted / numToolCallsAttempted
        : 0,
    toolExecSuccessRate:
      numToolCallsAccepted > 0
        ? numToolExecutionsNoError / numToolCallsAccepted
        : 0,
  };
}

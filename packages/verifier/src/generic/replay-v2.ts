import {
  SealError,
  groundTruthChecksV2Schema,
  type EnvironmentV2,
  type EnvironmentV2Session,
  type EpisodeTraceV2,
  type GroundTruthCallV2,
  type GroundTruthChecksV2,
  type TaskV2,
  type ToolOutcomeV2,
  type TurnTraceV2,
} from '@seal/spec';
import type { GroundTruthTurnV2 } from './tag-turn';

/** The message of anything thrown. */
export function errorText(thrown: unknown): string {
  return thrown instanceof Error ? thrown.message : String(thrown);
}

/** The checks of a task, defaults filled in. */
export function checksOf(task: TaskV2): GroundTruthChecksV2 {
  return groundTruthChecksV2Schema.parse(task.checks ?? {});
}

async function closeQuietly(session: EnvironmentV2Session): Promise<void> {
  try {
    await session.close();
  } catch {
    // Closing is best effort; the episode's verdicts are already final.
  }
}

/** The deadline the replays put on each call, past the environment's own. */
export const replayCallTimeoutMs = 120_000;

async function callSafely(
  session: EnvironmentV2Session,
  call: GroundTruthCallV2,
): Promise<ToolOutcomeV2> {
  // Adapters time calls out themselves; this guards hand-written
  // environments whose call never settles.
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<ToolOutcomeV2>((resolve) => {
    timer = setTimeout(() => {
      const error = `tool ${call.name} did not answer within ${replayCallTimeoutMs} ms`;
      resolve({
        kind: 'timeout',
        ok: false,
        content: `Error: ${error}`,
        error,
      });
    }, replayCallTimeoutMs);
  });
  try {
    return await Promise.race([Promise.resolve(session.call(call)), deadline]);
  } catch (thrown) {
    const error = errorText(thrown);
    return { kind: 'tool_error', ok: false, content: `Error: ${error}`, error };
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Replays a task's ground truth in a fresh `ground-truth` session: per turn,
 * the outcomes, the snapshot after the turn, and an error when a call did not
 * succeed (the turn and every later turn are then `gt_error`). The session is
 * closed at the end. Throws only when the session cannot be opened.
 */
export async function replayGroundTruthV2({
  environment,
  task,
}: {
  environment: EnvironmentV2;
  task: TaskV2;
}): Promise<GroundTruthTurnV2[]> {
  const groundTruth = task.groundTruth;
  if (groundTruth === undefined) {
    throw new SealError({
      code: 'INVALID_ARGUMENT',
      message: `task ${task.id} has no groundTruth to replay`,
      details: { taskId: task.id },
    });
  }
  const session = await environment.openSession({
    task,
    role: 'ground-truth',
  });
  const turns: GroundTruthTurnV2[] = [];
  let broken: string | undefined;
  try {
    for (const [turn, calls] of groundTruth.entries()) {
      if (broken !== undefined) {
        turns.push({
          calls,
          outcomes: [],
          error: `an earlier ground-truth turn failed (${broken})`,
          hasSnapshot: false,
        });
        continue;
      }
      const outcomes: ToolOutcomeV2[] = [];
      for (const call of calls) {
        const outcome = await callSafely(session, call);
        outcomes.push(outcome);
        if (!outcome.ok) {
          broken = `turn ${turn}: ${call.name} → ${outcome.kind}: ${outcome.error ?? outcome.content}`;
          break;
        }
      }
      const entry: GroundTruthTurnV2 = { calls, outcomes, hasSnapshot: false };
      if (broken !== undefined) entry.error = broken;
      else if (session.snapshot !== undefined) {
        try {
          entry.snapshot = await session.snapshot();
          entry.hasSnapshot = true;
        } catch (thrown) {
          broken = `turn ${turn}: snapshot failed: ${errorText(thrown)}`;
          entry.error = broken;
        }
      }
      turns.push(entry);
    }
  } finally {
    await closeQuietly(session);
  }
  return turns;
}

/**
 * Runs scripted calls as the policy would, in a fresh `policy` session, and
 * records the trace: per turn, each call and its outcome, then the snapshot.
 * Used to replay the ground truth (and sabotaged copies of it) as a policy.
 */
export async function runCallsV2({
  environment,
  task,
  calls,
}: {
  environment: EnvironmentV2;
  task: TaskV2;
  /** One list of calls per turn. */
  calls: readonly (readonly GroundTruthCallV2[])[];
}): Promise<EpisodeTraceV2> {
  const session = await environment.openSession({ task, role: 'policy' });
  const turns: TurnTraceV2[] = [];
  try {
    for (const turnCalls of calls) {
      const trace: TurnTraceV2 = { steps: [] };
      for (const call of turnCalls) {
        trace.steps.push({
          type: 'call',
          call,
          outcome: await callSafely(session, call),
        });
      }
      if (session.snapshot !== undefined) {
        try {
          trace.snapshot = await session.snapshot();
        } catch (thrown) {
          trace.endReason = `snapshot failed: ${errorText(thrown)}`;
        }
      }
      turns.push(trace);
    }
  } finally {
    await closeQuietly(session);
  }
  return { taskId: task.id, turns };
}

import {
  checkerVerdictV2Schema,
  safeParseWithSchema,
  type EnvironmentV2,
  type EnvironmentV2Session,
  type EpisodeTraceV2,
  type RewardsV2,
  type SealWarning,
  type TaskV2,
  type TurnVerdictV2,
  type VerifierV2Result,
} from '@seal/spec';
import { checksOf, errorText, replayGroundTruthV2 } from './replay-v2';
import { tagTurnV2, type GroundTruthTurnV2 } from './tag-turn';

/** The id in every result of the generic verifier. */
export const genericVerifierId = 'seal-generic-v2';

/** Options for {@link verifyEpisodeV2}. */
export type VerifyEpisodeV2Options = {
  environment: EnvironmentV2;
  task: TaskV2;
  /** What the policy did. */
  trace: EpisodeTraceV2;
  /**
   * The ground-truth replay, when the caller already has one (it depends
   * only on the task); otherwise it is replayed here.
   */
  groundTruth?: GroundTruthTurnV2[];
  /** The policy's session, still open, for a checker to read. */
  session?: EnvironmentV2Session;
};

function rewardsOf({
  turns,
  trace,
}: {
  turns: TurnVerdictV2[];
  trace: EpisodeTraceV2;
}): RewardsV2 {
  const passed = turns.filter((turn) => turn.pass).length;
  const steps = trace.turns.flatMap((turn) => turn.steps);
  const wellFormed = steps.filter(
    (step) =>
      step.type === 'call' &&
      step.outcome.kind !== 'invalid_arguments' &&
      step.outcome.kind !== 'unknown_tool',
  ).length;
  return {
    success: turns.length > 0 && passed === turns.length ? 1 : 0,
    validity: turns.length === 0 ? 0 : passed / turns.length,
    format: steps.length === 0 ? 1 : wellFormed / steps.length,
  };
}

function resultOf({
  task,
  turns,
  trace,
  warnings = [],
}: {
  task: TaskV2;
  turns: TurnVerdictV2[];
  trace: EpisodeTraceV2;
  warnings?: SealWarning[];
}): VerifierV2Result {
  return {
    schemaVersion: 2,
    verifierId: genericVerifierId,
    taskId: task.id,
    category: task.category ?? 'default',
    turns,
    success: turns.length > 0 && turns.every((turn) => turn.pass),
    rewards: rewardsOf({ turns, trace }),
    warnings,
  };
}

async function checkWithChecker({
  environment,
  task,
  trace,
  session,
}: VerifyEpisodeV2Options): Promise<VerifierV2Result> {
  const failAll = (detail: string): VerifierV2Result =>
    resultOf({
      task,
      trace,
      turns: task.turns.map((_, turn) => ({
        turn,
        pass: false,
        tag: 'checker_error',
        tags: ['checker_error'],
        scorable: false,
        detail,
      })),
    });
  const checker = environment.checker;
  if (checker === undefined)
    return failAll(
      `task ${task.id} has no groundTruth and environment ${environment.environmentId} has no checker`,
    );
  if (session === undefined)
    return failAll(`the checker of task ${task.id} needs the policy session`);
  let raw: unknown;
  try {
    raw = await checker({ task, trace, session });
  } catch (thrown) {
    return failAll(`checker threw: ${errorText(thrown)}`);
  }
  const parsed = safeParseWithSchema({
    schema: checkerVerdictV2Schema,
    value: raw,
    source: `checker of task ${task.id}`,
  });
  if (!parsed.success) return failAll(parsed.error.message);
  if (parsed.value.turns.length !== task.turns.length)
    return failAll(
      `checker returned ${parsed.value.turns.length} verdicts for ${task.turns.length} turns`,
    );
  return resultOf({
    task,
    trace,
    turns: parsed.value.turns.map((turn, index) => {
      const tag = turn.tag ?? (turn.pass ? 'pass' : 'checker_fail');
      return {
        turn: index,
        pass: turn.pass,
        tag,
        tags: [tag],
        scorable: true,
        ...(turn.detail === undefined ? {} : { detail: turn.detail }),
      };
    }),
  });
}

/**
 * The generic verifier: per-turn verdicts, tags and rewards for an episode
 * of any v2 environment. A task with `groundTruth` is compared turn by turn
 * with a replay of it in its own session (see {@link tagTurnV2}); a task
 * without one goes to the environment's checker (a throw or a malformed
 * answer tags every turn `checker_error`). Turns the episode never reached
 * count as having no calls.
 */
export async function verifyEpisodeV2(
  options: VerifyEpisodeV2Options,
): Promise<VerifierV2Result> {
  const { environment, task, trace } = options;
  if (task.groundTruth === undefined) return checkWithChecker(options);
  const groundTruth =
    options.groundTruth ?? (await replayGroundTruthV2({ environment, task }));
  const checks = checksOf(task);
  const turns = groundTruth.map((expected, turn) => {
    const turnTrace = trace.turns[turn];
    const policySnapshot =
      turnTrace === undefined
        ? undefined
        : turnTrace.endReason?.startsWith('snapshot failed') === true
          ? { error: turnTrace.endReason }
          : 'snapshot' in turnTrace
            ? { value: turnTrace.snapshot }
            : undefined;
    return tagTurnV2({
      turn,
      groundTruth: expected,
      steps: turnTrace?.steps ?? [],
      ...(policySnapshot === undefined ? {} : { policySnapshot }),
      checks,
    });
  });
  return resultOf({ task, turns, trace });
}

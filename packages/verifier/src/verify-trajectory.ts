import {
  BfclRealm,
  BfclSession,
  bfclSessionSpec,
  type BfclApi,
  type BfclExecution,
  type BfclRuntimeData,
} from '@seal/bfcl';
import { pyEquals } from '@seal/python';
import type {
  BfclErrorType,
  EpisodeRecord,
  FailureTag,
  OfficialVerdict,
  SealWarning,
  Task,
  TurnVerdict,
  VerifierV1Result,
} from '@seal/spec';

/** The verifier's id and version, stamped on every result and training sample. */
export const bfclVerifierId = 'seal-bfcl-v3@1';

/** The decoded trajectory of a record: turn → step → accepted call strings (empty steps dropped). */
export function trajectoryFromRecord(record: EpisodeRecord): string[][][] {
  return record.turns.map((turn) =>
    turn.steps
      .filter((step) => step.calls.length > 0)
      .map((step) => step.calls),
  );
}

type StateCheck =
  { valid: true } | { valid: false; className: string; attributes: string[] };

/**
 * BFCL's `state_checker`: classes in involved order; for each, every public
 * attribute of the ground-truth instance compared with Python `==`; the first
 * class with any difference fails, listing its differing attributes.
 */
function stateCheck(model: BfclSession, groundTruth: BfclSession): StateCheck {
  for (const [className, gtInstance] of groundTruth.instances) {
    const modelInstance = model.instances.get(className);
    if (!modelInstance) return { valid: false, className, attributes: [] };
    const modelAttributes = new Map(modelInstance.publicAttributes());
    const differing: string[] = [];
    for (const [name, gtValue] of (gtInstance as BfclApi).publicAttributes()) {
      const modelValue = modelAttributes.get(name);
      if (modelValue === undefined || !pyEquals(modelValue, gtValue))
        differing.push(name);
    }
    if (differing.length > 0)
      return { valid: false, className, attributes: differing };
  }
  return { valid: true };
}

/**
 * BFCL's `response_checker`: every ground-truth result of this turn must be
 * found, as a multiset, among the model's results accumulated so far.
 */
function responseCheck(
  modelSoFar: readonly string[],
  groundTruth: readonly string[],
): string[] {
  const pool = new Map<string, number>();
  for (const item of modelSoFar) pool.set(item, (pool.get(item) ?? 0) + 1);
  const missing: string[] = [];
  for (const item of groundTruth) {
    const count = pool.get(item) ?? 0;
    if (count > 0) pool.set(item, count - 1);
    else missing.push(item);
  }
  return missing;
}

function invalid(
  errorType: BfclErrorType,
  errorMessage: string,
  extra: Partial<OfficialVerdict> = {},
): OfficialVerdict {
  return {
    valid: false,
    errorType,
    errorMessage,
    checkedBy: 'checker',
    ...extra,
  };
}

/** Options of {@link verifyTrajectory}. */
export type VerifyTrajectoryOptions = {
  task: Task;
  /** Turn → step → call strings, as BFCL's checker consumes them. */
  trajectory: string[][][];
  /** Default states and long-context constants from the BFCL data directory. */
  runtime: BfclRuntimeData;
  /** The record, when verifying an episode (used for the format reward and ids). */
  record?: EpisodeRecord;
};

/**
 * Verifies one trajectory in one pass over fresh shadow instances (one realm,
 * as one BFCL process per case): BFCL's official verdict (turn-count check,
 * then per turn: empty turn, state, response; stop at the first failure),
 * SEAL's per-turn scorer (does not stop; one tag per ground-truth turn, in the
 * code's priority order), the progress metrics and the rewards.
 */
export function verifyTrajectory({
  task,
  trajectory,
  runtime,
  record,
}: VerifyTrajectoryOptions): VerifierV1Result {
  const spec = bfclSessionSpec(task);
  const realm = new BfclRealm({ data: runtime });
  const model = new BfclSession({ realm, ...spec });
  const groundTruth = new BfclSession({ realm, ...spec });
  const gtTurns = task.groundTruth;
  const warnings: SealWarning[] = [];

  let official: OfficialVerdict | undefined;
  if (trajectory.length !== gtTurns.length) {
    official = {
      valid: false,
      errorType: 'multi_turn:force_terminated',
      errorMessage: `Model was force-terminated during inference phase. The length of the model result turns (${trajectory.length}) does not match the length of the ground truth turns (${gtTurns.length}).`,
      checkedBy: 'runner',
    };
  }
  const terminatedEarly = trajectory.length < gtTurns.length;

  const turns: TurnVerdict[] = [];
  const allModelResults: string[] = [];
  const executionsByTurn: BfclExecution[][] = [];
  for (let turn = 0; turn < gtTurns.length; turn++) {
    const steps = (trajectory[turn] ?? []).filter((step) => step.length > 0);
    const modelExecutions = steps.flatMap((step) =>
      step.map((call) => model.execute(call)),
    );
    executionsByTurn.push(modelExecutions);
    const modelResults = modelExecutions.map((execution) => execution.result);
    const gtCalls = gtTurns[turn]!;
    let gtResults: string[];
    try {
      gtResults = gtCalls.map((call) => groundTruth.execute(call).result);
    } catch (error) {
      allModelResults.push(...modelResults);
      turns.push({
        turn,
        tag: 'gt_error',
        valid: false,
        irrelevance: null,
        error: `gt_exec_error: ${(error as Error).message}`,
        modelResults,
        groundTruthResults: [],
      });
      continue;
    }
    allModelResults.push(...modelResults);
    const base = { turn, modelResults, groundTruthResults: gtResults };

    if (gtCalls.length === 0) {
      // Empty ground truth: not checked by BFCL; SEAL scores abstention.
      const attempted = steps.length > 0;
      turns.push({
        ...base,
        tag: attempted ? 'spurious_tool_call' : 'correct_abstention',
        valid: null,
        irrelevance: attempted ? 0 : 1,
      });
      continue;
    }
    if (steps.length === 0) {
      official ??= invalid(
        'multi_turn:empty_turn_model_response',
        `Model response list is empty for turn ${turn}`,
        {
          failedTurn: turn,
        },
      );
      turns.push({
        ...base,
        tag: 'empty_turn_model_response',
        valid: false,
        irrelevance: null,
        error: 'empty_turn_model_response',
      });
      continue;
    }
    const modelClasses = [...model.instances.keys()].sort().join(',');
    const gtClasses = [...groundTruth.instances.keys()].sort().join(',');
    if (groundTruth.instances.size === 0 || modelClasses !== gtClasses) {
      turns.push({
        ...base,
        tag: 'instance_mismatch',
        valid: false,
        irrelevance: null,
        error: 'instance_mismatch',
      });
      continue;
    }
    let state: StateCheck;
    try {
      state = stateCheck(model, groundTruth);
    } catch (error) {
      turns.push({
        ...base,
        tag: 'checker_error',
        valid: false,
        irrelevance: null,
        error: `state_checker_error: ${(error as Error).message}`,
      });
      continue;
    }
    if (!state.valid) {
      official ??= invalid(
        'multi_turn:instance_state_mismatch',
        `Model instance for ${state.className} does not match the state with ground truth instance.`,
        {
          failedTurn: turn,
          mismatchClass: state.className,
          mismatchAttributes: state.attributes,
        },
      );
      turns.push({
        ...base,
        tag: 'state_mismatch',
        valid: false,
        irrelevance: null,
        error: 'state_mismatch',
        mismatchClass: state.className,
        mismatchAttributes: state.attributes,
      });
      continue;
    }
    const missing = responseCheck(allModelResults, gtResults);
    if (missing.length > 0) {
      official ??= invalid(
        'multi_turn:execution_response_mismatch',
        `Model response execution results so far does not contain all the ground truth response execution results for turn ${turn}.`,
        { failedTurn: turn, missingItems: missing },
      );
      turns.push({
        ...base,
        tag: 'response_mismatch',
        valid: false,
        irrelevance: null,
        error: 'response_mismatch',
        missingItems: missing,
      });
      continue;
    }
    turns.push({ ...base, tag: 'pass', valid: true, irrelevance: null });
  }
  official ??= { valid: true };

  for (const executions of executionsByTurn) {
    for (const execution of executions) {
      if (execution.status === 'rejected') {
        warnings.push({
          type: 'compatibility',
          feature: 'call-evaluation',
          details: `${execution.call} was refused unexecuted (BFCL would eval it): ${execution.result}`,
        });
      }
    }
  }

  const passedTurns = turns.filter((t) => t.valid === true).length;
  const scorableTurns = turns.filter((t) => t.valid !== null).length;
  const passedIrrelevanceTurns = turns.filter(
    (t) => t.irrelevance === 1,
  ).length;
  const irrelevanceTurns = turns.filter((t) => t.irrelevance !== null).length;
  const succeeded = turns.filter(
    (t) => t.tag === 'pass' || t.tag === 'correct_abstention',
  ).length;

  return {
    schemaVersion: 1,
    verifierId: bfclVerifierId,
    taskId: task.id,
    ...(record ? { episodeId: record.episodeId } : {}),
    category: task.category,
    official,
    turns,
    progress: scorableTurns > 0 ? passedTurns / scorableTurns : 0,
    progressWithIrrelevance:
      scorableTurns + irrelevanceTurns > 0
        ? (passedTurns + passedIrrelevanceTurns) /
          (scorableTurns + irrelevanceTurns)
        : 0,
    passedTurns,
    scorableTurns,
    passedIrrelevanceTurns,
    irrelevanceTurns,
    terminatedEarly,
    rewards: {
      binary: official.valid ? 1 : 0,
      progress: gtTurns.length > 0 ? succeeded / gtTurns.length : 0,
      format: formatReward({ record, turns, executionsByTurn }),
    },
    warnings,
  };
}

/**
 * Environment Tuning's syntax/format reward over the rollout's step codes:
 * −3 a step with a format error (parse error or refused call), −2 a tool step
 * with an execution error, −1 a clean tool step, and one 0/1 outcome per
 * reached turn. score = 1[tool steps > 0] · ((N − #−3)/N + #−1/(#−1 + #−2)).
 */
export function formatReward({
  record,
  turns,
  executionsByTurn,
}: {
  record?: EpisodeRecord;
  turns: readonly TurnVerdict[];
  executionsByTurn: readonly BfclExecution[][];
}): number {
  const codes: number[] = [];
  const outcome = (tag: FailureTag) =>
    tag === 'pass' || tag === 'correct_abstention' ? 1 : 0;
  if (record) {
    for (const recordTurn of record.turns) {
      let cursor = 0;
      const executions = executionsByTurn[recordTurn.turn] ?? [];
      for (const step of recordTurn.steps) {
        if (step.parseError !== undefined || step.rejectedCalls > 0)
          codes.push(-3);
        else if (step.calls.length > 0) {
          const stepExecutions = executions.slice(
            cursor,
            cursor + step.calls.length,
          );
          cursor += step.calls.length;
          codes.push(
            stepExecutions.some((e) => e.error !== undefined) ? -2 : -1,
          );
        }
      }
      const verdict = turns[recordTurn.turn];
      if (verdict) codes.push(outcome(verdict.tag));
    }
  } else {
    executionsByTurn.forEach((executions, index) => {
      if (executions.length > 0)
        codes.push(executions.some((e) => e.error !== undefined) ? -2 : -1);
      const verdict = turns[index];
      if (verdict) codes.push(outcome(verdict.tag));
    });
  }
  const n = codes.length;
  const formatErrors = codes.filter((c) => c === -3).length;
  const clean = codes.filter((c) => c === -1).length;
  const failed = codes.filter((c) => c === -2).length;
  if (n === 0 || clean + failed === 0) return 0;
  return (n - formatErrors) / n + clean / (clean + failed);
}

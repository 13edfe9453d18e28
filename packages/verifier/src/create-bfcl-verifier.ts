import type { BfclRuntimeData } from '@seal/bfcl';
import {
  SealError,
  episodeRecordSchema,
  safeParseWithSchema,
  taskSchema,
  type SyncVerifierV1,
  type VerifierV1CallOptions,
  type VerifierV1Result,
} from '@seal/spec';
import {
  bfclVerifierId,
  trajectoryFromRecord,
  verifyTrajectory,
} from './verify-trajectory';

/** Settings of {@link createBfclVerifier}. */
export type BfclVerifierSettings = {
  /** Default states and long-context constants from the BFCL data directory. */
  runtime: BfclRuntimeData;
  /**
   * Check each record against the record schema before verifying it
   * (default true). A caller whose records come straight from `@seal/env`
   * episodes in its own process, as `seal serve` does, can skip it: the
   * check costs about a third of verifying a short episode. The record's
   * task id is checked either way.
   */
  checkRecords?: boolean;
};

const validTasks = new WeakSet<object>();

/**
 * Checks what arrives at the verifier before anything runs: a record that
 * does not match the schema, belongs to another task, or has more turns than
 * the task can have, gives an INVALID_DATA / INVALID_ARGUMENT SealError.
 */
function validate(
  options: VerifierV1CallOptions,
  checkRecords: boolean,
): string[][][] {
  // A task is validated once (a step verifies every rollout of a group against
  // the same task object); tasks are values, not mutated after use.
  if (!validTasks.has(options.task)) {
    const task = safeParseWithSchema({
      schema: taskSchema,
      value: options.task,
      source: 'task',
    });
    if (!task.success) throw task.error;
    validTasks.add(options.task);
  }
  if (options.record !== undefined) {
    const record = checkRecords
      ? safeParseWithSchema({
          schema: episodeRecordSchema,
          value: options.record,
          source: 'episode record',
        })
      : { success: true as const, value: options.record };
    if (!record.success) throw record.error;
    if (record.value.taskId !== options.task.id) {
      throw new SealError({
        code: 'INVALID_ARGUMENT',
        message: `episode record ${record.value.episodeId} is for task ${record.value.taskId}, not ${options.task.id}`,
        details: { episodeId: record.value.episodeId, taskId: options.task.id },
      });
    }
    return trajectoryFromRecord(record.value);
  }
  const trajectory = options.trajectory;
  const wellFormed =
    Array.isArray(trajectory) &&
    trajectory.every(
      (turn) =>
        Array.isArray(turn) &&
        turn.every(
          (step) =>
            Array.isArray(step) &&
            step.every((call) => typeof call === 'string'),
        ),
    );
  if (!wellFormed) {
    throw new SealError({
      code: 'INVALID_DATA',
      message: 'trajectory: expected turn → step → call strings (string[][][])',
      details: { path: 'trajectory' },
    });
  }
  return trajectory;
}

/**
 * The BFCL v3 verifier ({@link VerifierV1}): fresh shadow instances per call,
 * so verifying one episode never touches another's state.
 */
export function createBfclVerifier({
  runtime,
  checkRecords = true,
}: BfclVerifierSettings): SyncVerifierV1 {
  const verifySync = (options: VerifierV1CallOptions): VerifierV1Result => {
    const trajectory = validate(options, checkRecords);
    return verifyTrajectory({
      task: options.task,
      trajectory,
      runtime,
      record: options.record,
    });
  };
  return {
    specificationVersion: 'v1',
    verifierId: bfclVerifierId,
    verifySync,
    verify: async (options) => verifySync(options),
  };
}

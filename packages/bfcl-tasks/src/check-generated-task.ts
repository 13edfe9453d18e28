import type { Task } from '@seal/spec';
import { createBfclToolSession, type BfclRuntimeData } from '@seal/bfcl';
import { createGeneratorRuntime } from './build-task';

/** One ground-truth call that did not run cleanly. */
export type GeneratedTaskProblem = {
  /** The turn of the call. */
  turn: number;
  /** The call string. */
  call: string;
  /** Its result (an error text). */
  result: string;
};

/**
 * Replays a task's ground truth on fresh instances and returns every call
 * that raised, was rejected or returned an error result (BFCL's
 * conventions, see `softErrorText`). An empty list means the task is sound.
 */
export function checkGeneratedTask({
  task,
  runtime,
}: {
  task: Task;
  runtime?: BfclRuntimeData;
}): GeneratedTaskProblem[] {
  const session = createBfclToolSession({
    task,
    runtime: runtime ?? createGeneratorRuntime(),
  });
  const problems: GeneratedTaskProblem[] = [];
  task.groundTruth.forEach((calls, turn) => {
    for (const call of calls) {
      const execution = session.execute(call);
      if (execution.status !== 'ok' || execution.error !== undefined)
        problems.push({ turn, call, result: execution.result });
    }
  });
  return problems;
}

import type {
  EnvironmentV2,
  GroundTruthCallV2,
  TaskV2,
  VerifierV2Result,
} from '@seal/spec';
import { replayGroundTruthV2, runCallsV2 } from './replay-v2';
import { verifyEpisodeV2 } from './verify-episode-v2';

/** A ground-truth copy with one call dropped. */
export type SabotageV2 = {
  /** The turn that lost a call. */
  turn: number;
  /** The dropped call. */
  dropped: GroundTruthCallV2;
  /** The calls per turn, without it. */
  calls: GroundTruthCallV2[][];
};

/** What `seal env check` found for one task. */
export type TaskCheckV2 = {
  taskId: string;
  /** The ground truth replayed as the policy (or the checker on no calls). */
  replay: VerifierV2Result;
  /** Whether every turn of the replay passed. */
  replayPassed: boolean;
  /** Absent for tasks with no ground-truth call to drop. */
  sabotage?: SabotageV2 & {
    result: VerifierV2Result;
    /** The sabotaged turn failed with a tag other than `gt_error`. */
    tagged: boolean;
  };
};

/** The report of {@link checkEnvironmentV2}. */
export type EnvironmentCheckV2Report = {
  tasks: TaskCheckV2[];
  replays: { passed: number; total: number };
  sabotaged: { tagged: number; total: number };
};

/** A small seeded generator (mulberry32): numbers in [0, 1). */
function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let value = state;
    value = Math.imul(value ^ (value >>> 15), value | 1);
    value ^= value + Math.imul(value ^ (value >>> 7), value | 61);
    return ((value ^ (value >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * Drops one ground-truth call, chosen uniformly over all the task's calls by
 * a generator seeded with `seed`; undefined when the task has no call.
 */
export function sabotageGroundTruthV2({
  task,
  seed,
}: {
  task: TaskV2;
  seed: number;
}): SabotageV2 | undefined {
  const groundTruth = task.groundTruth ?? [];
  const positions = groundTruth.flatMap((calls, turn) =>
    calls.map((_, index) => ({ turn, index })),
  );
  if (positions.length === 0) return undefined;
  const pick = positions[Math.floor(seededRandom(seed)() * positions.length)]!;
  return {
    turn: pick.turn,
    dropped: groundTruth[pick.turn]![pick.index]!,
    calls: groundTruth.map((calls, turn) =>
      turn === pick.turn
        ? calls.filter((_, index) => index !== pick.index)
        : [...calls],
    ),
  };
}

async function checkTask({
  environment,
  task,
  seed,
}: {
  environment: EnvironmentV2;
  task: TaskV2;
  seed: number;
}): Promise<TaskCheckV2> {
  if (task.groundTruth === undefined) {
    // No ground truth: run the checker on an episode that makes no call.
    const session = await environment.openSession({ task, role: 'policy' });
    try {
      const trace = {
        taskId: task.id,
        turns: task.turns.map(() => ({ steps: [] })),
      };
      const replay = await verifyEpisodeV2({
        environment,
        task,
        trace,
        session,
      });
      return {
        taskId: task.id,
        replay,
        replayPassed: replay.turns.every(
          (turn) => turn.tag !== 'checker_error',
        ),
      };
    } finally {
      await session.close();
    }
  }
  const sabotage = sabotageGroundTruthV2({ task, seed });
  // The three replays are independent sessions: run them side by side.
  const [groundTruth, trace, sabotagedTrace] = await Promise.all([
    replayGroundTruthV2({ environment, task }),
    runCallsV2({ environment, task, calls: task.groundTruth }),
    sabotage === undefined
      ? undefined
      : runCallsV2({ environment, task, calls: sabotage.calls }),
  ]);
  const replay = await verifyEpisodeV2({
    environment,
    task,
    trace,
    groundTruth,
  });
  const check: TaskCheckV2 = {
    taskId: task.id,
    replay,
    replayPassed: replay.success,
  };
  if (sabotage !== undefined && sabotagedTrace !== undefined) {
    const result = await verifyEpisodeV2({
      environment,
      task,
      trace: sabotagedTrace,
      groundTruth,
    });
    const turn = result.turns[sabotage.turn];
    check.sabotage = {
      ...sabotage,
      result,
      tagged:
        turn !== undefined &&
        !turn.pass &&
        turn.tag !== 'gt_error' &&
        turn.tag !== 'pass',
    };
  }
  return check;
}

/**
 * What `seal env check` runs: every task's ground truth replayed as the
 * policy must pass, and a sabotaged replay of each task (one call dropped,
 * chosen with `seed`) must fail with a tag on that turn. Tasks without
 * ground truth run the environment's checker on a no-call episode. Tasks run
 * `concurrency` at a time (three sessions each); the report keeps their order. Throws only when
 * a session cannot be opened.
 */
export async function checkEnvironmentV2({
  environment,
  tasks,
  seed = 0,
  concurrency = 4,
  onTask,
}: {
  environment: EnvironmentV2;
  tasks: readonly TaskV2[];
  seed?: number;
  concurrency?: number;
  /** Called as each task finishes (for progress lines). */
  onTask?: (check: TaskCheckV2) => void;
}): Promise<EnvironmentCheckV2Report> {
  const results: TaskCheckV2[] = new Array<TaskCheckV2>(tasks.length);
  let next = 0;
  async function worker(): Promise<void> {
    while (next < tasks.length) {
      const index = next;
      next += 1;
      const check = await checkTask({
        environment,
        task: tasks[index]!,
        // One seed per task, derived from the run's seed and its position.
        seed: (seed * 1_000_003 + index) >>> 0,
      });
      results[index] = check;
      onTask?.(check);
    }
  }
  await Promise.all(
    Array.from(
      { length: Math.max(1, Math.min(concurrency, tasks.length)) },
      worker,
    ),
  );
  const sabotaged = results.filter((check) => check.sabotage !== undefined);
  return {
    tasks: results,
    replays: {
      passed: results.filter((check) => check.replayPassed).length,
      total: results.length,
    },
    sabotaged: {
      tagged: sabotaged.filter((check) => check.sabotage?.tagged === true)
        .length,
      total: sabotaged.length,
    },
  };
}

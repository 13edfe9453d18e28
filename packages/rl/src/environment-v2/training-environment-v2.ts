import {
  SealError,
  type EnvironmentV2,
  type Task,
  type TaskCategory,
  type TaskV2,
  type ToolDoc,
  type ToolDocV2,
  type VerifierV2Result,
} from '@seal/spec';
import {
  replayGroundTruthV2,
  verifyEpisodeV2,
  type BfclScores,
  type GroundTruthTurnV2,
} from '@seal/verifier';
import type {
  LoopVerdict,
  TrainingEnvironment,
  TrainingEpisodeOptions,
} from '../train/training-environment';
import {
  createRolloutEpisodeV2,
  type RolloutEpisodeV2,
} from './rollout-episode-v2';

/** A v2 environment's verdict as the loop reads it, with the generic verdict itself. */
export type LoopVerdictV2 = LoopVerdict & { generic: VerifierV2Result };

/** The dispatch of a v2 environment; its episodes also take function-calling messages. */
export type TrainingEnvironmentV2 = Omit<
  TrainingEnvironment<LoopVerdictV2>,
  'createEpisode'
> & {
  createEpisode(options: TrainingEpisodeOptions): RolloutEpisodeV2;
};

/**
 * A v2 tool doc in the loop's doc shape (`{ name, description, parameters }`,
 * the JSON Schema unchanged): what the protocols render and what evolve's
 * φ_schema reads (`required`, `enum`).
 */
export function toolDocOfV2(tool: ToolDocV2): ToolDoc {
  const schema = tool.inputSchema as Record<string, unknown>;
  return {
    name: tool.name,
    description: tool.description ?? '',
    parameters: {
      ...schema,
      type: typeof schema['type'] === 'string' ? schema['type'] : 'object',
      properties:
        schema['properties'] !== null &&
        typeof schema['properties'] === 'object'
          ? (schema['properties'] as ToolDoc['parameters']['properties'])
          : {},
    },
  };
}

/**
 * The loop's view of a v2 task: the fields SEAL's loop reads (id, category,
 * turns, tools, holdouts) in the v1 task shape its batch schedule, overlay
 * evolution, capability state and run directory work with. The category is
 * the environment's own open string (v1's type names BFCL's four; the loop
 * treats it as a label). `backend` and `groundTruth` are descriptive only:
 * the v2 environment runs the episodes and its ground truth
 * (`meta.taskV2`) is what the generic verifier replays.
 */
export function loopTaskOfV2({
  task,
  tools,
  environmentId,
}: {
  task: TaskV2;
  tools: readonly ToolDocV2[];
  environmentId: string;
}): Task {
  return {
    schemaVersion: 1,
    id: task.id,
    category: (task.category ?? 'default') as TaskCategory,
    source: 'generated',
    turns: task.turns.map((turn) => turn.map((message) => ({ ...message }))),
    tools: tools.map(toolDocOfV2),
    holdouts: (task.holdouts ?? []).map((holdout) => ({ ...holdout })),
    backend: {
      kind: 'bfcl',
      involvedClasses: [environmentId],
      initialConfig: '{}',
      longContext: false,
    },
    groundTruth: (task.groundTruth ?? task.turns.map(() => [])).map((turn) =>
      turn.map(
        (call) =>
          call.callText ?? `${call.name}(${JSON.stringify(call.arguments)})`,
      ),
    ),
    meta: { environmentV2: environmentId, taskV2: task },
  };
}

/** The generic verdict in the loop's terms. */
export function loopVerdictOfV2(result: VerifierV2Result): LoopVerdictV2 {
  return {
    official: { valid: result.success },
    rewards: {
      binary: result.success ? 1 : 0,
      progress: result.rewards.validity,
      // v1's format reward runs 0–2 (Environment Tuning halves it).
      format: 2 * result.rewards.format,
    },
    turns: result.turns.map((turn) => ({
      turn: turn.turn,
      tag: turn.tag,
      valid: turn.scorable ? turn.pass : null,
      irrelevance:
        turn.tag === 'correct_abstention'
          ? 1
          : turn.tag === 'spurious_tool_call'
            ? 0
            : null,
    })),
    generic: result,
  };
}

/** Scores by the environment's own categories; the overall pools every episode. */
export function scoreByCategory(
  results: readonly { category: string; valid: boolean }[],
): BfclScores {
  const categories: BfclScores['categories'] = {};
  for (const { category, valid } of results) {
    const score = (categories[category] ??= {
      accuracy: 0,
      correctCount: 0,
      totalCount: 0,
    });
    score.totalCount += 1;
    if (valid) score.correctCount += 1;
    score.accuracy = score.correctCount / score.totalCount;
  }
  const correct = results.filter((result) => result.valid).length;
  return {
    categories,
    overall: results.length === 0 ? 0 : correct / results.length,
  };
}

/**
 * A v2 environment as SEAL's training environment (issue 45): the tools of
 * one probe session (its `listTools`), the loop's view of every task, and
 * the dispatch — episodes on their own policy sessions
 * ({@link createRolloutEpisodeV2}), verdicts from the generic verifier
 * (`verifyEpisodeV2`: the ground truth replayed in its own session, once per
 * task and shared by the task's episodes, or the environment's checker on
 * the still-open policy session, which closes after), scores by the
 * environment's categories. A server that does not
 * start fails here, once, with the adapter's error.
 */
export async function prepareTrainingEnvironmentV2({
  environment,
  tasks,
}: {
  environment: EnvironmentV2;
  tasks: readonly TaskV2[];
}): Promise<{
  training: TrainingEnvironmentV2;
  /** The loop's view of each task, in order. */
  loopTasks: Task[];
  tools: ToolDocV2[];
}> {
  if (tasks.length === 0)
    throw new SealError({
      code: 'INVALID_ARGUMENT',
      message: 'no tasks for the environment',
    });
  const probe = await environment.openSession({
    task: tasks[0]!,
    role: 'policy',
  });
  let tools: ToolDocV2[];
  try {
    tools = await probe.listTools();
  } finally {
    await probe.close();
  }
  const byId = new Map<string, TaskV2>();
  for (const task of tasks) {
    if (byId.has(task.id))
      throw new SealError({
        code: 'INVALID_ARGUMENT',
        message: `task id ${task.id} appears twice`,
      });
    byId.set(task.id, task);
  }
  const loopTasks = tasks.map((task) =>
    loopTaskOfV2({ task, tools, environmentId: environment.environmentId }),
  );
  const live = new Map<string, RolloutEpisodeV2>();
  // One ground-truth replay per task (its own session), shared by every
  // episode of the task: a replay depends on the task alone.
  const replays = new Map<string, Promise<GroundTruthTurnV2[]>>();
  const replayOf = (task: TaskV2): Promise<GroundTruthTurnV2[]> => {
    let replay = replays.get(task.id);
    if (replay === undefined) {
      replay = replayGroundTruthV2({ environment, task });
      // A replay that failed to run (a server gone) is tried again next time.
      replay.catch(() => replays.delete(task.id));
      replays.set(task.id, replay);
    }
    return replay;
  };
  const training: TrainingEnvironmentV2 = {
    environmentId: environment.environmentId,
    verifierId: `seal-generic-v2:${environment.environmentId}`,
    createEpisode: (options) => {
      const task = byId.get(options.task.id);
      if (!task)
        throw new SealError({
          code: 'INVALID_ARGUMENT',
          message: `task ${options.task.id} is not one of the environment's tasks`,
        });
      const episode = createRolloutEpisodeV2({
        ...options,
        environment,
        task,
        loopTask: options.task,
      });
      live.set(options.episodeId, episode);
      return episode;
    },
    verify: async ({ task, record }) => {
      const episode = live.get(record.episodeId);
      const taskV2 = byId.get(task.id);
      if (!episode || !taskV2)
        throw new SealError({
          code: 'INVALID_STATE',
          message: `episode ${record.episodeId} was not run by this environment (or was verified already)`,
        });
      try {
        await episode.settle();
        const result = await verifyEpisodeV2({
          environment,
          task: taskV2,
          ...(taskV2.groundTruth === undefined
            ? {}
            : { groundTruth: await replayOf(taskV2) }),
          trace: episode.trace(),
          ...(episode.session ? { session: episode.session } : {}),
        });
        return loopVerdictOfV2(result);
      } finally {
        live.delete(record.episodeId);
        await episode.close();
      }
    },
    score: scoreByCategory,
    close: async () => {
      const open = [...live.values()];
      live.clear();
      await Promise.all(open.map((episode) => episode.close()));
    },
  };
  return { training, loopTasks, tools };
}

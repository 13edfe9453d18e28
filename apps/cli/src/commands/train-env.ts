import { PyRandom } from '@seal/python';
import {
  prepareTrainingEnvironmentV2,
  type EvalSet,
  type TrainingEnvironmentV2,
} from '@seal/rl';
import { SealError, type EnvironmentV2, type Task } from '@seal/spec';
import * as z from 'zod';
import { loadEnvironmentFromFlags, readTasksV2 } from './env-source';

/** The flags `seal train --env` and `seal eval --env` add. */
export const envFlagOptions = {
  env: { type: 'string' },
  tasks: { type: 'string' },
  'eval-tasks': { type: 'string' },
  'snapshot-call': { type: 'string' },
  'timeout-ms': { type: 'string' },
  'mcp-cwd': { type: 'string' },
} as const;

/** Their schemas (all optional: `--env` switches the path). */
export const envFlagSchemas = {
  env: z.string().min(1).optional(),
  tasks: z.string().min(1).optional(),
  'eval-tasks': z.coerce.number().int().min(0).optional(),
  'snapshot-call': z.string().optional(),
  'timeout-ms': z.coerce.number().int().positive().optional(),
  'mcp-cwd': z.string().optional(),
};

export const envFlagHelp = `  --env SPEC --tasks FILE
                   train on your own environment: SPEC a module exporting an
                   environment (fromAiSdkTools, or any EnvironmentV2), or
                   "mcp:[NAME=value ...] command args" (one server per
                   session, {session_dir} its fresh directory); FILE JSONL
                   tasks (as for seal env check). Rollouts run on the
                   environment's sessions, the generic verifier tags every
                   turn, and diagnose, the overlays (schema cues from the
                   JSON Schemas' required and enum) and A-Patch work on
                   those tags. The policy: the --preset's embedded model, or
                   --model DIR (a Hugging Face-format directory; protocol and
                   limits from its training run, else qwen-xml, BFCL's full
                   prompt, 512 tokens; --steps default 24). --eval-tasks N
                   holds N tasks out for the evaluation (default: the
                   preset's in-distribution count, or 16, at most a quarter
                   of the tasks); --snapshot-call TOOL,
                   --timeout-ms MS and --mcp-cwd DIR as for seal env check`;

type EnvFlags = {
  env?: string | undefined;
  tasks?: string | undefined;
  'eval-tasks'?: number | undefined;
  'snapshot-call'?: string | undefined;
  'timeout-ms'?: number | undefined;
  'mcp-cwd'?: string | undefined;
};

/** A v2 environment ready for SEAL's loop: its dispatch, the loop's tasks, and how to close it. */
export type EnvTraining = {
  environment: EnvironmentV2;
  training: TrainingEnvironmentV2;
  trainTasks: Task[];
  evalSets: EvalSet[];
  /** Closes open sessions and the environment. */
  close(): Promise<void>;
};

/**
 * The held-out split of `--env` tasks: a seeded shuffle (`seed`), the first
 * `evalCount` held out, the rest trained on; both keep the file's order.
 */
export function splitEnvTasks({
  tasks,
  evalCount,
  seed,
}: {
  tasks: readonly Task[];
  evalCount: number;
  seed: number;
}): { train: Task[]; eval: Task[] } {
  const order = new PyRandom(BigInt(seed)).shuffle(tasks.map((_, i) => i));
  const held = new Set(order.slice(0, evalCount));
  return {
    train: tasks.filter((_, i) => !held.has(i)),
    eval: tasks.filter((_, i) => held.has(i)),
  };
}

/**
 * Loads `--env` and `--tasks` for SEAL's loop: the environment (one clear
 * error for a module without one, or a server that does not start), the
 * tasks (schema errors name the line), the generic dispatch and the split.
 * `evalCount` defaults to `defaultEvalCount`, at most a quarter of the tasks;
 * with `evalOnly` every task is evaluated.
 */
export async function prepareEnvTraining({
  flags,
  defaultEvalCount,
  seed,
  evalOnly = false,
}: {
  flags: EnvFlags;
  defaultEvalCount: number;
  seed: number;
  evalOnly?: boolean;
}): Promise<EnvTraining> {
  if (flags.env === undefined)
    throw new SealError({
      code: 'INVALID_ARGUMENT',
      message: '--env is required here',
    });
  if (flags.tasks === undefined)
    throw new SealError({
      code: 'INVALID_ARGUMENT',
      message: '--env needs --tasks FILE (JSONL, one task a line)',
    });
  const tasks = await readTasksV2(flags.tasks);
  const environment = await loadEnvironmentFromFlags({
    ...flags,
    env: flags.env,
  });
  try {
    const { training, loopTasks } = await prepareTrainingEnvironmentV2({
      environment,
      tasks,
    });
    const close = async (): Promise<void> => {
      await training.close?.();
      await environment.close?.();
    };
    if (evalOnly)
      return {
        environment,
        training,
        trainTasks: [],
        evalSets: [{ name: 'eval', tasks: loopTasks }],
        close,
      };
    const evalCount =
      flags['eval-tasks'] ??
      Math.min(defaultEvalCount, Math.floor(loopTasks.length / 4));
    if (evalCount >= loopTasks.length)
      throw new SealError({
        code: 'INVALID_ARGUMENT',
        message: `--eval-tasks ${evalCount} leaves no training task (the file holds ${loopTasks.length})`,
      });
    const split = splitEnvTasks({ tasks: loopTasks, evalCount, seed });
    return {
      environment,
      training,
      trainTasks: split.train,
      evalSets:
        split.eval.length === 0 ? [] : [{ name: 'eval', tasks: split.eval }],
      close,
    };
  } catch (error) {
    await environment.close?.();
    throw error;
  }
}

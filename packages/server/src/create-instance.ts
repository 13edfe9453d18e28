import { randomBytes } from 'node:crypto';
import { createEpisode, toOpenAiTool, type Episode } from '@seal/env';
import {
  SealError,
  type ChatMessage,
  type EnvServiceCreateData,
  type EnvServiceRequest,
  type SyncVerifierV1,
  type Task,
  type ToolBackendV1,
} from '@seal/spec';
import {
  resolveEpisodeParams,
  type EpisodeParams,
  type StatisticsLoader,
} from './episode-params';
import type { ServiceInstances } from './service-instances';
import type { TaskSource } from './task-source';

/** What `/create` needs of the service. */
export type CreateInstanceContext = {
  tasks: TaskSource;
  backend: ToolBackendV1;
  verifier: SyncVerifierV1;
  loadStatistics?: StatisticsLoader;
  instances: ServiceInstances;
  maxInstances: number;
  maxModelCalls: number;
  now: () => number;
  /**
   * Resolved params by create key (task id and params as JSON), so the
   * creates of a training step, which share their params, resolve them and
   * evolve their overlay once: the overlay object is then shared too, and
   * with it the episode's cached system prompt. Params that read a state file
   * are resolved every time (the file changes between steps).
   */
  resolvedParams?: Map<string, EpisodeParams>;
};

/** Resolved params kept per service (least recently used dropped first). */
const resolvedParamsLimit = 1024;

/** A copy of cached params whose lists a create may extend. */
const copyParams = (params: EpisodeParams): EpisodeParams => ({
  ...params,
  limits: { ...params.limits },
  warnings: [...params.warnings],
});

/**
 * `/create`: resolves the task, the instance id (the client's, or a fresh
 * `exp_<seconds>_<hex>`) and the episode params, starts the episode on its
 * own tool instances, registers it, and answers SEAL's `{state: [system,
 * user], info}`. A repeated create of an untouched instance (same id, task
 * and params: a client's retry) answers the first answer again. Throws
 * INVALID_ARGUMENT without a task id, NOT_FOUND for an unknown task,
 * INVALID_STATE for an id in use otherwise (checked again after the params
 * resolved), BACKEND_UNAVAILABLE (retryable, nothing created) at the
 * instance limit.
 */
export async function createInstance({
  request,
  context,
}: {
  request: EnvServiceRequest;
  context: CreateInstanceContext;
}): Promise<EnvServiceCreateData> {
  const { instances, maxInstances, maxModelCalls, now } = context;
  if (!request.task_id) {
    throw new SealError({
      code: 'INVALID_ARGUMENT',
      message: "field 'task_id': is required",
      details: { path: 'task_id' },
    });
  }
  const task = context.tasks.get(request.task_id);
  if (!task) {
    throw new SealError({
      code: 'NOT_FOUND',
      message: `task ${request.task_id} not found (task ids look like multi_turn_base_0; /get_env_profile lists them)`,
      details: { taskId: request.task_id },
    });
  }
  const id =
    request.instance_id ??
    `exp_${Math.floor(now() / 1000)}_${randomBytes(4).toString('hex')}`;
  const key = JSON.stringify([request.task_id, request.params ?? {}]);
  const repeated = repeatedCreate({ instances, id, key, now });
  if (repeated) return repeated;
  if (instances.size >= maxInstances) {
    throw new SealError({
      code: 'BACKEND_UNAVAILABLE',
      message: `the server holds its maximum of ${maxInstances} instances; release some and retry`,
      details: { maxInstances },
      isRetryable: true,
    });
  }
  const params = await resolveParamsOnce({ key, request, task, context });
  // The instance id may have been taken while the params resolved.
  const raced = repeatedCreate({ instances, id, key, now });
  if (raced) return raced;
  const requested = params.limits.maxModelCalls ?? maxModelCalls;
  if (requested > maxModelCalls) {
    params.warnings.push({
      type: 'unsupported',
      setting: 'params.max_model_calls',
      details: `capped at the server's limit of ${maxModelCalls}`,
    });
  }
  const episode = createEpisode({
    task,
    backend: context.backend,
    protocol: params.protocol,
    promptMode: params.promptMode,
    mode: params.mode,
    ...(params.mode === 'train' ? { overlay: params.overlay } : {}),
    enforceAvailableTools: params.enforceAvailableTools,
    limits: {
      ...params.limits,
      maxModelCalls: Math.min(requested, maxModelCalls),
    },
    episodeId: id,
    stamps: { verifierVersion: context.verifier.verifierId },
  });
  const messages = episode.reset();
  const data = toCreateData({
    id,
    taskId: request.task_id,
    task,
    episode,
    params,
    messages,
  });
  instances.add({
    id,
    task,
    episode,
    params,
    lastAccess: now(),
    version: 0,
    terminated: episode.done,
    created: { key, data },
  });
  return data;
}

/**
 * The request's resolved params: from `context.resolvedParams` when this
 * create key was resolved before (most recently used kept last, the oldest
 * dropped past the limit), else resolved now. Always a copy the create may
 * extend. Params that read a state file bypass the cache.
 */
async function resolveParamsOnce({
  key,
  request,
  task,
  context,
}: {
  key: string;
  request: EnvServiceRequest;
  task: Task;
  context: CreateInstanceContext;
}): Promise<EpisodeParams> {
  const resolve = () =>
    resolveEpisodeParams({
      params: request.params ?? {},
      task,
      ...(context.loadStatistics
        ? { loadStatistics: context.loadStatistics }
        : {}),
    });
  const cache = readsStateFile(request.params)
    ? undefined
    : context.resolvedParams;
  if (!cache) return resolve();
  let entry = cache.get(key);
  if (entry) cache.delete(key);
  else entry = await resolve();
  cache.set(key, entry);
  if (cache.size > resolvedParamsLimit)
    cache.delete(cache.keys().next().value!);
  return copyParams(entry);
}

/** Whether create params name a capability-state file (`diagnostic_evolution.state_path`). */
function readsStateFile(params: unknown): boolean {
  if (typeof params !== 'object' || params === null) return false;
  const diagnostic = (params as Record<string, unknown>)[
    'diagnostic_evolution'
  ];
  return (
    typeof diagnostic === 'object' &&
    diagnostic !== null &&
    (diagnostic as Record<string, unknown>)['state_path'] != null
  );
}

/**
 * When `id` is taken: the first answer again if the same create (same task
 * id and params) made it and it has not been stepped since (a retried
 * create, see `ServiceInstance.created`); else INVALID_STATE.
 */
function repeatedCreate({
  instances,
  id,
  key,
  now,
}: {
  instances: ServiceInstances;
  id: string;
  key: string;
  now: () => number;
}): EnvServiceCreateData | undefined {
  const existing = instances.peek(id);
  if (!existing) return undefined;
  if (existing.created?.key === key && existing.version === 0) {
    existing.lastAccess = now();
    return existing.created.data;
  }
  throw new SealError({
    code: 'INVALID_STATE',
    message: `instance ${id} already exists; release it first or use a fresh instance_id`,
    details: { instanceId: id },
  });
}

/** SEAL's `/create` answer for a freshly reset episode. */
function toCreateData({
  id,
  taskId,
  task,
  episode,
  params,
  messages,
}: {
  id: string;
  taskId: string;
  task: Task;
  episode: Episode;
  params: EpisodeParams;
  messages: readonly ChatMessage[];
}): EnvServiceCreateData {
  // SEAL's trainer requires exactly [system, user]: a turn with several
  // user messages is joined, and a protocol without a system prompt
  // (openai-tools) gets an empty one.
  const system =
    messages.find((message) => message.role === 'system')?.content ?? '';
  const user = messages
    .filter((message) => message.role !== 'system')
    .map((message) => message.content)
    .join('\n\n');
  const tools = episode.tools();
  return {
    state: [
      { role: 'system', content: system, tool_calls: [] },
      { role: 'user', content: user, tool_calls: [] },
    ],
    info: {
      instance_id: id,
      task_id: taskId,
      test_id: task.id,
      tools_count: tools.length,
      questions_count: task.turns.length,
      observation_lite: params.observationLite,
      protocol: params.protocol,
      mode: params.mode,
      overlay_hash: episode.record().overlayHash,
      ...(episode.protocol.toolsOutOfBand
        ? {
            tools: tools.map((doc) => toOpenAiTool(doc)),
          }
        : {}),
      warnings: params.warnings,
    },
  };
}

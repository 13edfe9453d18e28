import { randomBytes } from 'node:crypto';
import { diagnoseEpisode, diagnoseTrajectory } from '@seal/diagnose';
import {
  createEpisode,
  toOpenAiTool,
  toolErrorText,
  type Episode,
} from '@seal/env';
import {
  SealError,
  envServiceRequestSchema,
  envServiceStepMessageSchema,
  envServiceStepParamsSchema,
  type EnvServiceCreateData,
  type EnvServiceDiagnoseData,
  type EnvServiceEvaluation,
  type EnvServiceRequest,
  type EnvServiceStepData,
  type EpisodeRecord,
  type SealWarning,
  type SyncVerifierV1,
  type Task,
  type ToolBackendV1,
  type VerifierV1Result,
} from '@seal/spec';
import {
  computeAPatchWeights,
  type APatchWeightsResult,
} from './apatch-weights';
import {
  resolveEpisodeParams,
  type EpisodeParams,
  type StatisticsLoader,
} from './episode-params';
import { toSealEvaluation } from './seal-evaluation';
import type { TaskSource } from './task-source';
import {
  conversationCompleted,
  fromStepMessage,
  parseRequestPart,
  toWireMessage,
} from './wire';
import * as z from 'zod';

/** The POST endpoints of the service: SEAL's seven (less `healthz`) and ours. */
export const envServiceEndpoints = [
  'get_env_profile',
  'create',
  'step',
  'evaluate',
  'get_info',
  'release',
  'diagnose',
  'apatch_weights',
] as const;

/** One of {@link envServiceEndpoints}. */
export type EnvServiceEndpoint = (typeof envServiceEndpoints)[number];

/** Settings of {@link createEnvService}. */
export type EnvServiceSettings = {
  /** Where `/create` finds tasks and `/get_env_profile` finds splits. */
  tasks: TaskSource;
  /** Creates each episode's own tool instances. */
  backend: ToolBackendV1;
  /** Grades episodes for rewards, `/evaluate` and `/diagnose`. */
  verifier: SyncVerifierV1;
  /** The one `env_type` served. Default `bfcl`. */
  envType?: string;
  /** An instance untouched this long is reclaimed by {@link EnvService.reclaimIdle}. Default 3,600,000 ms (SEAL). */
  idleTimeoutMs?: number;
  /** Live instances at most; `/create` beyond it answers 503. Default 4096. */
  maxInstances?: number;
  /**
   * Model calls per episode at most (the default and the ceiling of
   * `params.max_model_calls`). SEAL's service sets no budget (its agent loop
   * stops at 20), so the default is a safety bound: 1000.
   */
  maxModelCalls?: number;
  /** Reads `diagnostic_evolution.state_path`; leave out to refuse state paths. */
  loadStatistics?: StatisticsLoader;
  /** Clock for idle times. Default `Date.now`. */
  now?: () => number;
};

/** The transport-free environment service (see {@link createEnvService}). */
export type EnvService = {
  /**
   * Runs one endpoint on a request body. Resolves the success envelope
   * `{success, data}`; rejects with a SealError (see `statusForCode`).
   */
  handle(options: {
    endpoint: EnvServiceEndpoint;
    body: unknown;
  }): Promise<{ success: boolean; data: unknown }>;
  /** Releases every instance idle for longer than the idle timeout; returns their ids. */
  reclaimIdle(): string[];
  /** Releases every instance. */
  releaseAll(): void;
  /** Live instances. */
  readonly size: number;
  /** The idle timeout in milliseconds. */
  readonly idleTimeoutMs: number;
};

type Instance = {
  id: string;
  task: Task;
  episode: Episode;
  params: EpisodeParams;
  lastAccess: number;
  /** Bumped by every step, so cached verifications know when they are stale. */
  version: number;
  terminated: boolean;
  cache?: { version: number; record: EpisodeRecord; result: VerifierV1Result };
};

const profileParamsSchema = z.object({ split: z.string().nullish() });
const evaluateParamsSchema = z.object({ sparse: z.boolean().nullish() });
const diagnoseParamsSchema = z.object({ reward: z.number().nullish() });

/**
 * SEAL's environment service (§7.2) without a transport: `create` starts an
 * episode of a task on its own tool instances (so concurrent instances never
 * share state), `step` feeds it raw model text, `evaluate` grades it with
 * BFCL's official rules and SEAL's per-turn scorer, `release` drops it; plus
 * `diagnose` (per-turn and fine tags, trajectory diagnostics) and
 * `apatch_weights` (SEAL's reweighting for an external trainer). Idle
 * instances are reclaimed by whoever calls {@link EnvService.reclaimIdle}.
 */
export function createEnvService(settings: EnvServiceSettings): EnvService {
  const envType = settings.envType ?? 'bfcl';
  const idleTimeoutMs = settings.idleTimeoutMs ?? 3_600_000;
  const maxInstances = settings.maxInstances ?? 4096;
  const maxModelCalls = settings.maxModelCalls ?? 1000;
  const now = settings.now ?? Date.now;
  const instances = new Map<string, Instance>();

  const requireInstanceId = (request: EnvServiceRequest): string => {
    if (!request.instance_id) {
      throw new SealError({
        code: 'INVALID_ARGUMENT',
        message: "field 'instance_id': is required",
        details: { path: 'instance_id' },
      });
    }
    return request.instance_id;
  };

  const instanceOf = (request: EnvServiceRequest): Instance => {
    const id = requireInstanceId(request);
    const instance = instances.get(id);
    if (!instance) {
      throw new SealError({
        code: 'NOT_FOUND',
        message: `instance ${id} not found (never created, released, or reclaimed after ${Math.round(idleTimeoutMs / 1000)} s idle)`,
        details: { instanceId: id },
      });
    }
    instance.lastAccess = now();
    return instance;
  };

  const verify = (
    instance: Instance,
  ): { record: EpisodeRecord; result: VerifierV1Result } => {
    if (instance.cache?.version === instance.version) return instance.cache;
    const record = instance.episode.record();
    const result = settings.verifier.verifySync({
      task: instance.task,
      record,
    });
    instance.cache = { version: instance.version, record, result };
    return instance.cache;
  };

  const accuracyOf = (instance: Instance): number =>
    verify(instance).result.official.valid ? 1 : 0;

  const create = async (
    request: EnvServiceRequest,
  ): Promise<EnvServiceCreateData> => {
    if (!request.task_id) {
      throw new SealError({
        code: 'INVALID_ARGUMENT',
        message: "field 'task_id': is required",
        details: { path: 'task_id' },
      });
    }
    const task = settings.tasks.get(request.task_id);
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
    if (instances.has(id)) {
      throw new SealError({
        code: 'INVALID_STATE',
        message: `instance ${id} already exists; release it first or use a fresh instance_id`,
        details: { instanceId: id },
      });
    }
    if (instances.size >= maxInstances) {
      throw new SealError({
        code: 'BACKEND_UNAVAILABLE',
        message: `the server holds its maximum of ${maxInstances} instances; release some and retry`,
        details: { maxInstances },
        isRetryable: true,
      });
    }
    const params = await resolveEpisodeParams({
      params: request.params ?? {},
      task,
      ...(settings.loadStatistics
        ? { loadStatistics: settings.loadStatistics }
        : {}),
    });
    // The instance id may have been taken while the params resolved.
    if (instances.has(id)) {
      throw new SealError({
        code: 'INVALID_STATE',
        message: `instance ${id} already exists`,
        details: { instanceId: id },
      });
    }
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
      backend: settings.backend,
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
      stamps: { verifierVersion: settings.verifier.verifierId },
    });
    const messages = episode.reset();
    instances.set(id, {
      id,
      task,
      episode,
      params,
      lastAccess: now(),
      version: 0,
      terminated: episode.done,
    });
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
        task_id: request.task_id,
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
  };

  const step = (request: EnvServiceRequest): EnvServiceStepData => {
    const instance = instanceOf(request);
    const message = parseRequestPart({
      schema: envServiceStepMessageSchema,
      value: request.messages,
      field: 'messages',
    });
    const rawParams = request.params ?? {};
    const stepParams = parseRequestPart({
      schema: envServiceStepParamsSchema,
      value: rawParams,
      field: 'params',
    });
    const warnings: SealWarning[] = Object.keys(rawParams)
      .filter((key) => key !== 'usage')
      .map((key) => ({
        type: 'unsupported',
        setting: `params.${key}`,
        details: '/step reads only params.usage; ignored',
      }));
    if (instance.terminated || instance.episode.done) {
      throw new SealError({
        code: 'INVALID_STATE',
        message: `instance ${instance.id} has terminated; call /evaluate or /release`,
        details: { instanceId: instance.id },
      });
    }
    const { episode, params } = instance;
    const turnBefore = episode.turn;
    const usage = stepParams.usage;
    const result = episode.step(fromStepMessage(message), {
      ...(usage?.prompt_tokens == null
        ? {}
        : { promptTokens: usage.prompt_tokens }),
      ...(usage?.completion_tokens == null
        ? {}
        : { completionTokens: usage.completion_tokens }),
    });
    instance.version++;

    const info: Record<string, unknown> = { turn: result.turn };
    let parseError = false;
    for (const event of result.events) {
      if (event.type === 'parse-error') {
        parseError = true;
        Object.assign(info, {
          bfcl_error_type: 'parse_error',
          static_fission_retryable: true,
          static_fission_reason: event.message,
        });
      } else if (event.type === 'call-rejected') {
        Object.assign(info, {
          bfcl_error_type: 'invalid_tool_call',
          static_fission_retryable: true,
          static_fission_reason: event.message,
        });
      } else if (event.type === 'call-executed') {
        const error = event.error ?? toolErrorText(event.result);
        if (error !== undefined) {
          Object.assign(info, {
            bfcl_error_type: 'tool_error',
            static_fission_retryable: true,
            static_fission_reason: error,
          });
        }
      }
    }
    let state = result.observation.map(toWireMessage);
    let terminated = result.done;
    let endReason = result.events.find(
      (event) => event.type === 'episode-end',
    )?.reason;
    let forceZeroReward = false;
    if (!terminated && parseError && params.terminateOnParseError) {
      episode.abort();
      terminated = true;
      endReason = 'aborted';
      forceZeroReward = true;
      state = [
        { role: 'user', content: conversationCompleted, tool_calls: [] },
      ];
      Object.assign(info, {
        bfcl_terminated_on_parse_error: true,
        bfcl_force_zero_reward: true,
      });
    } else if (
      !terminated &&
      params.isOpenQuery &&
      result.turn !== turnBefore
    ) {
      episode.abort();
      terminated = true;
      endReason = 'aborted';
    }
    if (endReason === 'completed')
      state = [
        { role: 'user', content: conversationCompleted, tool_calls: [] },
      ];
    if (terminated) {
      instance.terminated = true;
      instance.version++;
      info['end_reason'] = endReason;
    }
    if (warnings.length > 0) info['warnings'] = warnings;
    return {
      state,
      reward: terminated && !forceZeroReward ? accuracyOf(instance) : 0,
      is_terminated: terminated,
      info,
    };
  };

  const evaluate = (
    request: EnvServiceRequest,
  ): number | EnvServiceEvaluation => {
    const instance = instanceOf(request);
    const params = parseRequestPart({
      schema: evaluateParamsSchema,
      value: request.params ?? {},
      field: 'params',
    });
    if (params.sparse) return accuracyOf(instance);
    const { record, result } = verify(instance);
    return toSealEvaluation({
      record,
      result,
      trajectory: diagnoseTrajectory(record),
      modelName: instance.params.modelName,
    });
  };

  const diagnose = (request: EnvServiceRequest): EnvServiceDiagnoseData => {
    const instance = instanceOf(request);
    const params = parseRequestPart({
      schema: diagnoseParamsSchema,
      value: request.params ?? {},
      field: 'params',
    });
    const { record, result } = verify(instance);
    const diagnosis = diagnoseEpisode({
      record,
      verification: result,
      ...(params.reward == null ? {} : { reward: params.reward }),
    });
    return {
      failure_tags: diagnosis.turns.map((turn) => turn.tag),
      fine_tags: diagnosis.turns.map((turn) => [...turn.fineTags]),
      dominant_tag: diagnosis.dominantTag,
      reward: diagnosis.reward,
      success: diagnosis.success,
      diagnosis,
    };
  };

  const profile = (request: EnvServiceRequest): readonly string[] => {
    const params = parseRequestPart({
      schema: profileParamsSchema,
      value: request.params ?? {},
      field: 'params',
    });
    const split = params.split ?? 'train';
    const ids = settings.tasks.list(split);
    if (!ids) {
      throw new SealError({
        code: 'INVALID_ARGUMENT',
        message: `field 'params.split': unknown split '${split}'; known: ${settings.tasks.splits.join(', ')}`,
        details: { path: 'params.split' },
      });
    }
    return ids;
  };

  const release = (id: string): boolean => instances.delete(id);

  return {
    get size() {
      return instances.size;
    },
    idleTimeoutMs,
    async handle({ endpoint, body }) {
      if (typeof body !== 'object' || body === null || Array.isArray(body)) {
        throw new SealError({
          code: 'INVALID_ARGUMENT',
          message:
            'request body: expected a JSON object {env_type, task_id?, instance_id?, messages, params}',
          details: { path: '' },
        });
      }
      const request = parseRequestPart({
        schema: envServiceRequestSchema,
        value: body,
        field: 'body',
      });
      if (
        endpoint !== 'apatch_weights' &&
        request.env_type != null &&
        request.env_type !== envType
      ) {
        throw new SealError({
          code: 'INVALID_ARGUMENT',
          message: `field 'env_type': unsupported env_type '${request.env_type}'; this server serves '${envType}'`,
          details: { path: 'env_type' },
        });
      }
      switch (endpoint) {
        case 'get_env_profile':
          return { success: true, data: profile(request) };
        case 'create':
          return { success: true, data: await create(request) };
        case 'step':
          return { success: true, data: step(request) };
        case 'evaluate':
          return { success: true, data: evaluate(request) };
        case 'get_info': {
          const instance = instanceOf(request);
          const names = instance.episode.tools().map((doc) => `- ${doc.name}`);
          return {
            success: true,
            data: `Available tools:\n${names.join('\n')}`,
          };
        }
        case 'release':
          // SEAL's shape: `success` says whether the instance existed.
          return { success: release(requireInstanceId(request)), data: null };
        case 'diagnose':
          return { success: true, data: diagnose(request) };
        case 'apatch_weights':
          return {
            success: true,
            data: computeAPatchWeights(
              request.params ?? {},
            ) satisfies APatchWeightsResult,
          };
      }
    },
    reclaimIdle() {
      const cutoff = now() - idleTimeoutMs;
      const reclaimed: string[] = [];
      for (const [id, instance] of instances) {
        if (instance.lastAccess < cutoff) {
          instances.delete(id);
          reclaimed.push(id);
        }
      }
      return reclaimed;
    },
    releaseAll() {
      instances.clear();
    },
  };
}

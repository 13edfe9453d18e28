import {
  SealError,
  envServiceRequestSchema,
  type EnvServiceRequest,
  type SyncVerifierV1,
  type ToolBackendV1,
} from '@seal/spec';
import * as z from 'zod';
import {
  computeAPatchWeights,
  type APatchWeightsResult,
} from './apatch-weights';
import { createInstance, type CreateInstanceContext } from './create-instance';
import type { StatisticsLoader } from './episode-params';
import { diagnoseInstance, evaluateInstance } from './evaluate-instance';
import { createServiceInstances } from './service-instances';
import { stepInstance } from './step-instance';
import type { TaskSource } from './task-source';
import { parseRequestPart } from './wire';

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

const profileParamsSchema = z.object({ split: z.string().nullish() });

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
  const now = settings.now ?? Date.now;
  const instances = createServiceInstances({ idleTimeoutMs, now });
  const { verifier } = settings;
  const creation: CreateInstanceContext = {
    tasks: settings.tasks,
    backend: settings.backend,
    verifier,
    ...(settings.loadStatistics
      ? { loadStatistics: settings.loadStatistics }
      : {}),
    instances,
    maxInstances: settings.maxInstances ?? 4096,
    maxModelCalls: settings.maxModelCalls ?? 1000,
    now,
    resolvedParams: new Map(),
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
      // SEAL's service keys instance calls by instance id alone, and its
      // `EnvClient` sends `env_type: "default"` on step, evaluate, get_info
      // and release: only the calls that name an environment check it.
      if (
        (endpoint === 'create' || endpoint === 'get_env_profile') &&
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
          return {
            success: true,
            data: await createInstance({ request, context: creation }),
          };
        case 'step':
          return {
            success: true,
            data: stepInstance({
              request,
              instance: instances.get(request),
              verifier,
            }),
          };
        case 'evaluate':
          return {
            success: true,
            data: evaluateInstance({
              request,
              instance: instances.get(request),
              verifier,
            }),
          };
        case 'get_info': {
          const instance = instances.get(request);
          const names = instance.episode.tools().map((doc) => `- ${doc.name}`);
          return {
            success: true,
            data: `Available tools:\n${names.join('\n')}`,
          };
        }
        case 'release':
          // SEAL's shape: `success` says whether the instance existed.
          return {
            success: instances.release(instances.requireId(request)),
            data: null,
          };
        case 'diagnose':
          return {
            success: true,
            data: diagnoseInstance({
              request,
              instance: instances.get(request),
              verifier,
            }),
          };
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
      return instances.reclaimIdle();
    },
    releaseAll() {
      instances.clear();
    },
  };
}

import type { Episode } from '@seal/env';
import {
  SealError,
  type EnvServiceCreateData,
  type EnvServiceRequest,
  type EpisodeRecord,
  type SyncVerifierV1,
  type Task,
  type VerifierV1Result,
} from '@seal/spec';
import type { EpisodeParams } from './episode-params';

/** One live instance of the service: an episode on its own tool instances. */
export type ServiceInstance = {
  id: string;
  task: Task;
  episode: Episode;
  params: EpisodeParams;
  lastAccess: number;
  /** Bumped by every step, so cached verifications know when they are stale. */
  version: number;
  terminated: boolean;
  cache?: { version: number; record: EpisodeRecord; result: VerifierV1Result };
  /**
   * The `/create` request that made the instance (task id and params as
   * JSON) and its answer: a retried create (SEAL's client re-sends a POST
   * after a 502, 503 or 504, which a proxy may answer after the service did
   * the work) gets the same answer while the instance is untouched.
   */
  created?: { key: string; data: EnvServiceCreateData };
};

/** The live instances of a service, by id (see {@link createServiceInstances}). */
export type ServiceInstances = {
  /** The request's `instance_id`; INVALID_ARGUMENT when it has none. */
  requireId(request: EnvServiceRequest): string;
  /**
   * The request's instance, marked as used now; NOT_FOUND when it was never
   * created, was released, or was reclaimed.
   */
  get(request: EnvServiceRequest): ServiceInstance;
  has(id: string): boolean;
  /** The instance with this id, without marking it used. */
  peek(id: string): ServiceInstance | undefined;
  add(instance: ServiceInstance): void;
  /** Drops an instance; whether it existed. */
  release(id: string): boolean;
  /** Drops every instance idle for longer than the idle timeout; returns their ids. */
  reclaimIdle(): string[];
  /** Drops every instance. */
  clear(): void;
  readonly size: number;
};

/** A store of live instances with an idle timeout, read through `now`. */
export function createServiceInstances({
  idleTimeoutMs,
  now,
}: {
  idleTimeoutMs: number;
  now: () => number;
}): ServiceInstances {
  const instances = new Map<string, ServiceInstance>();

  const requireId = (request: EnvServiceRequest): string => {
    if (!request.instance_id) {
      throw new SealError({
        code: 'INVALID_ARGUMENT',
        message: "field 'instance_id': is required",
        details: { path: 'instance_id' },
      });
    }
    return request.instance_id;
  };

  return {
    requireId,
    get(request) {
      const id = requireId(request);
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
    },
    has: (id) => instances.has(id),
    peek: (id) => instances.get(id),
    add(instance) {
      instances.set(instance.id, instance);
    },
    release: (id) => instances.delete(id),
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
    clear() {
      instances.clear();
    },
    get size() {
      return instances.size;
    },
  };
}

/**
 * The instance's record and its verification, cached until the next step
 * (an instance is verified at most once per version).
 */
export function verifyInstance({
  instance,
  verifier,
}: {
  instance: ServiceInstance;
  verifier: SyncVerifierV1;
}): { record: EpisodeRecord; result: VerifierV1Result } {
  if (instance.cache?.version === instance.version) return instance.cache;
  const record = instance.episode.record();
  const result = verifier.verifySync({
    task: instance.task,
    record,
  });
  instance.cache = { version: instance.version, record, result };
  return instance.cache;
}

/** BFCL's official accuracy of the instance so far: 1 or 0. */
export function instanceAccuracy(options: {
  instance: ServiceInstance;
  verifier: SyncVerifierV1;
}): number {
  return verifyInstance(options).result.official.valid ? 1 : 0;
}

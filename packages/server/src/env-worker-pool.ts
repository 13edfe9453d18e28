import { randomBytes } from 'node:crypto';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import { SealError, parseJsonText } from '@seal/spec';
import { errorResponse } from './error-response';

/** What a worker thread is started with. */
export type EnvWorkerData = {
  /** URL of a module exporting `createEnvServiceSettings(options)`. */
  settingsModule: string;
  /** Structured-cloneable options for it. */
  settingsOptions: unknown;
  idleTimeoutMs: number;
  reclaimIntervalMs: number;
  exposeInternalErrors: boolean;
};

/** A request to a worker. */
export type EnvWorkerRequest = { id: number; endpoint: string; text: string };

/** A worker's message. */
export type EnvWorkerReply =
  | { type: 'ready' }
  | { type: 'reclaimed'; ids: string[] }
  | {
      type: 'answer';
      id: number;
      status: number;
      text: string;
      /** The instance a successful `/create` made. */
      created?: string;
      /** An internal error (500), for the server's log under the body's reference. */
      internalError?: { reference: string; message: string; stack?: string };
    };

/** Settings of {@link createEnvWorkerPool}. */
export type EnvWorkerPoolSettings = Omit<
  EnvWorkerData,
  'exposeInternalErrors'
> & {
  /** Worker threads. */
  count: number;
  /** Live instances at most over all workers; a create beyond it answers 503. */
  maxInstances: number;
  exposeInternalErrors?: boolean;
  onInternalError?: (info: { error: unknown; reference: string }) => void;
  onReclaim?: (instanceIds: string[]) => void;
};

/** Worker threads that each hold their own instances (see {@link createEnvWorkerPool}). */
export type EnvWorkerPool = {
  /** Answers one POST: the status and JSON text the single-threaded server would send. */
  dispatch(options: {
    endpoint: string;
    text: string;
  }): Promise<{ status: number; text: string }>;
  /** Live instances over all workers. */
  readonly size: number;
  /** Stops the workers (their instances go with them). */
  close(): Promise<void>;
};

const instanceEndpoints = new Set([
  'step',
  'evaluate',
  'get_info',
  'release',
  'diagnose',
]);

/**
 * Starts `count` worker threads, each building its own environment service
 * from `settingsModule`, and routes every request to one of them: a create
 * to the worker with the fewest instances (a create of a known id, as a
 * retry sends, to that id's worker), every call on an instance to the
 * worker that holds it, anything else in turn. The pool keeps the map of
 * instance ids to workers (creates, releases, idle reclamation), so an
 * instance never moves and episodes never share a worker's state. Resolves
 * once every worker is ready.
 */
export async function createEnvWorkerPool(
  settings: EnvWorkerPoolSettings,
): Promise<EnvWorkerPool> {
  const fromSource = import.meta.url.endsWith('.ts');
  const extension = /\.(m?js)$/.exec(import.meta.url)?.[1] ?? 'js';
  const url = new URL(
    fromSource
      ? './env-service-worker.ts'
      : `./env-service-worker.${extension}`,
    import.meta.url,
  );
  const data: EnvWorkerData = {
    settingsModule: settings.settingsModule,
    settingsOptions: settings.settingsOptions,
    idleTimeoutMs: settings.idleTimeoutMs,
    reclaimIntervalMs: settings.reclaimIntervalMs,
    exposeInternalErrors: settings.exposeInternalErrors ?? false,
  };
  const owners = new Map<string, number>();
  const loads: number[] = Array.from({ length: settings.count }, () => 0);
  const pending = new Map<
    number,
    (reply: Extract<EnvWorkerReply, { type: 'answer' }>) => void
  >();
  let nextId = 0;
  let turn = 0;

  const forget = (instanceId: string) => {
    const owner = owners.get(instanceId);
    if (owner === undefined) return;
    owners.delete(instanceId);
    loads[owner]!--;
  };

  const workers = await Promise.all(
    loads.map(
      (_, index) =>
        new Promise<Worker>((resolve, reject) => {
          let worker: Worker;
          if (fromSource) {
            // From sources, the worker registers tsx before its TypeScript
            // entry: `--import` hooks do not reach a worker's entry in Node 20.
            const execArgv = process.execArgv.some((arg) =>
              arg.includes('@seal/source'),
            )
              ? process.execArgv
              : [...process.execArgv, '--conditions=@seal/source'];
            const bootstrap = `import(${JSON.stringify(resolveTsxEsmApi())}).then((api) => { api.register(); return import(${JSON.stringify(url.href)}); });`;
            worker = new Worker(bootstrap, {
              eval: true,
              execArgv,
              workerData: data,
            });
          } else {
            worker = new Worker(url, { workerData: data });
          }
          worker.once('error', reject);
          worker.on('message', (reply: EnvWorkerReply) => {
            if (reply.type === 'ready') {
              worker.off('error', reject);
              worker.on('error', (error) =>
                settings.onInternalError?.({
                  error,
                  reference: `worker-${index}`,
                }),
              );
              resolve(worker);
            } else if (reply.type === 'reclaimed') {
              for (const id of reply.ids) forget(id);
              settings.onReclaim?.(reply.ids);
            } else {
              pending.get(reply.id)?.(reply);
              pending.delete(reply.id);
            }
          });
        }),
    ),
  );

  const send = (worker: number, endpoint: string, text: string) =>
    new Promise<Extract<EnvWorkerReply, { type: 'answer' }>>((resolve) => {
      const id = nextId++;
      pending.set(id, resolve);
      workers[worker]!.postMessage({
        id,
        endpoint,
        text,
      } satisfies EnvWorkerRequest);
    });

  const fail = (error: unknown) => {
    const { status, body } = errorResponse({
      error,
      ...(settings.exposeInternalErrors === undefined
        ? {}
        : { exposeInternalErrors: settings.exposeInternalErrors }),
      ...(settings.onInternalError
        ? { onInternalError: settings.onInternalError }
        : {}),
    });
    return { status, text: JSON.stringify(body) };
  };

  return {
    get size() {
      return owners.size;
    },
    async dispatch({ endpoint, text }) {
      // The body is read here for its instance id only; the worker parses
      // and validates it again (bodies are small next to an episode step).
      let instanceId: string | undefined;
      let object: Record<string, unknown> | undefined;
      try {
        const body: unknown =
          text.trim() === ''
            ? undefined
            : parseJsonText({ text, source: 'request body' });
        if (typeof body === 'object' && body !== null && !Array.isArray(body)) {
          object = body as Record<string, unknown>;
          const value = object['instance_id'];
          if (typeof value === 'string') instanceId = value;
        }
      } catch (error) {
        return fail(error);
      }
      let worker: number;
      let assigned = false;
      if (endpoint === 'create') {
        const owner =
          instanceId === undefined ? undefined : owners.get(instanceId);
        if (owner !== undefined) {
          worker = owner;
        } else {
          if (owners.size >= settings.maxInstances) {
            return fail(
              new SealError({
                code: 'BACKEND_UNAVAILABLE',
                message: `the server holds its maximum of ${settings.maxInstances} instances; release some and retry`,
                details: { maxInstances: settings.maxInstances },
                isRetryable: true,
              }),
            );
          }
          worker = loads.indexOf(Math.min(...loads));
          // A create without an id gets one here, so the pool knows it at once.
          if (instanceId === undefined && object !== undefined) {
            instanceId = `exp_${Math.floor(Date.now() / 1000)}_${randomBytes(4).toString('hex')}`;
            text = JSON.stringify({ ...object, instance_id: instanceId });
          }
          // Claimed before the answer, so a concurrent create of the same id follows it.
          if (instanceId !== undefined) {
            owners.set(instanceId, worker);
            loads[worker]!++;
            assigned = true;
          }
        }
      } else if (instanceEndpoints.has(endpoint) && instanceId !== undefined) {
        // An unknown id goes to any worker, which answers 404.
        worker = owners.get(instanceId) ?? turn++ % workers.length;
      } else {
        worker = turn++ % workers.length;
      }
      const reply = await send(worker, endpoint, text);
      if (assigned && reply.created === undefined) forget(instanceId!);
      if (endpoint === 'release' && reply.status === 200 && instanceId)
        forget(instanceId);
      if (reply.internalError) {
        const error = new Error(reply.internalError.message);
        if (reply.internalError.stack) error.stack = reply.internalError.stack;
        settings.onInternalError?.({
          error,
          reference: reply.internalError.reference,
        });
      }
      return { status: reply.status, text: reply.text };
    },
    async close() {
      await Promise.all(workers.map((worker) => worker.terminate()));
      owners.clear();
    },
  };
}

function resolveTsxEsmApi(): string {
  try {
    return import.meta.resolve('tsx/esm/api');
  } catch {
    const require = createRequire(import.meta.url);
    const root = dirname(require.resolve('tsx/package.json'));
    return pathToFileURL(join(root, 'dist', 'esm', 'api', 'index.mjs')).href;
  }
}

import {
  createServer,
  type IncomingMessage,
  type Server,
  type ServerResponse,
} from 'node:http';
import { listen, readBody, sendJson } from '@seal/http';
import { SealError, parseJsonText } from '@seal/spec';
import {
  createEnvService,
  envServiceEndpoints,
  type EnvService,
  type EnvServiceEndpoint,
  type EnvServiceSettings,
} from './env-service';
import { createEnvWorkerPool, type EnvWorkerPool } from './env-worker-pool';
import { errorResponse, type ErrorBody } from './error-response';

/** Options of {@link startEnvServer}: the service settings plus the transport's. */
export type EnvServerOptions = EnvServiceSettings & {
  /** Interface to bind. Default `127.0.0.1` (SEAL's script default). */
  host?: string;
  /** Port; `0` picks a free one. Default 8082 (SEAL's configs). */
  port?: number;
  /** Largest request body in bytes; larger ones get 413. Default 1 MiB. */
  maxBodyBytes?: number;
  /** How often idle instances are looked for. Default 300,000 ms (SEAL), at most the idle timeout. */
  reclaimIntervalMs?: number;
  /** Put messages and stacks of internal errors in 500 bodies (development only). Default false. */
  exposeInternalErrors?: boolean;
  /** Receives every internal error with the reference its 500 body names. */
  onInternalError?: (info: { error: unknown; reference: string }) => void;
  /** Receives the ids of instances reclaimed for idleness. */
  onReclaim?: (instanceIds: string[]) => void;
  /**
   * Serve from worker threads (one per core, say) instead of the main
   * thread: each builds its own service from `settingsModule` (a module URL
   * exporting `createEnvServiceSettings(settingsOptions)`), and each instance
   * lives in one of them (see `createEnvWorkerPool`). The main thread keeps
   * the HTTP transport and the routing; `tasks`, `backend` and `verifier`
   * of these options are then unused.
   */
  workers?: {
    count: number;
    settingsModule: string;
    settingsOptions: unknown;
  };
};

/** A running environment server (see {@link startEnvServer}). */
export type EnvServer = {
  /** `http://host:port`. */
  readonly url: string;
  readonly host: string;
  /** The bound port (the real one when started with port 0). */
  readonly port: number;
  /** The service behind the transport (instance count, manual reclamation). */
  readonly service: EnvService;
  /** Stops accepting connections, ends keep-alive ones, drops every instance. Idempotent. */
  close(): Promise<void>;
  [Symbol.asyncDispose](): Promise<void>;
};

const endpointSet: ReadonlySet<string> = new Set(envServiceEndpoints);

/**
 * The request's path with its query dropped, repeated slashes collapsed and
 * trailing ones removed. SEAL's `EnvClient.get_env_profile` posts to
 * `//get_env_profile` (it joins a base URL and `/get_env_profile` with a
 * slash), which `new URL()` would read as a host name, so the path is cut
 * by hand.
 */
function requestPath(url: string | undefined): string {
  // An absolute-form target (`POST http://host/create`, as sent to a proxy).
  const raw = (url ?? '/').replace(/^[a-z][a-z0-9+.-]*:\/\/[^/?#]*/i, '');
  const query = raw.search(/[?#]/);
  const path = (query < 0 ? raw : raw.slice(0, query))
    .replace(/\/{2,}/g, '/')
    .replace(/\/+$/, '');
  return path === '' ? '/' : path;
}

function methodNotAllowed(
  response: ServerResponse,
  message: string,
  allow: string,
): void {
  const { body } = errorResponse({
    error: new SealError({ code: 'INVALID_ARGUMENT', message }),
  });
  sendJson({ response, status: 405, body, headers: { allow } });
}

/**
 * Starts SEAL's environment service over `node:http` (§7.2): `GET /healthz`
 * answers `OK`; `POST /<endpoint>` takes SEAL's body and answers `{success,
 * data}`, or an error body with a status by error class (see
 * `statusForCode`): 400 malformed or missing field, 404 unknown instance,
 * task or endpoint, 405 wrong method, 409 finished episode or instance id in
 * use, 413 body over `maxBodyBytes`, 503 instance limit, 500 internal (no
 * message or stack unless `exposeInternalErrors`). Idle instances are
 * reclaimed on an interval. Resolves once listening.
 */
export async function startEnvServer(
  options: EnvServerOptions,
): Promise<EnvServer> {
  const local = createEnvService(options);
  const host = options.host ?? '127.0.0.1';
  const maxBodyBytes = options.maxBodyBytes ?? 1024 * 1024;
  const reclaimIntervalMs = Math.max(
    1,
    Math.min(options.reclaimIntervalMs ?? 300_000, local.idleTimeoutMs),
  );
  const pool: EnvWorkerPool | undefined = options.workers
    ? await createEnvWorkerPool({
        count: options.workers.count,
        settingsModule: options.workers.settingsModule,
        settingsOptions: options.workers.settingsOptions,
        idleTimeoutMs: local.idleTimeoutMs,
        reclaimIntervalMs,
        maxInstances: options.maxInstances ?? 4096,
        ...(options.exposeInternalErrors === undefined
          ? {}
          : { exposeInternalErrors: options.exposeInternalErrors }),
        ...(options.onInternalError
          ? { onInternalError: options.onInternalError }
          : {}),
        ...(options.onReclaim ? { onReclaim: options.onReclaim } : {}),
      })
    : undefined;
  const service: EnvService = pool
    ? {
        get size() {
          return pool.size;
        },
        idleTimeoutMs: local.idleTimeoutMs,
        async handle({ endpoint, body }) {
          const answer = await pool.dispatch({
            endpoint,
            text: body === undefined ? '' : JSON.stringify(body),
          });
          const parsed = parseJsonText({ text: answer.text }) as {
            success: boolean;
            data: unknown;
            error?: ErrorBody['error'];
          };
          if (parsed.error)
            throw new SealError({
              code: parsed.error.code,
              message: parsed.error.message,
              details: parsed.error.details,
            });
          return { success: parsed.success, data: parsed.data };
        },
        // The workers reclaim their own idle instances.
        reclaimIdle: () => [],
        releaseAll: () => {},
      }
    : local;

  const fail = (
    response: ServerResponse,
    error: unknown,
    headers?: Record<string, string>,
  ) => {
    const { status, body } = errorResponse({
      error,
      ...(options.exposeInternalErrors === undefined
        ? {}
        : { exposeInternalErrors: options.exposeInternalErrors }),
      ...(options.onInternalError
        ? { onInternalError: options.onInternalError }
        : {}),
    });
    sendJson({ response, status, body, ...(headers ? { headers } : {}) });
  };

  const handleRequest = async (
    request: IncomingMessage,
    response: ServerResponse,
  ): Promise<void> => {
    const path = requestPath(request.url);
    const method = request.method ?? 'GET';
    if (path === '/healthz') {
      if (method !== 'GET' && method !== 'HEAD') {
        methodNotAllowed(response, `${method} /healthz: use GET`, 'GET, HEAD');
        request.resume();
        return;
      }
      response.writeHead(200, {
        'content-type': 'text/plain; charset=utf-8',
        'content-length': '2',
      });
      response.end(method === 'HEAD' ? undefined : 'OK');
      return;
    }
    const endpoint = path.slice(1);
    if (!endpointSet.has(endpoint)) {
      request.resume();
      fail(
        response,
        new SealError({
          code: 'NOT_FOUND',
          message: `unknown endpoint ${method} ${path}; endpoints: GET /healthz, POST /${envServiceEndpoints.join(', /')}`,
          details: { path },
        }),
      );
      return;
    }
    if (method !== 'POST') {
      methodNotAllowed(
        response,
        `${method} ${path}: use POST with a JSON body`,
        'POST',
      );
      request.resume();
      return;
    }
    const read = await readBody({
      request,
      limit: maxBodyBytes,
      drainLimit: Math.max(maxBodyBytes * 8, 8 * 1024 * 1024),
    });
    if ('tooLarge' in read) {
      fail(
        response,
        new SealError({
          code: 'PAYLOAD_TOO_LARGE',
          message: `request body is larger than the server's limit of ${maxBodyBytes} bytes (seal serve --max-body)`,
          details: { maxBodyBytes },
        }),
        read.cut ? { connection: 'close' } : undefined,
      );
      if (read.cut) response.once('finish', () => request.socket.destroy());
      return;
    }
    if (pool) {
      const answer = await pool.dispatch({ endpoint, text: read.text });
      response.writeHead(answer.status, {
        'content-type': 'application/json; charset=utf-8',
        'content-length': String(Buffer.byteLength(answer.text)),
      });
      response.end(answer.text);
      return;
    }
    try {
      const body =
        read.text.trim() === ''
          ? undefined
          : parseJsonText({ text: read.text, source: 'request body' });
      const result = await service.handle({
        endpoint: endpoint as EnvServiceEndpoint,
        body,
      });
      sendJson({ response, status: 200, body: result });
    } catch (error) {
      fail(response, error);
    }
  };

  const server: Server = createServer((request, response) => {
    handleRequest(request, response).catch((error: unknown) => {
      if (!response.headersSent) fail(response, error);
      else response.destroy();
    });
  });
  // A client that keeps a connection open must not hold the process.
  server.keepAliveTimeout = 30_000;

  const listening = await listen({
    server,
    host,
    port: options.port ?? 8082,
  });

  const timer = setInterval(() => {
    if (pool) return;
    const reclaimed = service.reclaimIdle();
    if (reclaimed.length > 0) options.onReclaim?.(reclaimed);
  }, reclaimIntervalMs);
  timer.unref?.();

  let closing: Promise<void> | undefined;
  const close = (): Promise<void> => {
    if (closing === undefined) {
      clearInterval(timer);
      closing = listening
        .close()
        .then(() => (pool ? pool.close() : service.releaseAll()));
    }
    return closing;
  };
  return {
    url: listening.url,
    host: listening.host,
    port: listening.port,
    service,
    close,
    [Symbol.asyncDispose]: close,
  };
}

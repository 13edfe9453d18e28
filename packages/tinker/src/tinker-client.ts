import {
  SealError,
  parseJsonText,
  parseWithSchema,
  type SealErrorCode,
} from '@seal/spec';
import * as z from 'zod';
import {
  tinkerCreateModelResultSchema,
  tinkerCreateSessionResponseSchema,
  tinkerForwardBackwardOutputSchema,
  tinkerOptimStepResponseSchema,
  tinkerRequestFailedResponseSchema,
  tinkerSampleResponseSchema,
  tinkerSaveWeightsForSamplerResponseSchema,
  tinkerSaveWeightsResponseSchema,
  tinkerServerCapabilitiesSchema,
  tinkerUntypedFutureSchema,
  sealExtensionsResponseSchema,
  sealSampleBatchResponseSchema,
  type SealSampleBatchRequest,
  type TinkerAdamParams,
  type TinkerCreateModelRequest,
  type TinkerForwardBackwardInput,
  type TinkerOptimStepRequest,
  type TinkerSampleRequest,
} from './tinker-wire';
import {
  decodeTinkerForwardBackwardOutput,
  decodeTinkerSampleResponse,
  encodeTinkerForwardBackwardRequest,
  tinkerProtobufContentType,
} from './tinker-protobuf';

/**
 * How forward, forward_backward and sample travel: `protobuf` as SDK 0.25
 * (a protobuf `forward_backward` body, forward-only passes through it, and
 * the three results asked for as protobuf, with JSON answers still read);
 * `json` as SDK 0.20 and earlier (`POST /api/v1/forward` for forward passes).
 */
export type TinkerWire = 'protobuf' | 'json';

/** Settings of {@link createTinkerClient}. */
export type TinkerClientSettings = {
  /** The service's base URL, e.g. `http://127.0.0.1:8090` (paths start with `/api/v1`). */
  baseUrl: string;
  /**
   * The API key, sent as the SDK sends it: the `X-API-Key` header. Default:
   * the `TINKER_API_KEY` environment variable; none is sent when neither is set.
   */
  apiKey?: string;
  /** Retries of a request after a retryable answer or a connection error (SDK: 10). */
  maxRetries?: number;
  /** First backoff of a retried request; doubles per retry (SDK: 500 ms). */
  initialRetryDelayMs?: number;
  /** Longest backoff of a retried request (SDK: 10 s). */
  maxRetryDelayMs?: number;
  /** Timeout of one request (SDK: 60 s). */
  requestTimeoutMs?: number;
  /** Timeout of one `retrieve_future` long poll (SDK: 45 s). */
  retrieveTimeoutMs?: number;
  /**
   * Unit of the backoff after a connection error or a 429 while retrieving a
   * future: `min(2^n, 30)` units (SDK: 1 s).
   */
  futureRetryUnitMs?: number;
  /** Deadline of a whole future, from submission to result (default 30 min). */
  futureTimeoutMs?: number;
  /** Seed of the retry jitter (default 0). */
  seed?: number;
  /** The fetch implementation (default: the global one). */
  fetch?: typeof fetch;
  /**
   * The wire of forward, forward_backward and sample (default `protobuf`,
   * SDK 0.25's; protobuf carries float32 values, JSON float64).
   */
  wire?: TinkerWire;
};

/** A submitted request: the future's id (and the model id, when the service names one). */
export type TinkerFuture = {
  /** The id `retrieve_future` takes. */
  requestId: string;
  /** The model the request made or used, when the answer names it. */
  modelId: string | undefined;
};

/**
 * A client of the Tinker REST API: typed endpoints, the SDK's retry rules and
 * futures retrieved by long poll with a deadline. Every failure is a
 * `SealError`: `NETWORK_ERROR` for an unreachable service or 5xx answers
 * after the retries, `INVALID_ARGUMENT` / `NOT_FOUND` / `PAYLOAD_TOO_LARGE`
 * for 4xx answers, `INVALID_STATE` for a future that failed, `TIMEOUT` for
 * one that did not complete before its deadline, `INVALID_DATA` for an
 * answer that does not parse.
 */
export type TinkerClient = {
  /** The base URL, without a trailing slash. */
  readonly baseUrl: string;
  /** `GET /api/v1/healthz`. */
  health(): Promise<void>;
  /** `GET /api/v1/get_server_capabilities`. */
  capabilities(): Promise<z.output<typeof tinkerServerCapabilitiesSchema>>;
  /** `POST /api/v1/create_session`: the session id. */
  createSession(options?: {
    tags?: string[];
    userMetadata?: Record<string, unknown>;
  }): Promise<string>;
  /** `POST /api/v1/session_heartbeat`. */
  heartbeat(sessionId: string): Promise<void>;
  /** `POST /api/v1/create_model`, then its future: the model id. */
  createModel(request: TinkerCreateModelRequest): Promise<string>;
  /** `POST /api/v1/forward_backward`, then its future. */
  forwardBackward(options: {
    modelId: string;
    input: TinkerForwardBackwardInput;
    /** Overrides the client's wire for this call. */
    wire?: TinkerWire;
  }): Promise<z.output<typeof tinkerForwardBackwardOutputSchema>>;
  /**
   * A forward pass without gradient, then its future: `POST
   * /api/v1/forward_backward` with `forward_only` (protobuf) or `POST
   * /api/v1/forward` (JSON).
   */
  forward(options: {
    modelId: string;
    input: TinkerForwardBackwardInput;
    /** Overrides the client's wire for this call. */
    wire?: TinkerWire;
  }): Promise<z.output<typeof tinkerForwardBackwardOutputSchema>>;
  /** `POST /api/v1/optim_step`, then its future. */
  optimStep(options: {
    modelId: string;
    adamParams: TinkerAdamParams;
    /** SEAL's exact extension only (`seal_train_options`). */
    sealTrainOptions?: TinkerOptimStepRequest['seal_train_options'];
  }): Promise<z.output<typeof tinkerOptimStepResponseSchema>>;
  /**
   * `GET /api/v1/seal_extensions`: the SEAL extensions the service speaks
   * (none for a service that does not know the endpoint: 404).
   */
  extensions(): Promise<string[]>;
  /** `POST /api/v1/seal_sample_batch` (SEAL's exact extension), then its future. */
  sampleBatch(
    request: SealSampleBatchRequest,
  ): Promise<z.output<typeof sealSampleBatchResponseSchema>>;
  /** `POST /api/v1/save_weights_for_sampler`, then its future: the sampler path. */
  saveWeightsForSampler(options: {
    modelId: string;
    name: string;
    ttlSeconds?: number;
  }): Promise<string>;
  /** `POST /api/v1/save_weights` (weights and optimizer state), then its future: the path. */
  saveWeights(options: { modelId: string; name: string }): Promise<string>;
  /** `POST /api/v1/load_weights`, then its future. */
  loadWeights(options: {
    modelId: string;
    path: string;
    optimizer: boolean;
  }): Promise<void>;
  /** `POST /api/v1/unload_model`, then its future. */
  unloadModel(modelId: string): Promise<void>;
  /** `POST /api/v1/asample`, then its future. */
  sample(
    request: TinkerSampleRequest,
    options?: { wire?: TinkerWire },
  ): Promise<z.output<typeof tinkerSampleResponseSchema>>;
  /** POSTs a request that answers with a future and returns its id. */
  submit(path: string, body: unknown): Promise<TinkerFuture>;
  /**
   * Long-polls `retrieve_future` until the result, a failure or the
   * deadline. With `protobuf`, the result is asked for as protobuf and a
   * protobuf answer is decoded with that decoder (a JSON answer is read as
   * JSON).
   */
  retrieve<T>(options: {
    requestId: string;
    schema: z.ZodType<T>;
    timeoutMs?: number;
    protobuf?: (bytes: Uint8Array) => unknown;
  }): Promise<T>;
};

/** Creates a {@link TinkerClient}. */
export function createTinkerClient(
  settings: TinkerClientSettings,
): TinkerClient {
  const baseUrl = settings.baseUrl.replace(/\/+$/, '');
  if (!/^https?:\/\//.test(baseUrl)) {
    throw new SealError({
      code: 'INVALID_ARGUMENT',
      message: `the Tinker service URL must start with http:// or https:// (got '${settings.baseUrl}')`,
      details: { baseUrl: settings.baseUrl },
    });
  }
  const apiKey = settings.apiKey ?? process.env.TINKER_API_KEY;
  const maxRetries = settings.maxRetries ?? 10;
  const initialRetryDelayMs = settings.initialRetryDelayMs ?? 500;
  const maxRetryDelayMs = settings.maxRetryDelayMs ?? 10_000;
  const requestTimeoutMs = settings.requestTimeoutMs ?? 60_000;
  const retrieveTimeoutMs = settings.retrieveTimeoutMs ?? 45_000;
  const futureRetryUnitMs = settings.futureRetryUnitMs ?? 1_000;
  const futureTimeoutMs = settings.futureTimeoutMs ?? 30 * 60_000;
  const fetchImplementation = settings.fetch ?? fetch;
  const defaultWire = settings.wire ?? 'protobuf';
  const random = seededRandom(settings.seed ?? 0);

  function headers(): Record<string, string> {
    return {
      'content-type': 'application/json',
      accept: 'application/json',
      ...(apiKey === undefined || apiKey === '' ? {} : { 'x-api-key': apiKey }),
    };
  }

  /** One HTTP exchange: a response, or the connection error it ended with. */
  async function exchange({
    method,
    path,
    body,
    timeoutMs,
    accept,
  }: {
    method: 'GET' | 'POST';
    path: string;
    /** JSON, or protobuf bytes. */
    body: unknown;
    timeoutMs: number;
    /** The `accept` header (default JSON). */
    accept?: string;
  }): Promise<
    | { response: Response; text: string; bytes: Uint8Array }
    | { failure: 'connection' | 'timeout'; cause: unknown }
  > {
    try {
      const binary = body instanceof Uint8Array;
      const response = await fetchImplementation(`${baseUrl}${path}`, {
        method,
        headers: {
          ...headers(),
          ...(binary ? { 'content-type': tinkerProtobufContentType } : {}),
          ...(accept === undefined ? {} : { accept }),
        },
        ...(method === 'POST'
          ? { body: binary ? body : JSON.stringify(body ?? {}) }
          : {}),
        signal: AbortSignal.timeout(Math.max(1, timeoutMs)),
      });
      const bytes = new Uint8Array(await response.arrayBuffer());
      return { response, text: new TextDecoder().decode(bytes), bytes };
    } catch (cause) {
      const name = (cause as { name?: unknown } | null)?.name;
      return {
        failure:
          name === 'TimeoutError' || name === 'AbortError'
            ? 'timeout'
            : 'connection',
        cause,
      };
    }
  }

  /**
   * A request with the SDK's base-client rules: retry connection errors,
   * timeouts, 408, 409, 429 and 5xx (or as `x-should-retry` says) up to
   * `maxRetries` times, waiting `retry-after` when it is given (up to 60 s),
   * else `min(initial · 2^n, max)` less up to 25% jitter.
   */
  async function request<T>({
    method,
    path,
    body,
    schema,
  }: {
    method: 'GET' | 'POST';
    path: string;
    body?: unknown;
    schema: z.ZodType<T>;
  }): Promise<T> {
    for (let attempt = 0; ; attempt++) {
      const result = await exchange({
        method,
        path,
        body,
        timeoutMs: requestTimeoutMs,
      });
      if ('failure' in result) {
        if (attempt < maxRetries) {
          await sleep(backoff(attempt));
          continue;
        }
        throw unreachable({
          path,
          failure: result.failure,
          cause: result.cause,
          tries: attempt + 1,
        });
      }
      const { response, text } = result;
      if (response.ok) return parseAnswer({ text, schema, path });
      if (attempt < maxRetries && shouldRetry(response)) {
        await sleep(retryAfter(response) ?? backoff(attempt));
        continue;
      }
      throw statusError({ path, status: response.status, text, attempt });
    }
  }

  function backoff(attempt: number): number {
    const delay = Math.min(
      initialRetryDelayMs * 2 ** Math.min(attempt, 1000),
      maxRetryDelayMs,
    );
    return delay * (1 - 0.25 * random());
  }

  function parseAnswer<T>({
    text,
    schema,
    path,
  }: {
    text: string;
    schema: z.ZodType<T>;
    path: string;
  }): T {
    const value = parseJsonText({ text, source: `Tinker ${path} answer` });
    return parseWithSchema({
      schema,
      value,
      source: `Tinker ${path} answer`,
    });
  }

  function unreachable({
    path,
    failure,
    cause,
    tries,
  }: {
    path: string;
    failure: 'connection' | 'timeout';
    cause: unknown;
    tries: number;
  }): SealError {
    const reason = describeCause(cause);
    return failure === 'timeout'
      ? new SealError({
          code: 'TIMEOUT',
          message: `the Tinker service at ${baseUrl} did not answer ${path} in time (${tries} tries)`,
          cause,
          isRetryable: true,
          details: { baseUrl, path, tries },
        })
      : new SealError({
          code: 'NETWORK_ERROR',
          message: `cannot reach the Tinker service at ${baseUrl} (${reason}; ${tries} tries of ${path})`,
          cause,
          isRetryable: true,
          details: { baseUrl, path, tries },
        });
  }

  function statusError({
    path,
    status,
    text,
    attempt,
  }: {
    path: string;
    status: number;
    text: string;
    attempt: number;
  }): SealError {
    const detail = errorDetail(text);
    const code: SealErrorCode =
      status === 404
        ? 'NOT_FOUND'
        : status === 413
          ? 'PAYLOAD_TOO_LARGE'
          : status >= 500 || status === 408 || status === 429
            ? 'NETWORK_ERROR'
            : 'INVALID_ARGUMENT';
    const hint =
      status === 401 || status === 403
        ? ' (check TINKER_API_KEY)'
        : attempt > 0
          ? ` after ${attempt + 1} tries`
          : '';
    return new SealError({
      code,
      message: `the Tinker service answered ${path} with ${status}${hint}: ${detail}`,
      isRetryable: code === 'NETWORK_ERROR',
      details: { baseUrl, path, status, detail },
    });
  }

  async function submit(path: string, body: unknown): Promise<TinkerFuture> {
    const answer = await request({
      method: 'POST',
      path,
      body,
      schema: tinkerUntypedFutureSchema,
    });
    return {
      requestId: answer.request_id,
      modelId: answer.model_id ?? undefined,
    };
  }

  /**
   * The SDK's future loop (`api_future_impl.py`): a `try_again` body, 408 and
   * 5xx ask again at once; 429 and connection errors back off `min(2^n, 30)`
   * units; a bare 400 is asked again up to 3 times (a proxy may inject one;
   * SkyRL answers a failed future with 400 and its detail); 410 means the
   * promise is gone; any other status is final. A 200 body with `error` is
   * a failed request.
   */
  async function retrieve<T>({
    requestId,
    schema,
    timeoutMs = futureTimeoutMs,
    protobuf,
  }: {
    requestId: string;
    schema: z.ZodType<T>;
    timeoutMs?: number;
    protobuf?: (bytes: Uint8Array) => unknown;
  }): Promise<T> {
    const path = '/api/v1/retrieve_future';
    const deadline = Date.now() + timeoutMs;
    let connectionRetries = 0;
    let badRequestRetries = 0;
    let last = 'no answer yet';
    for (;;) {
      const remaining = deadline - Date.now();
      if (remaining <= 0) {
        throw new SealError({
          code: 'TIMEOUT',
          message: `the Tinker future ${requestId} did not complete within ${timeoutMs} ms (last: ${last})`,
          isRetryable: true,
          details: { baseUrl, requestId, timeoutMs },
        });
      }
      const result = await exchange({
        method: 'POST',
        path,
        body: { request_id: requestId, allow_metadata_only: false },
        timeoutMs: Math.min(retrieveTimeoutMs, remaining),
        ...(protobuf
          ? { accept: `${tinkerProtobufContentType}, application/json` }
          : {}),
      });
      if ('failure' in result) {
        if (result.failure === 'timeout') {
          last = 'the long poll timed out';
          continue;
        }
        last = `connection error (${describeCause(result.cause)})`;
        await sleep(
          Math.min(
            futureRetryUnitMs * Math.min(2 ** connectionRetries, 30),
            Math.max(0, deadline - Date.now()),
          ),
        );
        connectionRetries += 1;
        continue;
      }
      const { response, text } = result;
      const status = response.status;
      if (
        response.ok &&
        protobuf &&
        (response.headers.get('content-type') ?? '').includes(
          tinkerProtobufContentType,
        )
      ) {
        const source = `Tinker future ${requestId} (protobuf)`;
        let decoded: unknown;
        try {
          decoded = protobuf(result.bytes);
        } catch (cause) {
          throw new SealError({
            code: 'INVALID_DATA',
            message: `${source}: ${(cause as Error).message}`,
            cause,
            details: { baseUrl, requestId },
          });
        }
        return parseWithSchema({ schema, value: decoded, source });
      }
      if (response.ok) {
        connectionRetries = 0;
        const value = parseAnswer({ text, schema: anySchema, path });
        if (isRecord(value) && value.type === 'try_again') {
          last = 'try_again';
          continue;
        }
        if (isRecord(value) && 'error' in value) {
          const failed = parseWithSchema({
            schema: tinkerRequestFailedResponseSchema,
            value,
            source: `Tinker future ${requestId}`,
          });
          throw futureFailed({
            requestId,
            error: failed.error,
            category: failed.category ?? 'unknown',
          });
        }
        return parseWithSchema({
          schema,
          value,
          source: `Tinker future ${requestId}`,
        });
      }
      last = `${status}: ${errorDetail(text)}`;
      if (status !== 429) connectionRetries = 0;
      if (status === 408 || status >= 500) continue;
      if (status === 429) {
        await sleep(
          Math.min(
            futureRetryUnitMs * Math.min(2 ** connectionRetries, 30),
            Math.max(0, deadline - Date.now()),
          ),
        );
        connectionRetries += 1;
        continue;
      }
      if (status === 400) {
        if (badRequestRetries < 3) {
          badRequestRetries += 1;
          continue;
        }
        throw futureFailed({
          requestId,
          error: errorDetail(text),
          category: 'unknown',
        });
      }
      if (status === 410) {
        throw new SealError({
          code: 'NETWORK_ERROR',
          message: `the Tinker service no longer holds future ${requestId} (410); submit the request again`,
          isRetryable: true,
          details: { baseUrl, requestId, status },
        });
      }
      throw statusError({ path, status, text, attempt: 0 });
    }
  }

  function futureFailed({
    requestId,
    error,
    category,
  }: {
    requestId: string;
    error: string;
    category: string;
  }): SealError {
    return new SealError({
      code: 'INVALID_STATE',
      message: `the Tinker request ${requestId} failed (${category} error): ${error}`,
      details: { baseUrl, requestId, category, error },
    });
  }

  async function call<T>(
    path: string,
    body: unknown,
    schema: z.ZodType<T>,
    protobuf?: (bytes: Uint8Array) => unknown,
  ): Promise<T> {
    const future = await submit(path, body);
    return retrieve({
      requestId: future.requestId,
      schema,
      ...(protobuf ? { protobuf } : {}),
    });
  }

  /** forward_backward, or a forward pass, on the chosen wire. */
  function forwardOrBackward({
    modelId,
    input,
    wire = defaultWire,
    forwardOnly,
  }: {
    modelId: string;
    input: TinkerForwardBackwardInput;
    wire?: TinkerWire | undefined;
    forwardOnly: boolean;
  }) {
    if (wire === 'protobuf') {
      return call(
        '/api/v1/forward_backward',
        encodeTinkerForwardBackwardRequest({
          model_id: modelId,
          forward_backward_input: input,
          forward_only: forwardOnly,
        }),
        tinkerForwardBackwardOutputSchema,
        decodeTinkerForwardBackwardOutput,
      );
    }
    return forwardOnly
      ? call(
          '/api/v1/forward',
          { model_id: modelId, forward_input: input },
          tinkerForwardBackwardOutputSchema,
        )
      : call(
          '/api/v1/forward_backward',
          { model_id: modelId, forward_backward_input: input },
          tinkerForwardBackwardOutputSchema,
        );
  }

  return {
    baseUrl,
    async health() {
      await request({
        method: 'GET',
        path: '/api/v1/healthz',
        schema: anySchema,
      });
    },
    capabilities: () =>
      request({
        method: 'GET',
        path: '/api/v1/get_server_capabilities',
        schema: tinkerServerCapabilitiesSchema,
      }),
    async createSession(options = {}) {
      const answer = await request({
        method: 'POST',
        path: '/api/v1/create_session',
        body: {
          tags: options.tags ?? [],
          user_metadata: options.userMetadata ?? {},
          sdk_version: 'seal-tinker-0',
          type: 'create_session',
        },
        schema: tinkerCreateSessionResponseSchema,
      });
      if (answer.error_message) {
        throw new SealError({
          code: 'INVALID_STATE',
          message: `the Tinker service refused the session: ${answer.error_message}`,
          details: { baseUrl },
        });
      }
      return answer.session_id;
    },
    async heartbeat(sessionId) {
      await request({
        method: 'POST',
        path: '/api/v1/session_heartbeat',
        body: { session_id: sessionId, type: 'session_heartbeat' },
        schema: anySchema,
      });
    },
    async createModel(body) {
      const future = await submit('/api/v1/create_model', {
        ...body,
        type: 'create_model',
      });
      const result = await retrieve({
        requestId: future.requestId,
        schema: tinkerCreateModelResultSchema.partial(),
      });
      const modelId = result.model_id ?? future.modelId;
      if (modelId === undefined) {
        throw new SealError({
          code: 'INVALID_DATA',
          message: `the Tinker service created a model without naming its model_id`,
          details: { baseUrl, requestId: future.requestId },
        });
      }
      return modelId;
    },
    forwardBackward: ({ modelId, input, wire }) =>
      forwardOrBackward({ modelId, input, wire, forwardOnly: false }),
    forward: ({ modelId, input, wire }) =>
      forwardOrBackward({ modelId, input, wire, forwardOnly: true }),
    optimStep: ({ modelId, adamParams, sealTrainOptions }) =>
      call(
        '/api/v1/optim_step',
        {
          model_id: modelId,
          adam_params: adamParams,
          ...(sealTrainOptions ? { seal_train_options: sealTrainOptions } : {}),
          type: 'optim_step',
        },
        tinkerOptimStepResponseSchema,
      ),
    async extensions() {
      try {
        const answer = await request({
          method: 'GET',
          path: '/api/v1/seal_extensions',
          schema: sealExtensionsResponseSchema,
        });
        return answer.extensions;
      } catch (error) {
        // A service without SEAL's extensions answers 404 (or 405).
        if (
          SealError.isInstance(error) &&
          (error.code === 'NOT_FOUND' || error.code === 'INVALID_ARGUMENT')
        )
          return [];
        throw error;
      }
    },
    sampleBatch: (body) =>
      call(
        '/api/v1/seal_sample_batch',
        { ...body, type: 'seal_sample_batch' },
        sealSampleBatchResponseSchema,
      ),
    async saveWeightsForSampler({ modelId, name, ttlSeconds }) {
      const result = await call(
        '/api/v1/save_weights_for_sampler',
        {
          model_id: modelId,
          path: name,
          ...(ttlSeconds === undefined ? {} : { ttl_seconds: ttlSeconds }),
          type: 'save_weights_for_sampler',
        },
        tinkerSaveWeightsForSamplerResponseSchema,
      );
      if (!result.path) {
        throw new SealError({
          code: 'INVALID_DATA',
          message: `the Tinker service saved sampler weights '${name}' without a path`,
          details: { baseUrl, modelId },
        });
      }
      return result.path;
    },
    async saveWeights({ modelId, name }) {
      const result = await call(
        '/api/v1/save_weights',
        { model_id: modelId, path: name, type: 'save_weights' },
        tinkerSaveWeightsResponseSchema,
      );
      return result.path;
    },
    async loadWeights({ modelId, path, optimizer }) {
      await call(
        '/api/v1/load_weights',
        { model_id: modelId, path, optimizer, type: 'load_weights' },
        anySchema,
      );
    },
    async unloadModel(modelId) {
      await call(
        '/api/v1/unload_model',
        { model_id: modelId, type: 'unload_model' },
        anySchema,
      );
    },
    sample: (body, options = {}) =>
      call(
        '/api/v1/asample',
        { ...body, type: 'sample' },
        tinkerSampleResponseSchema,
        (options.wire ?? defaultWire) === 'protobuf'
          ? decodeTinkerSampleResponse
          : undefined,
      ),
    submit,
    retrieve,
  };
}

/** Accepts any JSON value (answers we only wait for). */
const anySchema = z.unknown();

/** The SDK's `_should_retry`: `x-should-retry` first, then 408, 409, 429, 5xx. */
function shouldRetry(response: Response): boolean {
  const header = response.headers.get('x-should-retry');
  if (header === 'true') return true;
  if (header === 'false') return false;
  const status = response.status;
  return status === 408 || status === 409 || status === 429 || status >= 500;
}

/** `retry-after-ms`, else `retry-after` (seconds or a date), when 0 < wait ≤ 60 s. */
function retryAfter(response: Response): number | undefined {
  const milliseconds = Number(response.headers.get('retry-after-ms'));
  let wait =
    Number.isFinite(milliseconds) && milliseconds > 0
      ? milliseconds
      : undefined;
  const header = response.headers.get('retry-after');
  if (wait === undefined && header !== null) {
    const seconds = Number(header);
    wait = Number.isFinite(seconds)
      ? seconds * 1000
      : Date.parse(header) - Date.now();
  }
  return wait !== undefined && wait > 0 && wait <= 60_000 ? wait : undefined;
}

function errorDetail(text: string): string {
  try {
    const value = parseJsonText({ text });
    if (isRecord(value)) {
      const detail = value.detail ?? value.error ?? value.message;
      if (typeof detail === 'string') return detail;
      if (detail !== undefined) return JSON.stringify(detail).slice(0, 500);
    }
  } catch {
    // Not JSON: the text itself is the detail.
  }
  return text.slice(0, 500) || '(empty body)';
}

function describeCause(cause: unknown): string {
  const inner = (cause as { cause?: { code?: unknown } } | null)?.cause;
  if (typeof inner?.code === 'string') return inner.code;
  return cause instanceof Error ? cause.message : String(cause);
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function sleep(milliseconds: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, milliseconds));
}

/** mulberry32: the retry jitter's generator, seeded. */
function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

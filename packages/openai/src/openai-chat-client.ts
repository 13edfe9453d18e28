import {
  SealError,
  parseJsonText,
  safeParseWithSchema,
  type ChatModelV1,
  type ChatModelV1Request,
  type ChatModelV1Result,
  type PromptMode,
} from '@seal/spec';
import { defaultSleep, httpError, retryAfterMs } from './openai-http';
import {
  fromOpenAiResponse,
  openAiChatResponseSchema,
  openAiModelListSchema,
  toOpenAiRequest,
} from './openai-wire';

/** Settings of {@link createOpenAiChatModel}. */
export type OpenAiChatModelSettings = {
  /**
   * The endpoint: `http://host:port` (then `/v1` is added) or a base URL
   * that already names its API root (`https://api.example.com/v1`).
   */
  baseUrl: string;
  /** The `model` field of every request. */
  model: string;
  /** Sent as `Authorization: Bearer <apiKey>` when given. */
  apiKey?: string;
  /** Retries after the first attempt for 408/409/429/5xx and network errors. Default 5. */
  maxRetries?: number;
  /** First backoff delay; it doubles per retry (with jitter). Default 500 ms. */
  initialBackoffMs?: number;
  /** Cap of one backoff delay (also of a server's `Retry-After`). Default 30 s. */
  maxBackoffMs?: number;
  /** Deadline of one attempt. Default 300 s (SEAL's client). */
  timeoutMs?: number;
  /** The fetch implementation. Default the global `fetch`. */
  fetch?: typeof fetch;
  /** Waits between retries (tests pass a fake). */
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  /** Random numbers for the jitter in [0, 1). Default `Math.random`. */
  random?: () => number;
  /** Receives each retry before its delay. */
  onRetry?: (info: {
    attempt: number;
    delayMs: number;
    error: SealError;
  }) => void;
};

/** The endpoint's API root (`…/v1`). */
export function apiRoot(baseUrl: string): string {
  const url = new URL(baseUrl);
  const path = url.pathname.replace(/\/+$/, '');
  url.pathname = path === '' ? '/v1' : path;
  return url.href.replace(/\/+$/, '');
}

/**
 * Lists an endpoint's models (`GET /v1/models`), with this project's `seal`
 * hints when the endpoint is `seal serve-policy`.
 */
export async function listOpenAiModels({
  baseUrl,
  apiKey,
  fetch: fetchImpl = fetch,
  timeoutMs = 30_000,
}: {
  baseUrl: string;
  apiKey?: string;
  fetch?: typeof fetch;
  timeoutMs?: number;
}): Promise<
  {
    id: string;
    protocol?: string;
    promptMode?: PromptMode;
    maxSequenceLength?: number;
    /** `seal serve-policy`'s evaluation defaults for the model. */
    evalDefaults?: unknown;
  }[]
> {
  const url = `${apiRoot(baseUrl)}/models`;
  let response: Response;
  try {
    response = await fetchImpl(url, {
      headers:
        apiKey === undefined ? {} : { authorization: `Bearer ${apiKey}` },
      signal: AbortSignal.timeout(timeoutMs),
    });
  } catch (cause) {
    throw new SealError({
      code: 'NETWORK_ERROR',
      message: `cannot reach ${url} (${(cause as Error).message})`,
      cause,
      details: { url },
      isRetryable: true,
    });
  }
  const text = await response.text();
  if (!response.ok) throw httpError({ status: response.status, text, url });
  const parsed = safeParseWithSchema({
    schema: openAiModelListSchema,
    value: parseJsonText({ text, source: url }),
    source: url,
  });
  if (!parsed.success) throw parsed.error;
  return parsed.value.data.map((model) => ({
    id: model.id,
    ...(model.seal?.protocol ? { protocol: model.seal.protocol } : {}),
    ...(model.seal?.promptMode ? { promptMode: model.seal.promptMode } : {}),
    ...(model.seal?.maxSequenceLength
      ? { maxSequenceLength: model.seal.maxSequenceLength }
      : {}),
    ...(model.seal?.evalDefaults === undefined
      ? {}
      : { evalDefaults: model.seal.evalDefaults }),
  }));
}

/**
 * A {@link ChatModelV1} over any OpenAI-compatible endpoint (vLLM,
 * SGLang, `seal serve-policy`, hosted APIs): one `POST /v1/chat/completions`
 * per call, non-streaming. Rate limits (429), server errors (5xx), 408/409,
 * timeouts and network failures are retried with exponential backoff and
 * jitter, honouring `Retry-After`; after `maxRetries` the last error is
 * thrown (`NETWORK_ERROR` or `TIMEOUT`, retryable). Other 4xx answers throw
 * at once (`INVALID_ARGUMENT`, `NOT_FOUND`), and a prompt beyond the
 * model's context gives `CONTEXT_LENGTH_EXCEEDED`.
 */
export function createOpenAiChatModel(
  settings: OpenAiChatModelSettings,
): ChatModelV1 {
  const url = `${apiRoot(settings.baseUrl)}/chat/completions`;
  const fetchImpl = settings.fetch ?? fetch;
  const sleep = settings.sleep ?? defaultSleep;
  const random = settings.random ?? Math.random;
  const maxRetries = settings.maxRetries ?? 5;
  const initialBackoffMs = settings.initialBackoffMs ?? 500;
  const maxBackoffMs = settings.maxBackoffMs ?? 30_000;
  const timeoutMs = settings.timeoutMs ?? 300_000;
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    ...(settings.apiKey === undefined
      ? {}
      : { authorization: `Bearer ${settings.apiKey}` }),
  };

  const attempt = async (
    body: string,
    signal: AbortSignal | undefined,
  ): Promise<
    { result: ChatModelV1Result } | { error: SealError; retryAfter?: number }
  > => {
    const timeout = AbortSignal.timeout(timeoutMs);
    let response: Response;
    let text: string;
    try {
      response = await fetchImpl(url, {
        method: 'POST',
        headers,
        body,
        signal:
          signal === undefined ? timeout : AbortSignal.any([signal, timeout]),
      });
      text = await response.text();
    } catch (cause) {
      if (signal?.aborted) throw cause;
      const timedOut = timeout.aborted;
      return {
        error: new SealError({
          code: timedOut ? 'TIMEOUT' : 'NETWORK_ERROR',
          message: timedOut
            ? `${url} did not answer within ${timeoutMs} ms`
            : `cannot reach ${url} (${(cause as Error).message})`,
          cause,
          details: { url },
          isRetryable: true,
        }),
      };
    }
    if (!response.ok) {
      const error = httpError({ status: response.status, text, url });
      const retryAfter = retryAfterMs(response.headers.get('retry-after'));
      return retryAfter === undefined ? { error } : { error, retryAfter };
    }
    const parsed = safeParseWithSchema({
      schema: openAiChatResponseSchema,
      value: parseJsonText({ text, source: url }),
      source: `response of ${url}`,
    });
    if (!parsed.success) throw parsed.error;
    return { result: fromOpenAiResponse(parsed.value) };
  };

  return {
    specificationVersion: 'v1',
    modelId: settings.model,
    async complete(request: ChatModelV1Request, options = {}) {
      const body = JSON.stringify(
        toOpenAiRequest({ request, model: settings.model }),
      );
      for (let retry = 0; ; retry++) {
        const outcome = await attempt(body, options.signal);
        if ('result' in outcome) return outcome.result;
        const { error } = outcome;
        if (!error.isRetryable || retry >= maxRetries) {
          if (retry === 0) throw error;
          throw new SealError({
            code: error.code,
            message: `${error.message} (after ${retry + 1} attempts)`,
            cause: error,
            details: { ...error.details, attempts: retry + 1 },
            isRetryable: error.isRetryable,
          });
        }
        const backoff = Math.min(maxBackoffMs, initialBackoffMs * 2 ** retry);
        // Equal jitter: half the delay fixed, half random, so clients spread out.
        const jittered = backoff / 2 + (random() * backoff) / 2;
        const delayMs = Math.round(
          Math.min(maxBackoffMs, Math.max(jittered, outcome.retryAfter ?? 0)),
        );
        settings.onRetry?.({ attempt: retry + 1, delayMs, error });
        await sleep(delayMs, options.signal);
      }
    },
  };
}

import { SealError, parseJsonText } from '@seal/spec';

/*
 * What the OpenAI-compatible clients share: the error of a non-2xx answer,
 * `Retry-After`, and the wait between retries.
 */

/** Waits `ms` milliseconds, or until `signal` aborts. */
export function defaultSleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(signal.reason);
      return;
    }
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(signal!.reason);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/** A `Retry-After` header in milliseconds (seconds or an HTTP date). */
export function retryAfterMs(header: string | null): number | undefined {
  if (header === null) return undefined;
  const seconds = Number(header);
  if (Number.isFinite(seconds)) return Math.max(0, seconds * 1000);
  const date = Date.parse(header);
  return Number.isNaN(date) ? undefined : Math.max(0, date - Date.now());
}

/** The error of a non-2xx answer; retryable for 408, 409, 429 and 5xx. */
export function httpError({
  status,
  text,
  url,
}: {
  status: number;
  text: string;
  url: string;
}): SealError {
  let message = text.slice(0, 500);
  let code: unknown;
  try {
    const body = parseJsonText({ text }) as {
      error?: { message?: unknown; code?: unknown } | string;
      message?: unknown;
      detail?: unknown;
    };
    const error = body.error;
    if (typeof error === 'string') message = error;
    else if (error !== undefined && typeof error.message === 'string') {
      message = error.message;
      code = error.code;
    } else if (typeof body.message === 'string') message = body.message;
    else if (typeof body.detail === 'string') message = body.detail;
  } catch {
    // Not JSON: keep the text.
  }
  if (
    status === 400 &&
    (code === 'context_length_exceeded' ||
      /maximum context length|context length|too many tokens/i.test(message))
  ) {
    return new SealError({
      code: 'CONTEXT_LENGTH_EXCEEDED',
      message: `${url}: ${message}`,
      details: { status },
    });
  }
  const retryable =
    status === 408 || status === 409 || status === 429 || status >= 500;
  const details = {
    status,
    url,
    ...(typeof code === 'string' ? { errorCode: code } : {}),
  };
  if (retryable) {
    return new SealError({
      code: 'NETWORK_ERROR',
      message: `${url} answered ${status}: ${message}`,
      details,
      isRetryable: true,
    });
  }
  return new SealError({
    code: status === 404 ? 'NOT_FOUND' : 'INVALID_ARGUMENT',
    message: `${url} answered ${status}: ${message}`,
    details,
  });
}

/** Retry settings of {@link postJsonWithRetries}. */
export type RetrySettings = {
  /** Retries after the first attempt for 408/409/429/5xx and network errors. Default 5. */
  maxRetries?: number;
  /** First backoff delay; it doubles per retry (with jitter). Default 500 ms. */
  initialBackoffMs?: number;
  /** Cap of one backoff delay (also of a server's `Retry-After`). Default 30 s. */
  maxBackoffMs?: number;
  /** Deadline of one attempt. Default 300 s. */
  timeoutMs?: number;
  /** The fetch implementation. Default the global `fetch`. */
  fetch?: typeof fetch;
  /** Waits between retries (tests pass a fake). */
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  /** Random numbers for the jitter in [0, 1). Default `Math.random`. */
  random?: () => number;
};

/**
 * POSTs a JSON body and returns the answer's parsed JSON. 408, 409, 429,
 * 5xx, timeouts and network failures are retried with exponential backoff
 * and equal jitter, honouring `Retry-After`; other answers throw at once
 * (see {@link httpError}). The last error names the attempts.
 */
export async function postJsonWithRetries({
  url,
  body,
  headers = {},
  settings = {},
}: {
  url: string;
  body: unknown;
  headers?: Record<string, string>;
  settings?: RetrySettings;
}): Promise<unknown> {
  const fetchImpl = settings.fetch ?? fetch;
  const sleep = settings.sleep ?? defaultSleep;
  const random = settings.random ?? Math.random;
  const maxRetries = settings.maxRetries ?? 5;
  const initialBackoffMs = settings.initialBackoffMs ?? 500;
  const maxBackoffMs = settings.maxBackoffMs ?? 30_000;
  const timeoutMs = settings.timeoutMs ?? 300_000;
  const text = JSON.stringify(body);
  for (let retry = 0; ; retry++) {
    let error: SealError;
    let retryAfter: number | undefined;
    const timeout = AbortSignal.timeout(timeoutMs);
    try {
      const response = await fetchImpl(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...headers },
        body: text,
        signal: timeout,
      });
      const answer = await response.text();
      if (response.ok) return parseJsonText({ text: answer, source: url });
      error = httpError({ status: response.status, text: answer, url });
      retryAfter = retryAfterMs(response.headers.get('retry-after'));
    } catch (cause) {
      if (SealError.isInstance(cause)) throw cause;
      const timedOut = timeout.aborted;
      error = new SealError({
        code: timedOut ? 'TIMEOUT' : 'NETWORK_ERROR',
        message: timedOut
          ? `${url} did not answer within ${timeoutMs} ms`
          : `cannot reach ${url} (${(cause as Error).message})`,
        cause,
        details: { url },
        isRetryable: true,
      });
    }
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
    const jittered = backoff / 2 + (random() * backoff) / 2;
    await sleep(
      Math.round(Math.min(maxBackoffMs, Math.max(jittered, retryAfter ?? 0))),
    );
  }
}

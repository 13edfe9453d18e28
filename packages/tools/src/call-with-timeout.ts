import type { ToolOutcomeV2 } from '@seal/spec';

/** The default per-call deadline of the adapters, in milliseconds. */
export const defaultCallTimeoutMs = 30_000;

/**
 * Runs `run` with a deadline: past `timeoutMs` the signal aborts and the
 * outcome is `timeout` (the late result, if any, is dropped). A rejection of
 * `run` becomes a `tool_error` outcome, so a tool never crashes the caller.
 */
export async function callWithTimeout({
  name,
  timeoutMs,
  run,
}: {
  /** The tool name, for the timeout message. */
  name: string;
  timeoutMs: number;
  run: (abortSignal: AbortSignal) => Promise<ToolOutcomeV2>;
}): Promise<ToolOutcomeV2> {
  const controller = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<ToolOutcomeV2>((resolve) => {
    timer = setTimeout(() => {
      const error = `tool ${name} did not answer within ${timeoutMs} ms`;
      controller.abort(new Error(error));
      resolve({
        kind: 'timeout',
        ok: false,
        content: `Error: ${error}`,
        error,
      });
    }, timeoutMs);
  });
  const running = run(controller.signal).catch(
    (thrown: unknown): ToolOutcomeV2 => {
      const error = errorText(thrown);
      return {
        kind: 'tool_error',
        ok: false,
        content: `Error: ${error}`,
        error,
      };
    },
  );
  try {
    return await Promise.race([running, deadline]);
  } finally {
    clearTimeout(timer);
  }
}

/** The message of anything thrown. */
export function errorText(thrown: unknown): string {
  if (thrown instanceof Error) return thrown.message;
  return String(thrown);
}

import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import {
  StdioClientTransport,
  getDefaultEnvironment,
} from '@modelcontextprotocol/sdk/client/stdio.js';
import {
  SealError,
  safeParseWithSchema,
  toolDocV2Schema,
  type EnvironmentV2,
  type EnvironmentV2Session,
  type TaskCheckerV2,
  type ToolCallV2,
  type ToolDocV2,
  type ToolOutcomeV2,
} from '@seal/spec';
import {
  callWithTimeout,
  defaultCallTimeoutMs,
  errorText,
} from './call-with-timeout';

/** The placeholder a command line or env value uses for the session's directory. */
export const sessionDirPlaceholder = '{session_dir}';

/** Options for {@link fromMcp}. */
export type FromMcpOptions = {
  /** The server executable (`node`, `npx`, ...). May contain `{session_dir}`. */
  command: string;
  /** Its arguments; each may contain `{session_dir}`. */
  args?: readonly string[];
  /**
   * Extra environment variables, on top of the MCP SDK's safe defaults
   * (`PATH`, `HOME`, ...); values may contain `{session_dir}`.
   */
  env?: Readonly<Record<string, string>>;
  /** The server's working directory (may name `{session_dir}`); default the caller's. */
  cwd?: string;
  /** Where session directories are made (default the OS temp directory). */
  sessionRoot?: string;
  /** Identifies the environment. Default `mcp:<command> <args>`. */
  environmentId?: string;
  /** The per-call deadline in milliseconds (default 30 s). */
  timeoutMs?: number;
  /** The deadline for starting the server and listing its tools (default 60 s). */
  startTimeoutMs?: number;
  /**
   * A read-only call whose result is the session's snapshot for the `state`
   * check (e.g. `{ name: 'read_graph', arguments: {} }` for the memory
   * server). Without it, sessions have no snapshot.
   */
  snapshotCall?: Pick<ToolCallV2, 'name' | 'arguments'>;
  /** Decides tasks that carry no ground truth. */
  checker?: TaskCheckerV2;
};

// JSON-RPC codes the SDK and servers use for refused requests.
const invalidParamsCode = -32602;
const methodNotFoundCode = -32601;
const requestTimeoutCode = -32001;
// How long a server may take to exit on its own once stdin closes.
const closeGraceMs = 200;

function substitute(text: string, sessionDir: string): string {
  return text.split(sessionDirPlaceholder).join(sessionDir);
}

/** The text of an MCP `CallToolResult`'s content blocks, joined by newlines. */
function contentText(content: unknown): string {
  if (!Array.isArray(content)) return '';
  return content
    .map((block: unknown) => {
      if (typeof block !== 'object' || block === null) return '';
      const { type, text } = block as { type?: unknown; text?: unknown };
      if (type === 'text' && typeof text === 'string') return text;
      return JSON.stringify(block);
    })
    .join('\n');
}

function outcomeOfError(thrown: unknown): ToolOutcomeV2 {
  const error = errorText(thrown);
  const code = (thrown as { code?: unknown }).code;
  const kind =
    code === invalidParamsCode
      ? 'invalid_arguments'
      : code === methodNotFoundCode
        ? 'unknown_tool'
        : code === requestTimeoutCode
          ? 'timeout'
          : 'tool_error';
  return { kind, ok: false, content: `Error: ${error}`, error };
}

async function withDeadline<T>({
  promise,
  timeoutMs,
  what,
}: {
  promise: Promise<T>;
  timeoutMs: number;
  what: string;
}): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () =>
        reject(
          new SealError({
            code: 'TIMEOUT',
            message: `${what} did not finish within ${timeoutMs} ms`,
          }),
        ),
      timeoutMs,
    );
  });
  try {
    return await Promise.race([promise, deadline]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * An environment from an MCP server started over stdio with the official
 * `@modelcontextprotocol/sdk` client. Every session starts its own server
 * process in a fresh temporary directory (named by `{session_dir}` in the
 * command line and env, so servers that keep state in files never share
 * it), lists its tools with paging, and runs calls with `callTool`
 * (`isError` → `tool_error`). Closing a session stops the server and removes
 * its directory.
 *
 * @example
 * ```ts
 * const memory = fromMcp({
 *   command: 'npx',
 *   args: ['-y', '@modelcontextprotocol/server-memory'],
 *   env: { MEMORY_FILE_PATH: '{session_dir}/memory.jsonl' },
 *   snapshotCall: { name: 'read_graph', arguments: {} },
 * });
 * ```
 */
export function fromMcp({
  command,
  args = [],
  env = {},
  cwd,
  sessionRoot,
  environmentId = `mcp:${[command, ...args].join(' ')}`,
  timeoutMs = defaultCallTimeoutMs,
  startTimeoutMs = 60_000,
  snapshotCall,
  checker,
}: FromMcpOptions): EnvironmentV2 {
  async function start(sessionDir: string): Promise<{
    client: Client;
    transport: StdioClientTransport;
    tools: ToolDocV2[];
    stderr: () => string;
  }> {
    const transport = new StdioClientTransport({
      command: substitute(command, sessionDir),
      args: args.map((arg) => substitute(arg, sessionDir)),
      env: {
        ...getDefaultEnvironment(),
        ...Object.fromEntries(
          Object.entries(env).map(([key, value]) => [
            key,
            substitute(value, sessionDir),
          ]),
        ),
      },
      ...(cwd === undefined ? {} : { cwd: substitute(cwd, sessionDir) }),
      stderr: 'pipe',
    });
    let stderrText = '';
    transport.stderr?.on('data', (chunk: Buffer) => {
      stderrText = (stderrText + chunk.toString('utf8')).slice(-2000);
    });
    let transportError: Error | undefined;
    const client = new Client({ name: 'seal', version: '0.0.0' });
    client.onerror = (error) => {
      transportError ??= error;
    };
    try {
      await withDeadline({
        promise: client.connect(transport),
        timeoutMs: startTimeoutMs,
        what: `MCP server ${environmentId}: initialize`,
      });
      const tools: ToolDocV2[] = [];
      let cursor: string | undefined;
      do {
        const page = await withDeadline({
          promise: client.listTools(cursor === undefined ? {} : { cursor }),
          timeoutMs: startTimeoutMs,
          what: `MCP server ${environmentId}: tools/list`,
        });
        for (const tool of page.tools) {
          const parsed = safeParseWithSchema({
            schema: toolDocV2Schema,
            value: tool,
            source: `MCP server ${environmentId}: tool ${tool.name}`,
          });
          if (!parsed.success) throw parsed.error;
          tools.push(parsed.value);
        }
        cursor = page.nextCursor ?? undefined;
      } while (cursor !== undefined);
      return { client, transport, tools, stderr: () => stderrText };
    } catch (thrown) {
      await client.close().catch(() => undefined);
      const stderrTail = stderrText.trim();
      const reason = transportError?.message ?? errorText(thrown);
      throw new SealError({
        code: 'BACKEND_UNAVAILABLE',
        message:
          `MCP server ${environmentId} did not start: ${reason}` +
          (stderrTail === '' ? '' : ` (stderr: ${stderrTail.slice(-500)})`),
        cause: thrown,
        details: { environmentId },
      });
    }
  }

  return {
    specificationVersion: 'v2',
    environmentId,
    ...(checker === undefined ? {} : { checker }),
    async openSession() {
      const sessionDir = await mkdtemp(
        join(sessionRoot ?? tmpdir(), 'seal-mcp-'),
      );
      let server: Awaited<ReturnType<typeof start>>;
      try {
        server = await start(sessionDir);
      } catch (thrown) {
        await rm(sessionDir, { recursive: true, force: true });
        throw thrown;
      }
      const { client, tools } = server;
      const names = new Set(tools.map((tool) => tool.name));
      let closing: Promise<void> | undefined;

      function call({
        name,
        arguments: arguments_,
      }: Pick<ToolCallV2, 'name' | 'arguments'>): Promise<ToolOutcomeV2> {
        if (closing !== undefined) {
          return Promise.reject(
            new SealError({
              code: 'INVALID_STATE',
              message: `environment ${environmentId}: call on a closed session`,
            }),
          );
        }
        if (!names.has(name)) {
          const error = `unknown tool ${name}`;
          return Promise.resolve({
            kind: 'unknown_tool',
            ok: false,
            content: `Error: ${error}`,
            error,
          });
        }
        return callWithTimeout({
          name,
          timeoutMs,
          async run(abortSignal) {
            try {
              const result = await client.callTool(
                { name, arguments: arguments_ },
                undefined,
                // The SDK's own timeout sits just past ours, so ours decides.
                { signal: abortSignal, timeout: timeoutMs + 1000 },
              );
              const content = contentText(result.content);
              const value = result.structuredContent ?? undefined;
              if (result.isError === true) {
                // SDK servers report schema failures as an `isError` result
                // whose text starts with the JSON-RPC code.
                const kind = content.startsWith(
                  `MCP error ${invalidParamsCode}`,
                )
                  ? 'invalid_arguments'
                  : 'tool_error';
                return { kind, ok: false, content, error: content };
              }
              return {
                kind: 'ok',
                ok: true,
                content,
                ...(value === undefined ? {} : { value }),
              };
            } catch (thrown) {
              return outcomeOfError(thrown);
            }
          },
        });
      }

      const session: EnvironmentV2Session = {
        listTools: () => Promise.resolve(tools),
        call,
        close() {
          closing ??= (async () => {
            // The SDK ends stdin and waits 2 s before SIGTERM; servers that
            // keep running on a closed stdin get SIGTERM after a short grace.
            const pid = server.transport.pid;
            const terminate = setTimeout(() => {
              try {
                if (pid !== null) process.kill(pid, 'SIGTERM');
              } catch {
                // Already gone.
              }
            }, closeGraceMs);
            await client.close().catch(() => undefined);
            clearTimeout(terminate);
            await rm(sessionDir, { recursive: true, force: true });
          })();
          return closing;
        },
      };
      if (snapshotCall !== undefined) {
        session.snapshot = async () => {
          const outcome = await call(snapshotCall);
          if (!outcome.ok) {
            throw new SealError({
              code: 'INVALID_STATE',
              message: `MCP server ${environmentId}: snapshot call ${snapshotCall.name} failed (${outcome.error ?? outcome.kind})`,
            });
          }
          return outcome.value ?? outcome.content;
        };
      }
      return session;
    },
  };
}

import {
  parseJsonText,
  type EnvironmentV2,
  type EnvironmentV2Session,
  type TaskCheckerV2,
  type ToolDocV2,
  type ToolOutcomeV2,
} from '@seal/spec';
import { SealError } from '@seal/spec';
import { asSchema, type Tool } from 'ai';
import { checkJsonSchema } from './check-json-schema';
import {
  callWithTimeout,
  defaultCallTimeoutMs,
  errorText,
} from './call-with-timeout';

/** Options for {@link fromAiSdkTools}. */
export type FromAiSdkToolsOptions<TState> = {
  /** A fresh state object for each session; passed to `execute` as `context`. */
  createState: () => TState;
  /**
   * A JSON-comparable view of the state for the `state` check. Default: a
   * JSON copy of the state (use this option for Maps, Sets or classes).
   */
  snapshot?: (state: TState) => unknown;
  /** Identifies the environment. Default `ai-sdk-tools`. */
  environmentId?: string;
  /** The per-call deadline in milliseconds (default 30 s). */
  timeoutMs?: number;
  /** Decides tasks that carry no ground truth. */
  checker?: TaskCheckerV2;
};

/** The content text of a tool's return value. */
function contentOf(value: unknown): string {
  if (typeof value === 'string') return value;
  if (value === undefined) return '';
  return JSON.stringify(value) ?? String(value);
}

async function lastOf(value: unknown): Promise<unknown> {
  // `execute` may stream (an AsyncIterable of partial results); the last one counts.
  if (
    typeof value === 'object' &&
    value !== null &&
    Symbol.asyncIterator in value
  ) {
    let last: unknown;
    for await (const part of value as AsyncIterable<unknown>) last = part;
    return last;
  }
  return value;
}

function jsonCopy(state: unknown): unknown {
  const text = JSON.stringify(state);
  return text === undefined
    ? null
    : parseJsonText({ text, source: 'state snapshot' });
}

/**
 * An environment from a record of the AI SDK's `tool()` objects (zod or
 * JSON-Schema `inputSchema`). Docs carry the JSON Schema the AI SDK itself
 * derives (`asSchema(inputSchema).jsonSchema`); arguments are validated with
 * the schema's own validator, a failure being an `invalid_arguments` outcome
 * that runs nothing. Each session owns one `createState()` object, passed to
 * every `execute` as `context`.
 *
 * @example
 * ```ts
 * const environment = fromAiSdkTools(
 *   { add_note: tool({ inputSchema: z.object({ text: z.string() }),
 *       execute: ({ text }, { context }) => context.notes.push(text) }) },
 *   { createState: () => ({ notes: [] as string[] }) },
 * );
 * ```
 */
export function fromAiSdkTools<TState>(
  tools: Record<string, Tool>,
  {
    createState,
    snapshot = jsonCopy,
    environmentId = 'ai-sdk-tools',
    timeoutMs = defaultCallTimeoutMs,
    checker,
  }: FromAiSdkToolsOptions<TState>,
): EnvironmentV2 {
  const schemas = new Map(
    Object.entries(tools).map(([name, tool]) => [
      name,
      asSchema(tool.inputSchema as Parameters<typeof asSchema>[0]),
    ]),
  );
  let docs: Promise<ToolDocV2[]> | undefined;
  async function listDocs(state: TState): Promise<ToolDocV2[]> {
    const result: ToolDocV2[] = [];
    for (const [name, tool] of Object.entries(tools)) {
      const jsonSchema = (await schemas.get(name)!.jsonSchema) as Record<
        string,
        unknown
      >;
      const { $schema: _dialect, ...inputSchema } = jsonSchema;
      const description =
        typeof tool.description === 'function'
          ? tool.description({ context: state })
          : tool.description;
      result.push({
        name,
        ...(description === undefined ? {} : { description }),
        inputSchema: { ...inputSchema, type: 'object' },
      });
    }
    return result;
  }

  async function runCall({
    name,
    arguments_,
    state,
    abortSignal,
  }: {
    name: string;
    arguments_: Record<string, unknown>;
    state: TState;
    abortSignal: AbortSignal;
  }): Promise<ToolOutcomeV2> {
    const tool = tools[name]!;
    const schema = schemas.get(name)!;
    let input: unknown = arguments_;
    if (schema.validate === undefined) {
      const problem = checkJsonSchema({
        schema: await schema.jsonSchema,
        value: arguments_,
      });
      if (problem !== undefined) {
        const error = `invalid arguments for ${name}: ${problem}`;
        return {
          kind: 'invalid_arguments',
          ok: false,
          content: `Error: ${error}`,
          error,
        };
      }
    } else {
      const validation = await schema.validate(arguments_);
      if (!validation.success) {
        const error = `invalid arguments for ${name}: ${validation.error.message}`;
        return {
          kind: 'invalid_arguments',
          ok: false,
          content: `Error: ${error}`,
          error,
        };
      }
      input = validation.value;
    }
    if (tool.execute === undefined) {
      const error = `tool ${name} has no execute function`;
      return {
        kind: 'tool_error',
        ok: false,
        content: `Error: ${error}`,
        error,
      };
    }
    try {
      const value = await lastOf(
        await tool.execute(input, {
          toolCallId: `${name}-call`,
          messages: [],
          abortSignal,
          context: state,
        }),
      );
      return { kind: 'ok', ok: true, content: contentOf(value), value };
    } catch (thrown) {
      const error = errorText(thrown);
      return {
        kind: 'tool_error',
        ok: false,
        content: `Error: ${error}`,
        error,
      };
    }
  }

  return {
    specificationVersion: 'v2',
    environmentId,
    ...(checker === undefined ? {} : { checker }),
    openSession() {
      let state: TState;
      try {
        state = createState();
      } catch (thrown) {
        return Promise.reject(
          SealError.wrap({
            cause: thrown,
            code: 'INVALID_STATE',
            message: `environment ${environmentId}: createState threw (${errorText(thrown)})`,
          }),
        );
      }
      let closed = false;
      const session: EnvironmentV2Session = {
        listTools() {
          // Descriptions may depend on the state; cache only static ones.
          const dynamic = Object.values(tools).some(
            (tool) => typeof tool.description === 'function',
          );
          if (dynamic) return listDocs(state);
          docs ??= listDocs(state);
          return docs;
        },
        call({ name, arguments: arguments_ }) {
          if (closed) {
            return Promise.reject(
              new SealError({
                code: 'INVALID_STATE',
                message: `environment ${environmentId}: call on a closed session`,
              }),
            );
          }
          if (!Object.hasOwn(tools, name)) {
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
            run: (abortSignal) =>
              runCall({ name, arguments_, state, abortSignal }),
          });
        },
        snapshot: () => Promise.resolve(snapshot(state)),
        close() {
          closed = true;
          return Promise.resolve();
        },
      };
      return Promise.resolve(session);
    },
  };
}

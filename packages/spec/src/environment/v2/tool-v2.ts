import * as z from 'zod';
import type { ToolOutcomeV2 } from './tool-call-v2';

/**
 * A JSON Schema object (draft 2020-12 or draft-07), kept as data. Only
 * `type: 'object'` is required at the top of an input schema, as in MCP.
 */
export type JsonSchemaV2 = { [key: string]: unknown };

/**
 * A tool's description in MCP's `tools/list` shape: `name`, `description`,
 * and a JSON Schema `inputSchema` for the arguments object. Unknown keys
 * (`title`, `annotations`, `outputSchema`) are kept.
 */
export const toolDocV2Schema = z
  .object({
    /** The name the model calls it by. */
    name: z.string().min(1),
    /** What the tool does, for the model. */
    description: z.string().optional(),
    /** JSON Schema of the arguments object (`type: 'object'`). */
    inputSchema: z.object({ type: z.literal('object') }).catchall(z.unknown()),
  })
  .catchall(z.unknown());

/** See {@link toolDocV2Schema}. */
export type ToolDocV2 = z.infer<typeof toolDocV2Schema>;

/** What a tool's `execute` receives besides its arguments. */
export type ToolV2ExecuteOptions<TState> = {
  /** The session's own state object (one per session, never shared). */
  state: TState;
  /** Aborted when the call times out or the session closes. */
  abortSignal: AbortSignal;
};

/**
 * A tool: its MCP-shaped doc plus an async `execute`. Arguments reach
 * `execute` already validated against `inputSchema`. Returning a value is an
 * `ok` outcome; throwing is a `tool_error` outcome.
 */
export type ToolV2<TState = unknown> = ToolDocV2 & {
  execute(
    arguments_: Record<string, unknown>,
    options: ToolV2ExecuteOptions<TState>,
  ): PromiseLike<unknown>;
};

/** Re-exported for implementers that build outcomes by hand. */
export type { ToolOutcomeV2 };

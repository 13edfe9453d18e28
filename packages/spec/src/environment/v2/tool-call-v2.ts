import * as z from 'zod';

/**
 * One structured tool call, the form every v2 environment executes:
 * `{ name, arguments }` (MCP `tools/call` and the OpenAI tools protocol use
 * the same shape).
 */
export const toolCallV2Schema = z.object({
  /** The tool name. */
  name: z.string().min(1),
  /** The arguments as JSON values, keyed by parameter name. */
  arguments: z.record(z.string(), z.unknown()),
  /** The protocol's call id (OpenAI `tool_calls[i].id`), if any. */
  id: z.string().optional(),
  /**
   * The call in an environment's own text form when one exists (BFCL's
   * Python call text, which keeps `5.0` apart from `5`). Environments that
   * have no text form ignore it; the BFCL adapter prefers it.
   */
  callText: z.string().optional(),
});

/** See {@link toolCallV2Schema}. */
export type ToolCallV2 = z.infer<typeof toolCallV2Schema>;

/**
 * How one call ended:
 * - `ok`: the tool ran and returned;
 * - `tool_error`: the tool ran and failed (threw, or MCP `isError`);
 * - `invalid_arguments`: the arguments failed the tool's input schema, nothing ran;
 * - `unknown_tool`: no tool of that name is available (or it is withheld), nothing ran;
 * - `timeout`: the call did not finish within the session's per-call deadline.
 */
export const toolOutcomeKindV2Schema = z.enum([
  'ok',
  'tool_error',
  'invalid_arguments',
  'unknown_tool',
  'timeout',
]);

/** See {@link toolOutcomeKindV2Schema}. */
export type ToolOutcomeKindV2 = z.infer<typeof toolOutcomeKindV2Schema>;

/** The structured outcome of one call, as `session.call` returns it. */
export const toolOutcomeV2Schema = z.object({
  /** How the call ended. */
  kind: toolOutcomeKindV2Schema,
  /** `kind === 'ok'`. */
  ok: z.boolean(),
  /**
   * The result as the model will read it (text). For an error, the error
   * text. Result comparisons (the `results` check) compare this.
   */
  content: z.string(),
  /** The structured return value, when the tool returned one. */
  value: z.unknown().optional(),
  /**
   * The error the outcome signals, if any: a thrown error's message, a
   * validation message, or a soft error the tool returned (BFCL: an `error`
   * field of an `ok` result).
   */
  error: z.string().optional(),
});

/** See {@link toolOutcomeV2Schema}. */
export type ToolOutcomeV2 = z.infer<typeof toolOutcomeV2Schema>;

import * as z from 'zod';

/**
 * One tool call as a protocol parsed it from model output. `callText` is the
 * canonical Python form BFCL executes and checks (`name(k=repr(v), ...)`);
 * `arguments` are the same values as JSON, for display and wire formats
 * (JSON cannot keep `5.0` apart from `5`; `callText` does).
 */
export const toolCallSchema = z.object({
  /** The protocol's call id (OpenAI `tool_calls[i].id`), if any. */
  id: z.string().optional(),
  /** The tool (function) name. */
  name: z.string(),
  /** Arguments as JSON values. */
  arguments: z.record(z.string(), z.unknown()),
  /**
   * The arguments exactly as the model wrote them (OpenAI's JSON string), when
   * available; read with int/float preserved.
   */
  argumentsText: z.string().optional(),
  /** The call as Python source, e.g. `cd(folder='document')`. */
  callText: z.string(),
});

/** See {@link toolCallSchema}. */
export type ToolCall = z.infer<typeof toolCallSchema>;

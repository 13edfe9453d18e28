import * as z from 'zod';
import { toolCallSchema } from './tool-call';

/** A chat message as the environment and policies exchange them. */
export const chatMessageSchema = z.object({
  /** `system`, `user`, `assistant`, or `tool` (a tool result, OpenAI style). */
  role: z.enum(['system', 'user', 'assistant', 'tool']),
  /** The text content (may be empty for an assistant message with tool calls). */
  content: z.string(),
  /** Structured tool calls of an assistant message (OpenAI `tool_calls` protocol). */
  toolCalls: z.array(toolCallSchema).optional(),
  /** For a `tool` message: the id of the call it answers. */
  toolCallId: z.string().optional(),
  /** For a `tool` message: the tool name. */
  name: z.string().optional(),
});

/** See {@link chatMessageSchema}. */
export type ChatMessage = z.infer<typeof chatMessageSchema>;

import {
  parseWithSchema,
  type ChatMessage,
  type EnvServiceMessage,
  type EnvServiceStepMessage,
} from '@seal/spec';
import type * as z from 'zod';

/**
 * Validates one part of a request (`field` names it: `body`, `messages`,
 * `params`) with `@seal/spec`'s parser; throws INVALID_ARGUMENT whose message
 * names the first bad field by its dotted path (`field 'params.rollout_mode':
 * ...`), with the path in `details.path` and the ZodError as `cause`.
 */
export function parseRequestPart<T>({
  schema,
  value,
  field,
}: {
  schema: z.ZodType<T>;
  value: unknown;
  field: string;
}): T {
  return parseWithSchema({
    schema,
    value,
    code: 'INVALID_ARGUMENT',
    ...(field === 'body' ? { source: 'request body' } : { path: [field] }),
  });
}

/** Converts a `/step` message into the episode's chat message. */
export function fromStepMessage(message: EnvServiceStepMessage): ChatMessage {
  const toolCalls = (message.tool_calls ?? []).map((call) => {
    const raw = call.function.arguments;
    return {
      ...(call.id ? { id: call.id } : {}),
      name: call.function.name,
      arguments: typeof raw === 'object' && raw !== null ? raw : {},
      ...(typeof raw === 'string' ? { argumentsText: raw } : {}),
      // Empty: the protocol reads `argumentsText` or `arguments` instead.
      callText: '',
    };
  });
  return {
    role: 'assistant',
    content: message.content ?? '',
    ...(toolCalls.length > 0 ? { toolCalls } : {}),
  };
}

/** Converts an episode message into SEAL's wire shape. */
export function toWireMessage(message: ChatMessage): EnvServiceMessage {
  return {
    role: message.role,
    content: message.content,
    tool_calls: (message.toolCalls ?? []).map((call) => ({
      id: call.id,
      type: 'function',
      function: {
        name: call.name,
        arguments: call.argumentsText ?? JSON.stringify(call.arguments),
      },
    })),
    ...(message.toolCallId === undefined
      ? {}
      : { tool_call_id: message.toolCallId }),
    ...(message.name === undefined ? {} : { name: message.name }),
  };
}

/** SEAL's end-of-conversation observation. */
export const conversationCompleted = '[CONVERSATION_COMPLETED]';

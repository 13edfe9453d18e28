import { SealError, type ChatMessage } from '@seal/spec';
import * as z from 'zod';

/**
 * Validates one part of a request (`field` names it: `body`, `messages`,
 * `params`); throws INVALID_ARGUMENT whose message names the first bad
 * field by its dotted path (`field 'params.rollout_mode': ...`), with the
 * path in `details.path` and the ZodError as `cause`.
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
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  const issue = result.error.issues[0];
  const segments = (issue?.path ?? []).map(String);
  const path =
    field === 'body' ? segments.join('.') : [field, ...segments].join('.');
  const message = issue?.message ?? 'invalid value';
  throw new SealError({
    code: 'INVALID_ARGUMENT',
    message:
      path === '' ? `request body: ${message}` : `field '${path}': ${message}`,
    cause: result.error,
    details: { path },
  });
}

/**
 * The body of every POST (SEAL §7.2): `{env_type, task_id?, instance_id?,
 * messages, params}`. Fields a client leaves out or sends as `null` are
 * absent; unknown top-level fields are ignored, as SEAL's pydantic model
 * ignores them.
 */
export const serviceRequestSchema = z.object({
  /** Only `bfcl`; absent means `bfcl` (SEAL's default). */
  env_type: z.string().nullish(),
  task_id: z.string().min(1, 'must not be empty').max(256).nullish(),
  /** Client-generated (SEAL sends a UUID); printable, at most 256 characters. */
  instance_id: z
    .string()
    .min(1, 'must not be empty')
    .max(256, 'must be at most 256 characters')
    .regex(/^[\x21-\x7e]+$/, 'must be printable ASCII without spaces')
    .nullish(),
  /** Endpoint-specific (`/step`: the assistant message). */
  messages: z.unknown().optional(),
  params: z.record(z.string(), z.unknown()).nullish(),
});

/** A parsed request body (see {@link serviceRequestSchema}). */
export type ServiceRequest = z.infer<typeof serviceRequestSchema>;

/** One OpenAI-style tool call of a `/step` message (`openai-tools` protocol). */
const openAiToolCallSchema = z.object({
  id: z.string().nullish(),
  type: z.string().nullish(),
  function: z.object({
    name: z.string(),
    /** A JSON string (OpenAI, vLLM) or an object. */
    arguments: z
      .union([z.string(), z.record(z.string(), z.unknown())])
      .nullish(),
  }),
});

/**
 * `/step`'s `messages`: `{role: 'assistant', content: <raw model text>}`.
 * `content` is required (a string, or `null` beside `tool_calls`); `role`
 * may be left out; `tool_calls` is read by the `openai-tools` protocol only.
 */
export const stepMessageSchema = z
  .object({
    role: z.literal('assistant', { error: "must be 'assistant'" }).nullish(),
    content: z.string({ error: 'is required (the raw model text)' }).nullable(),
    tool_calls: z.array(openAiToolCallSchema).nullish(),
  })
  .refine(
    (message) =>
      message.content !== null || (message.tool_calls?.length ?? 0) > 0,
    {
      message: 'must be a string unless tool_calls are given',
      path: ['content'],
    },
  );

/** See {@link stepMessageSchema}. */
export type StepMessage = z.infer<typeof stepMessageSchema>;

/** `/step`'s own params (ours): token usage of the model call, for `/evaluate`'s token fields. */
export const stepParamsSchema = z.object({
  usage: z
    .object({
      prompt_tokens: z.number().int().nonnegative().nullish(),
      completion_tokens: z.number().int().nonnegative().nullish(),
    })
    .nullish(),
});

/** Converts a `/step` message into the episode's chat message. */
export function fromStepMessage(message: StepMessage): ChatMessage {
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

/** A message as SEAL's service returns it: `{role, content, tool_calls: []}`. */
export type WireMessage = {
  role: string;
  content: string;
  tool_calls: unknown[];
  tool_call_id?: string;
  name?: string;
};

/** Converts an episode message into SEAL's wire shape. */
export function toWireMessage(message: ChatMessage): WireMessage {
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

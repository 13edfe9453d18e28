import {
  parseJsonText,
  promptModeSchema,
  type ChatMessage,
  type ChatModelV1FinishReason,
  type ChatModelV1Request,
  type ChatModelV1Result,
  type ChatModelV1ToolDefinition,
  type ToolCall,
} from '@seal/spec';
import * as z from 'zod';

/**
 * OpenAI's chat-completions wire format: the fields this project reads and
 * writes, and the conversions to and from the message-level contract of
 * `@seal/spec` (`ChatModelV1Request`, `ChatModelV1Result`). Server and
 * client share them, so a request survives the trip unchanged.
 */

const textPartSchema = z.object({ type: z.literal('text'), text: z.string() });

/** Message content: a string, or a list of text parts (other parts are refused). */
const contentSchema = z.union([z.string(), z.array(textPartSchema)]);

const wireToolCallSchema = z.object({
  id: z.string().nullish(),
  type: z.literal('function').nullish(),
  function: z.object({
    name: z.string().min(1),
    /** The arguments as a JSON object in a string (OpenAI); an object is accepted too. */
    arguments: z
      .union([z.string(), z.record(z.string(), z.unknown())])
      .nullish(),
  }),
});

/** One message of a chat-completions request. */
export const openAiMessageSchema = z.discriminatedUnion('role', [
  z.object({ role: z.literal('system'), content: contentSchema }),
  // Newer clients send the system prompt as `developer`.
  z.object({ role: z.literal('developer'), content: contentSchema }),
  z.object({
    role: z.literal('user'),
    content: contentSchema,
    name: z.string().nullish(),
  }),
  z.object({
    role: z.literal('assistant'),
    content: contentSchema.nullish(),
    tool_calls: z.array(wireToolCallSchema).nullish(),
  }),
  z.object({
    role: z.literal('tool'),
    content: contentSchema,
    tool_call_id: z.string().nullish(),
    name: z.string().nullish(),
  }),
]);

/** One tool of a chat-completions request (`{type: 'function', function}`). */
export const openAiToolSchema = z.object({
  type: z.literal('function'),
  function: z.looseObject({
    name: z.string().min(1),
    description: z.string().nullish(),
    parameters: z.record(z.string(), z.unknown()).nullish(),
  }),
});

/**
 * A chat-completions request body: the fields we honour. Unknown fields are
 * ignored (clients send many); values we cannot honour (`stream: true`,
 * `n > 1`) are refused by {@link fromOpenAiRequest}.
 */
export const openAiChatRequestSchema = z.object({
  model: z.string().nullish(),
  messages: z.array(openAiMessageSchema).min(1),
  tools: z.array(openAiToolSchema).nullish(),
  tool_choice: z
    .union([
      z.enum(['none', 'auto', 'required']),
      z.object({
        type: z.literal('function'),
        function: z.object({ name: z.string() }),
      }),
    ])
    .nullish(),
  temperature: z.number().min(0).max(2).nullish(),
  top_p: z.number().gt(0).max(1).nullish(),
  max_tokens: z.number().int().positive().nullish(),
  max_completion_tokens: z.number().int().positive().nullish(),
  seed: z.number().int().nullish(),
  stop: z
    .union([z.string().min(1), z.array(z.string().min(1)).max(4)])
    .nullish(),
  n: z.number().int().positive().nullish(),
  stream: z.boolean().nullish(),
});

/** See {@link openAiChatRequestSchema}. */
export type OpenAiChatRequest = z.infer<typeof openAiChatRequestSchema>;
/** One message of an {@link OpenAiChatRequest}. */
export type OpenAiMessage = z.infer<typeof openAiMessageSchema>;

/** A tool call in a chat-completions response. */
export type OpenAiToolCall = {
  id: string;
  type: 'function';
  function: { name: string; arguments: string };
};

/** A chat-completions response body. */
export type OpenAiChatResponse = {
  id: string;
  object: 'chat.completion';
  created: number;
  model: string;
  system_fingerprint?: string;
  choices: {
    index: number;
    message: {
      role: 'assistant';
      content: string | null;
      tool_calls?: OpenAiToolCall[];
    };
    finish_reason: ChatModelV1FinishReason;
    logprobs: null;
  }[];
  usage: {
    prompt_tokens: number;
    completion_tokens: number;
    total_tokens: number;
  };
};

/** A chat-completions response as a client reads it (only the fields used). */
export const openAiChatResponseSchema = z.object({
  choices: z
    .array(
      z.object({
        message: z.object({
          content: z.string().nullish(),
          tool_calls: z.array(wireToolCallSchema).nullish(),
        }),
        finish_reason: z.string().nullish(),
      }),
    )
    .min(1),
  usage: z
    .object({
      prompt_tokens: z.number().nullish(),
      completion_tokens: z.number().nullish(),
    })
    .nullish(),
});

/** `GET /v1/models` as a client reads it, with this project's `seal` hints. */
export const openAiModelListSchema = z.object({
  data: z.array(
    z.object({
      id: z.string(),
      seal: z
        .object({
          protocol: z.string().nullish(),
          promptMode: promptModeSchema.nullish(),
          maxSequenceLength: z.number().nullish(),
          evalDefaults: z.unknown().optional(),
        })
        .nullish(),
    }),
  ),
});

function text(
  content: z.infer<typeof contentSchema> | null | undefined,
): string {
  if (content === null || content === undefined) return '';
  return typeof content === 'string'
    ? content
    : content.map((part) => part.text).join('');
}

function fromWireToolCall(
  call: z.infer<typeof wireToolCallSchema>,
  index: number,
): ToolCall {
  const raw = call.function.arguments;
  const argumentsText =
    raw === null || raw === undefined
      ? '{}'
      : typeof raw === 'string'
        ? raw
        : JSON.stringify(raw);
  let parsed: unknown = {};
  try {
    parsed = parseJsonText({ text: argumentsText });
  } catch {
    // Kept as text: the environment reports malformed arguments to the model.
  }
  return {
    id: call.id ?? `call_${index}`,
    name: call.function.name,
    arguments:
      typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed)
        ? (parsed as Record<string, unknown>)
        : {},
    argumentsText,
    // The environment derives the Python call text from `argumentsText`.
    callText: '',
  };
}

/** Wire messages as the environment's chat messages (`developer` becomes `system`). */
export function fromOpenAiMessages(
  messages: readonly OpenAiMessage[],
): ChatMessage[] {
  return messages.map((message): ChatMessage => {
    switch (message.role) {
      case 'system':
      case 'developer':
        return { role: 'system', content: text(message.content) };
      case 'user':
        return { role: 'user', content: text(message.content) };
      case 'assistant': {
        const calls = message.tool_calls ?? [];
        return {
          role: 'assistant',
          content: text(message.content),
          ...(calls.length === 0
            ? {}
            : { toolCalls: calls.map(fromWireToolCall) }),
        };
      }
      case 'tool':
        return {
          role: 'tool',
          content: text(message.content),
          ...(message.tool_call_id ? { toolCallId: message.tool_call_id } : {}),
          ...(message.name ? { name: message.name } : {}),
        };
    }
  });
}

function toWireToolCall(call: ToolCall, index: number): OpenAiToolCall {
  return {
    id: call.id ?? `call_${index}`,
    type: 'function',
    function: {
      name: call.name,
      arguments: call.argumentsText ?? JSON.stringify(call.arguments),
    },
  };
}

/** The environment's chat messages on the wire. */
export function toOpenAiMessages(
  messages: readonly ChatMessage[],
): Record<string, unknown>[] {
  return messages.map((message) => {
    switch (message.role) {
      case 'assistant': {
        const calls = message.toolCalls ?? [];
        if (calls.length === 0)
          return { role: 'assistant', content: message.content };
        return {
          role: 'assistant',
          content: message.content === '' ? null : message.content,
          tool_calls: calls.map(toWireToolCall),
        };
      }
      case 'tool':
        return {
          role: 'tool',
          content: message.content,
          tool_call_id: message.toolCallId ?? '',
        };
      default:
        return { role: message.role, content: message.content };
    }
  });
}

/** A contract request as a wire body for `model`. */
export function toOpenAiRequest({
  request,
  model,
}: {
  request: ChatModelV1Request;
  model: string;
}): Record<string, unknown> {
  return {
    model,
    messages: toOpenAiMessages(request.messages),
    ...(request.tools === undefined || request.tools.length === 0
      ? {}
      : { tools: request.tools, tool_choice: 'auto' }),
    max_tokens: request.maxTokens,
    temperature: request.temperature,
    ...(request.topP === undefined ? {} : { top_p: request.topP }),
    ...(request.seed === undefined ? {} : { seed: request.seed }),
    ...(request.stop === undefined || request.stop.length === 0
      ? {}
      : { stop: [...request.stop] }),
    stream: false,
  };
}

/** A parsed wire request as the contract's request, plus what only the transport reads. */
export type ParsedOpenAiRequest = {
  /** The request, without `maxTokens` when the body gave none (the model's room decides). */
  request: Omit<ChatModelV1Request, 'maxTokens'> & { maxTokens?: number };
  /** The `model` field, if any. */
  model?: string;
  /** `none` turns tool-call parsing off; anything else means `auto`. */
  toolChoice: 'none' | 'auto';
  /** Settings that cannot be honoured (`stream`, `n`); the server refuses the request. */
  unsupported: string[];
};

/**
 * A validated wire body as the contract's request. `temperature` defaults to
 * 1 and `top_p` to 1, as OpenAI's do; `max_completion_tokens` wins over
 * `max_tokens`.
 */
export function fromOpenAiRequest(
  body: OpenAiChatRequest,
): ParsedOpenAiRequest {
  const unsupported: string[] = [];
  if (body.stream === true)
    unsupported.push('stream: true (streaming is not supported)');
  if (body.n !== null && body.n !== undefined && body.n !== 1) {
    unsupported.push(`n: ${body.n} (one choice per request)`);
  }
  const maxTokens = body.max_completion_tokens ?? body.max_tokens ?? undefined;
  const stop =
    body.stop === null || body.stop === undefined
      ? undefined
      : typeof body.stop === 'string'
        ? [body.stop]
        : body.stop;
  const tools = body.tools ?? [];
  return {
    request: {
      messages: fromOpenAiMessages(body.messages),
      ...(tools.length === 0
        ? {}
        : { tools: tools as ChatModelV1ToolDefinition[] }),
      ...(maxTokens === undefined ? {} : { maxTokens }),
      temperature: body.temperature ?? 1,
      ...(body.top_p === null || body.top_p === undefined
        ? {}
        : { topP: body.top_p }),
      ...(body.seed === null || body.seed === undefined
        ? {}
        : { seed: body.seed }),
      ...(stop === undefined ? {} : { stop }),
    },
    ...(body.model ? { model: body.model } : {}),
    toolChoice: body.tool_choice === 'none' ? 'none' : 'auto',
    unsupported,
  };
}

/** A contract result as a wire response. */
export function toOpenAiResponse({
  result,
  id,
  model,
  created,
  fingerprint,
}: {
  result: ChatModelV1Result;
  id: string;
  model: string;
  created: number;
  fingerprint?: string;
}): OpenAiChatResponse {
  const calls = result.message.toolCalls ?? [];
  return {
    id,
    object: 'chat.completion',
    created,
    model,
    ...(fingerprint === undefined ? {} : { system_fingerprint: fingerprint }),
    choices: [
      {
        index: 0,
        message: {
          role: 'assistant',
          content:
            calls.length > 0 && result.message.content === ''
              ? null
              : result.message.content,
          ...(calls.length === 0
            ? {}
            : { tool_calls: calls.map(toWireToolCall) }),
        },
        finish_reason: result.finishReason,
        logprobs: null,
      },
    ],
    usage: {
      prompt_tokens: result.usage.promptTokens,
      completion_tokens: result.usage.completionTokens,
      total_tokens: result.usage.promptTokens + result.usage.completionTokens,
    },
  };
}

/** A parsed wire response as the contract's result. */
export function fromOpenAiResponse(
  body: z.infer<typeof openAiChatResponseSchema>,
): ChatModelV1Result {
  const choice = body.choices[0]!;
  const calls = choice.message.tool_calls ?? [];
  const finish = choice.finish_reason;
  return {
    message: {
      role: 'assistant',
      content: choice.message.content ?? '',
      ...(calls.length === 0 ? {} : { toolCalls: calls.map(fromWireToolCall) }),
    },
    finishReason:
      finish === 'length' ? 'length' : calls.length > 0 ? 'tool_calls' : 'stop',
    usage: {
      promptTokens: body.usage?.prompt_tokens ?? 0,
      completionTokens: body.usage?.completion_tokens ?? 0,
    },
  };
}

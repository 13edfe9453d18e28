import {
  createOpenAiToolsProtocol,
  createProtocol,
  toToolCall,
  toWireToolCall,
  type CallResult,
  type PromptMode,
  type ProtocolName,
  type ToolCallProtocol,
} from '@seal/env';
import {
  SealError,
  type ChatMessage,
  type ChatModelV1,
  type ChatModelV1CompleteOptions,
  type ChatModelV1Request,
  type ChatModelV1Result,
  type ChatModelV1ToolDefinition,
  type PolicyV1,
  type PolicyV1ChatMessage,
  type PolicyV1Generation,
  type ToolCall,
  type ToolDoc,
  type ToolParameter,
} from '@seal/spec';
import { contextLengthExceededError } from './context-length-exceeded';

/** Settings of {@link createPolicyChatModel}. */
export type PolicyChatModelSettings = {
  /** The policy (e.g. `createOrtPolicy` on a checkpoint directory). The caller closes it. */
  policy: PolicyV1;
  /**
   * The tool-call protocol the model speaks: it renders `tools` into the
   * system prompt, assistant `tool_calls` and `tool` results into text, and
   * parses replies into `tool_calls`. Default `bfcl-python` (the embedded
   * models).
   */
  protocol?: ProtocolName | ToolCallProtocol;
  /** How `tools` are rendered into the system prompt. Default `compact` (the embedded models). */
  promptMode?: PromptMode;
  /**
   * Most greedy requests decoded in one `generate` call (requests that wait
   * while the policy is busy are batched). Default 8; 1 turns batching off,
   * which makes every reply bit-identical to the same request sent alone.
   */
  maxBatch?: number;
  /** Requests waiting at most; more are refused with a retryable `BACKEND_UNAVAILABLE`. Default 1024. */
  maxQueue?: number;
  /** The model id. Default the policy id. */
  modelId?: string;
};

/** A request to a {@link PolicyChatModel}: `maxTokens` may be left to the room in the context. */
export type PolicyChatRequest = Omit<ChatModelV1Request, 'maxTokens'> & {
  maxTokens?: number;
};

/** A {@link ChatModelV1} over a local policy (see {@link createPolicyChatModel}). */
export type PolicyChatModel = Omit<ChatModelV1, 'complete'> & {
  /** The protocol the model speaks. */
  readonly protocolName: string;
  readonly promptMode: PromptMode;
  /** The policy's context length (prompt plus reply). */
  readonly maxSequenceLength: number;
  /**
   * Completes a conversation; `toolChoice: 'none'` returns the reply as text
   * even when tools were given.
   */
  complete(
    request: PolicyChatRequest,
    options?: ChatModelV1CompleteOptions & { toolChoice?: 'none' | 'auto' },
  ): Promise<ChatModelV1Result>;
  /** The prompt tokens of a request, as the model will see them. */
  render(request: PolicyChatRequest): { text: string; tokenIds: number[] };
};

const jsonSchemaToBfclType: Record<string, string> = {
  object: 'dict',
  number: 'float',
};

function toBfclParameter(schema: Record<string, unknown>): ToolParameter {
  const type = typeof schema['type'] === 'string' ? schema['type'] : 'any';
  const out: ToolParameter = { type: jsonSchemaToBfclType[type] ?? type };
  if (typeof schema['description'] === 'string')
    out.description = schema['description'];
  if (Array.isArray(schema['enum'])) out.enum = schema['enum'];
  if ('default' in schema) out.default = schema['default'];
  const items = schema['items'];
  if (typeof items === 'object' && items !== null && !Array.isArray(items)) {
    out.items = toBfclParameter(items as Record<string, unknown>);
  }
  const properties = schema['properties'];
  if (typeof properties === 'object' && properties !== null) {
    out.properties = Object.fromEntries(
      Object.entries(properties as Record<string, Record<string, unknown>>).map(
        ([name, value]) => [name, toBfclParameter(value)],
      ),
    );
  }
  if (Array.isArray(schema['required'])) {
    out.required = schema['required'].filter(
      (name): name is string => typeof name === 'string',
    );
  }
  return out;
}

/** An OpenAI tool as a BFCL-dialect tool doc (the inverse of `toOpenAiTool`). */
export function fromOpenAiTool(tool: ChatModelV1ToolDefinition): ToolDoc {
  const fn = tool.function;
  const parameters = toBfclParameter(
    (typeof fn['parameters'] === 'object' && fn['parameters'] !== null
      ? fn['parameters']
      : {}) as Record<string, unknown>,
  );
  return {
    name: String(fn['name']),
    description: typeof fn['description'] === 'string' ? fn['description'] : '',
    parameters: {
      type: 'dict',
      properties: parameters.properties ?? {},
      required: parameters.required ?? [],
    },
  };
}

/** FNV-1a, for deterministic tool-call ids. */
function hashText(text: string): string {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h.toString(16).padStart(8, '0');
}

const openAiTools = createOpenAiToolsProtocol();

/** Assistant tool calls with their Python call text (re-derived from the arguments). */
function withCallText(calls: readonly ToolCall[]): ToolCall[] {
  return calls.map((call) => {
    const parsed = openAiTools.parse({
      role: 'assistant',
      content: '',
      toolCalls: [{ ...call, callText: '' }],
    });
    if (parsed.kind === 'calls' && parsed.calls[0] !== undefined) {
      return {
        ...toToolCall(parsed.calls[0]),
        ...(call.id ? { id: call.id } : {}),
      };
    }
    return { ...call, callText: `${call.name}()` };
  });
}

/**
 * The conversation as the model's text: tools into the system prompt, tool
 * calls and tool results into the protocol's text. A conversation without
 * tools, tool calls or tool messages (prompting mode) passes unchanged.
 */
export function renderForModel({
  messages,
  tools,
  protocol,
  promptMode,
}: {
  messages: readonly ChatMessage[];
  tools?: readonly ChatModelV1ToolDefinition[];
  protocol: ToolCallProtocol;
  promptMode: PromptMode;
}): PolicyV1ChatMessage[] {
  const out: PolicyV1ChatMessage[] = [];
  const toolSection =
    tools !== undefined && tools.length > 0
      ? protocol.renderSystemPrompt({
          tools: tools.map(fromOpenAiTool),
          mode: promptMode,
          notes: [],
        })
      : undefined;
  const callsById = new Map<string, ToolCall>();
  let pendingResults: { message: ChatMessage; index: number }[] = [];
  const flushResults = (): void => {
    if (pendingResults.length === 0) return;
    const results: CallResult[] = pendingResults.map(({ message, index }) => {
      const call =
        (message.toolCallId === undefined
          ? undefined
          : callsById.get(message.toolCallId)) ??
        [...callsById.values()][index];
      const name = message.name ?? call?.name ?? 'tool';
      return {
        call: call ?? { name, arguments: {}, callText: `${name}()` },
        result: message.content,
      };
    });
    for (const rendered of protocol.renderResults(results)) {
      out.push({ role: rendered.role, content: rendered.content });
    }
    pendingResults = [];
  };
  messages.forEach((message, position) => {
    if (message.role !== 'tool') flushResults();
    if (
      message.role === 'system' &&
      position === 0 &&
      toolSection !== undefined
    ) {
      out.push({
        role: 'system',
        content: [toolSection, message.content]
          .filter((part) => part !== '')
          .join('\n\n'),
      });
    } else if (
      message.role === 'assistant' &&
      (message.toolCalls?.length ?? 0) > 0
    ) {
      const calls = withCallText(message.toolCalls!);
      callsById.clear();
      calls.forEach((call, index) =>
        callsById.set(call.id ?? `call_${index}`, call),
      );
      const rendered = protocol.renderCalls({
        calls,
        content: message.content,
      });
      out.push({ role: 'assistant', content: rendered.content });
    } else if (message.role === 'tool') {
      pendingResults.push({ message, index: pendingResults.length });
    } else {
      out.push({ role: message.role, content: message.content });
    }
  });
  flushResults();
  if (toolSection !== undefined && messages[0]?.role !== 'system') {
    out.unshift({ role: 'system', content: toolSection });
  }
  return out;
}

type Pending = {
  prompt: number[];
  maxTokens: number;
  temperature: number;
  topP: number | undefined;
  seed: number;
  stop: readonly string[];
  /** Requests with the same key may share a `generate` call (greedy ones only). */
  batchKey: string | undefined;
  resolve: (generation: PolicyV1Generation) => void;
  reject: (error: unknown) => void;
};

/**
 * A {@link ChatModelV1} over a local {@link PolicyV1}: the messages
 * are turned into the model's text with its tool-call protocol
 * ({@link renderForModel}), rendered with the policy's chat template, and
 * generated; a reply is decoded without its stop token, cut at the first
 * `stop` string, and, when the request offered tools, parsed into
 * `tool_calls`. Greedy requests that arrive while the policy is busy are
 * decoded together (up to `maxBatch`); sampled requests run alone, so each
 * honours its own seed exactly. A prompt whose tokens plus `maxTokens` do
 * not fit the context is refused with a context-length error. This is the
 * engine of `seal serve-policy`, and of `seal eval --model` in process, so
 * both produce the same replies for the same requests.
 */
export function createPolicyChatModel(
  settings: PolicyChatModelSettings,
): PolicyChatModel {
  const { policy } = settings;
  const tokenizer = policy.tokenizer;
  const protocol =
    typeof settings.protocol === 'object'
      ? settings.protocol
      : createProtocol(settings.protocol ?? 'bfcl-python');
  const promptMode = settings.promptMode ?? 'compact';
  const maxBatch = Math.max(1, Math.floor(settings.maxBatch ?? 8));
  const maxQueue = settings.maxQueue ?? 1024;
  const stopIds = new Set(tokenizer.stopTokenIds);
  const queue: Pending[] = [];
  let running = false;

  const pump = (): void => {
    if (running || queue.length === 0) return;
    const first = queue.shift()!;
    const batch = [first];
    if (first.batchKey !== undefined) {
      for (let i = 0; i < queue.length && batch.length < maxBatch;) {
        if (queue[i]!.batchKey === first.batchKey)
          batch.push(queue.splice(i, 1)[0]!);
        else i++;
      }
    }
    running = true;
    Promise.resolve(
      policy.generate({
        prompts: batch.map((item) => item.prompt),
        maxTokens: first.maxTokens,
        temperature: first.temperature,
        ...(first.topP === undefined ? {} : { topP: first.topP }),
        ...(first.stop.length === 0 ? {} : { stopStrings: [...first.stop] }),
        seed: first.seed,
      }),
    )
      .then(
        (result) =>
          batch.forEach((item, i) => item.resolve(result.generations[i]!)),
        (error: unknown) => batch.forEach((item) => item.reject(error)),
      )
      .finally(() => {
        running = false;
        pump();
      });
  };

  const render = (
    request: PolicyChatRequest,
  ): { text: string; tokenIds: number[] } => {
    const messages = renderForModel({
      messages: request.messages,
      ...(request.tools === undefined ? {} : { tools: request.tools }),
      protocol,
      promptMode,
    });
    return tokenizer.renderChat({ messages, addGenerationPrompt: true });
  };

  return {
    specificationVersion: 'v1',
    modelId: settings.modelId ?? policy.policyId,
    protocolName: protocol.name,
    promptMode,
    maxSequenceLength: policy.maxSequenceLength,
    render,
    async complete(request, options = {}) {
      const prompt = render(request).tokenIds;
      const room = policy.maxSequenceLength - prompt.length;
      const maxTokens = request.maxTokens ?? room;
      if (maxTokens < 1 || maxTokens > room) {
        throw contextLengthExceededError({
          promptTokens: prompt.length,
          maxTokens,
          contextLength: policy.maxSequenceLength,
        });
      }
      if (queue.length >= maxQueue) {
        throw new SealError({
          code: 'BACKEND_UNAVAILABLE',
          message: `too many requests waiting (${queue.length}); retry later`,
          isRetryable: true,
        });
      }
      const stop = request.stop ?? [];
      const greedy = request.temperature === 0;
      const generation = await new Promise<PolicyV1Generation>(
        (resolve, reject) => {
          queue.push({
            prompt,
            maxTokens,
            temperature: request.temperature,
            topP: request.topP,
            seed: request.seed ?? Math.floor(Math.random() * 2 ** 31),
            stop,
            batchKey: greedy ? JSON.stringify([maxTokens, stop]) : undefined,
            resolve,
            reject,
          });
          pump();
        },
      );
      const tokens = generation.tokenIds;
      const endsWithStop =
        tokens.length > 0 && stopIds.has(tokens[tokens.length - 1]!);
      let text = tokenizer.decode(endsWithStop ? tokens.slice(0, -1) : tokens);
      let stopped = endsWithStop;
      // OpenAI's stop strings end the reply and are not part of it.
      const cut = Math.min(
        ...stop.map((s) => text.indexOf(s)).filter((index) => index >= 0),
      );
      if (Number.isFinite(cut)) {
        text = text.slice(0, cut);
        stopped = true;
      }
      const usage = {
        promptTokens: prompt.length,
        completionTokens: tokens.length,
      };
      const finishReason =
        stopped || generation.finishReason === 'stop' ? 'stop' : 'length';
      const tools = request.tools ?? [];
      if (tools.length > 0 && options.toolChoice !== 'none') {
        const parsed = protocol.parse(text);
        if (parsed.kind === 'calls') {
          const id = hashText(`${prompt.length}:${text}`);
          return {
            message: {
              role: 'assistant',
              content: parsed.content,
              toolCalls: parsed.calls.map((call, index) =>
                toWireToolCall({ call, id: `call_${id}_${index}` }),
              ),
            },
            finishReason: 'tool_calls',
            usage,
          };
        }
      }
      return {
        message: { role: 'assistant', content: text },
        finishReason,
        usage,
      };
    },
  };
}

import { PyDict, formatCall, toJsonValue, type PyValue } from '@seal/python';
import type {
  ChatMessage,
  PromptMode as SpecPromptMode,
  ToolCall,
  ToolDoc,
} from '@seal/spec';

/**
 * How tool docs are rendered into prompts (`@seal/spec`'s `promptModeSchema`):
 * `full`, BFCL's JSON docs (what real models are prompted with), or `compact`,
 * one line per tool with its signature and first sentence (for small models).
 */
export type PromptMode = SpecPromptMode;

/** A call as a protocol decoded it, before the availability check. */
export type DecodedCall = {
  /** The function name. */
  name: string;
  /** Positional arguments (protocols that allow them). */
  args: PyValue[];
  /** Keyword arguments in order. */
  kwargs: [string, PyValue][];
  /** The protocol's call id, if any (OpenAI). */
  id?: string;
};

/** What a protocol made of one assistant response. */
export type ProtocolParseResult =
  /** Tool calls (at least one). `content` is any text outside the calls. */
  | { kind: 'calls'; calls: DecodedCall[]; content: string }
  /** A reply without calls: it ends the user turn. */
  | { kind: 'reply'; content: string }
  /** Malformed output; `message` explains it to the model. */
  | { kind: 'error'; message: string };

/** One executed call and its result, for rendering the observation. */
export type CallResult = { call: ToolCall; result: string };

/**
 * A tool-call protocol: how tools are described to the model, how its output
 * is parsed into calls, and how results and errors are shown back. Parsing
 * never evaluates model output and never throws.
 */
export type ToolCallProtocol = {
  /** Stable name (`qwen-xml`, `bfcl-python`, `openai-tools`, `envtuning`). */
  readonly name: string;
  /** Whether tool docs travel in a separate `tools` field instead of the system prompt (OpenAI). */
  readonly toolsOutOfBand: boolean;
  /** The system prompt: tool docs in the given mode, then `notes` as paragraphs. */
  renderSystemPrompt(options: {
    tools: ToolDoc[];
    mode: PromptMode;
    notes: string[];
  }): string;
  /** Parses one assistant response. */
  parse(response: string | ChatMessage): ProtocolParseResult;
  /** The observation for executed calls. */
  renderResults(results: CallResult[]): ChatMessage[];
  /** The observation for an error (parse error or rejected calls). */
  renderError(message: string): ChatMessage[];
  /** The user message of a holdout turn that reveals `tools`. */
  renderHoldout(options: { tools: ToolDoc[]; mode: PromptMode }): string;
  /** An assistant message that makes these calls (demonstrations, round trips). */
  renderCalls(options: { calls: ToolCall[]; content?: string }): ChatMessage;
  /** An assistant message that replies without calls. */
  renderReply(content: string): ChatMessage;
};

/** BFCL's standard holdout-turn sentence (`base_handler.py`). */
export const holdoutSentence =
  'I have updated some more functions you can choose from. What about now?';

/** Turns a decoded call into the spec's ToolCall (canonical Python call text). */
export function toToolCall(call: DecodedCall): ToolCall {
  return {
    ...(call.id === undefined ? {} : { id: call.id }),
    name: call.name,
    arguments: toJsonValue(new PyDict(call.kwargs)) as Record<string, unknown>,
    callText: formatCall({
      name: call.name,
      args: call.args,
      kwargs: call.kwargs,
    }),
  };
}

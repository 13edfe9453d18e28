import {
  parseCallString,
  parsePyJson,
  PyDict,
  type PyValue,
} from '@seal/python';
import type { ChatMessage } from '@seal/spec';
import {
  holdoutSentence,
  type DecodedCall,
  type ProtocolParseResult,
  type ToolCallProtocol,
} from './tool-call-protocol';

function fromPlain(value: unknown): PyValue {
  if (value === null || value === undefined) return null;
  if (typeof value === 'number')
    return Number.isInteger(value) ? BigInt(value) : value;
  if (typeof value === 'string' || typeof value === 'boolean') return value;
  if (Array.isArray(value)) return value.map(fromPlain);
  return new PyDict(
    Object.entries(value as Record<string, unknown>).map(([k, v]) => [
      k,
      fromPlain(v),
    ]),
  );
}

/**
 * OpenAI function calling: tools travel in the request's `tools` field, the
 * model answers with `tool_calls`, each result returns as a `tool` message
 * with its call id. A call's arguments come from its `callText` when present
 * (re-parsed strictly; keeps `5.0` apart from `5`), else from the JSON
 * `arguments` (a raw JSON string is parsed with int/float preserved).
 */
export function createOpenAiToolsProtocol(): ToolCallProtocol {
  return {
    name: 'openai-tools',
    toolsOutOfBand: true,
    renderSystemPrompt({ notes }) {
      return notes.join('\n\n');
    },
    parse(response): ProtocolParseResult {
      if (typeof response === 'string')
        return { kind: 'reply', content: response };
      const toolCalls = response.toolCalls ?? [];
      if (toolCalls.length === 0)
        return { kind: 'reply', content: response.content };
      const calls: DecodedCall[] = [];
      for (const [index, call] of toolCalls.entries()) {
        if (typeof call.name !== 'string' || call.name === '') {
          return {
            kind: 'error',
            message: `tool call ${index + 1} has no function name`,
          };
        }
        let kwargs: [string, PyValue][];
        if (call.callText) {
          const parsed = parseCallString(call.callText);
          if (
            !parsed.success ||
            parsed.value.name !== call.name ||
            parsed.value.args.length > 0
          ) {
            return {
              kind: 'error',
              message: `tool call ${index + 1} (${call.name}) has malformed arguments`,
            };
          }
          kwargs = parsed.value.kwargs;
        } else {
          let args: unknown = call.arguments;
          const raw = call.argumentsText;
          if (typeof raw === 'string') {
            try {
              const value = parsePyJson(raw);
              if (!(value instanceof PyDict)) throw new Error('not an object');
              kwargs = [...value].map(([k, v]) => [String(k), v]);
              calls.push({
                name: call.name,
                args: [],
                kwargs,
                ...(call.id ? { id: call.id } : {}),
              });
              continue;
            } catch {
              return {
                kind: 'error',
                message: `arguments of ${call.name} are not a JSON object`,
              };
            }
          }
          if (
            typeof args !== 'object' ||
            args === null ||
            Array.isArray(args)
          ) {
            return {
              kind: 'error',
              message: `arguments of ${call.name} must be a JSON object`,
            };
          }
          args = args as Record<string, unknown>;
          kwargs = Object.entries(args as Record<string, unknown>).map(
            ([k, v]) => [k, fromPlain(v)],
          );
        }
        calls.push({
          name: call.name,
          args: [],
          kwargs,
          ...(call.id ? { id: call.id } : {}),
        });
      }
      return { kind: 'calls', calls, content: response.content };
    },
    renderResults(results) {
      return results.map(({ call, result }, index) => ({
        role: 'tool' as const,
        content: result,
        toolCallId: call.id ?? `call_${index}`,
        name: call.name,
      }));
    },
    renderError(message) {
      return [{ role: 'user', content: `[ERROR] ${message}` }];
    },
    renderHoldout() {
      return holdoutSentence;
    },
    renderCalls({ calls, content }): ChatMessage {
      return {
        role: 'assistant',
        content: content ?? '',
        toolCalls: calls.map((call, index) => ({
          ...call,
          id: call.id ?? `call_${index}`,
        })),
      };
    },
    renderReply(content) {
      return { role: 'assistant', content };
    },
  };
}

import {
  PyDict,
  PyJsonSyntaxError,
  parseCallString,
  parsePyJson,
  pyJsonDumps,
  type PyValue,
} from '@seal/python';
import type { ChatMessage, ToolCall } from '@seal/spec';
import { renderCompactTool, toOpenAiTool } from '../prompt/render-tools';
import {
  holdoutSentence,
  type DecodedCall,
  type ProtocolParseResult,
  type ToolCallProtocol,
} from './tool-call-protocol';
import { findTagPairs } from './tag-pairs';

/**
 * Parses one `<tool_call>` body: a JSON object with `name` and `arguments`
 * (an object, or a string holding a JSON object). Numbers keep int/float.
 */
export function decodeJsonCall(
  body: string,
): { success: true; call: DecodedCall } | { success: false; message: string } {
  let value: PyValue;
  try {
    value = parsePyJson(body.trim());
  } catch (error) {
    return {
      success: false,
      message: `not valid JSON (${error instanceof PyJsonSyntaxError ? error.message : String(error)})`,
    };
  }
  return decodeCallObject(value);
}

/** Validates a decoded `{name, arguments}` object. */
export function decodeCallObject(
  value: PyValue,
): { success: true; call: DecodedCall } | { success: false; message: string } {
  if (!(value instanceof PyDict))
    return { success: false, message: 'a tool call must be a JSON object' };
  const name = value.get('name');
  if (typeof name !== 'string' || name === '') {
    return { success: false, message: "a tool call needs a string 'name'" };
  }
  let args = value.get('arguments') ?? value.get('parameters');
  if (args === undefined)
    return {
      success: false,
      message: `tool call '${name}' has no 'arguments'`,
    };
  if (typeof args === 'string') {
    try {
      args = parsePyJson(args);
    } catch {
      return {
        success: false,
        message: `the 'arguments' string of '${name}' is not valid JSON`,
      };
    }
  }
  if (!(args instanceof PyDict)) {
    return {
      success: false,
      message: `'arguments' of '${name}' must be a JSON object`,
    };
  }
  const kwargs: [string, PyValue][] = [];
  for (const [key, item] of args) {
    if (typeof key !== 'string' || !/^[A-Za-z_][A-Za-z0-9_]*$/.test(key)) {
      return {
        success: false,
        message: `argument name ${JSON.stringify(String(key))} of '${name}' is not an identifier`,
      };
    }
    kwargs.push([key, item]);
  }
  return { success: true, call: { name, args: [], kwargs } };
}

/** JSON text of a call's arguments with Python's int/float preserved. */
export function argumentsJson(call: ToolCall): string {
  return pyJsonDumps(argumentsDict(call), { ensureAscii: false });
}

function argumentsDict(call: ToolCall): PyDict {
  // The call text is canonical Python; re-read it to keep 5.0 apart from 5.
  const parsed = parseCallString(call.callText);
  if (parsed.success && parsed.value.args.length === 0)
    return new PyDict(parsed.value.kwargs);
  return new PyDict(
    Object.entries(call.arguments).map(([k, v]) => [k, fromPlain(v)]),
  );
}

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
 * SEAL's `bfcl_qwen_fc` protocol, Qwen2.5's native format: tools as JSON in
 * `<tools>` in the system prompt; calls as JSON objects in `<tool_call>` tags;
 * results returned in one user message of `<tool_response>` blocks. Strict:
 * one malformed block rejects the whole message. Text outside blocks is kept.
 */
export function createQwenXmlProtocol(): ToolCallProtocol {
  return {
    name: 'qwen-xml',
    toolsOutOfBand: false,
    renderSystemPrompt({ tools, mode, notes }) {
      const toolLines =
        mode === 'compact'
          ? tools.map(renderCompactTool)
          : tools.map((doc) => JSON.stringify(toOpenAiTool(doc)));
      const sections = [
        '# Tools',
        'You may call one or more functions to assist with the user query.',
        `You are provided with function signatures within <tools></tools> XML tags:\n<tools>\n${toolLines.join('\n')}\n</tools>`,
        'For each function call, return a json object with function name and arguments within <tool_call></tool_call> XML tags:\n<tool_call>\n{"name": <function-name>, "arguments": <args-json-object>}\n</tool_call>',
        ...notes,
      ];
      return sections.join('\n\n');
    },
    parse(response): ProtocolParseResult {
      const text = typeof response === 'string' ? response : response.content;
      const calls: DecodedCall[] = [];
      // The text around the blocks, each block cut out where it was found.
      let content = '';
      let last = 0;
      let index = 0;
      for (const block of findTagPairs({ text, tag: 'tool_call' }).pairs) {
        index++;
        const decoded = decodeJsonCall(block.inner);
        if (!decoded.success)
          return {
            kind: 'error',
            message: `tool call ${index}: ${decoded.message}`,
          };
        calls.push(decoded.call);
        content += text.slice(last, block.start);
        last = block.end;
      }
      content += text.slice(last);
      if (content.includes('<tool_call>')) {
        return { kind: 'error', message: 'unclosed <tool_call> tag' };
      }
      if (calls.length === 0) return { kind: 'reply', content: text };
      return { kind: 'calls', calls, content: content.trim() };
    },
    renderResults(results) {
      const body = results
        .map(({ result }) => `<tool_response>\n${result}\n</tool_response>`)
        .join('\n');
      return [{ role: 'user', content: `${body}\n` }];
    },
    renderError(message) {
      return [
        {
          role: 'user',
          content: `[ERROR] Invalid tool call format: ${message}`,
        },
      ];
    },
    renderHoldout({ tools, mode }) {
      const lines =
        mode === 'compact'
          ? tools.map(renderCompactTool)
          : tools.map((doc) => JSON.stringify(toOpenAiTool(doc)));
      return `${lines.join('\n')}\n${holdoutSentence}`;
    },
    renderCalls({ calls, content }): ChatMessage {
      const blocks = calls.map(
        (call) =>
          `<tool_call>\n{"name": ${JSON.stringify(call.name)}, "arguments": ${argumentsJson(call)}}\n</tool_call>`,
      );
      return {
        role: 'assistant',
        content: [content ?? '', ...blocks]
          .filter((part) => part !== '')
          .join('\n'),
      };
    },
    renderReply(content) {
      return { role: 'assistant', content };
    },
  };
}

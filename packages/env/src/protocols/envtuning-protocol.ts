import {
  PyJsonSyntaxError,
  parsePyJson,
  pyJsonDumps,
  type PyValue,
} from '@seal/python';
import type { ChatMessage } from '@seal/spec';
import { renderCompactTool, toOpenAiTool } from '../prompt/render-tools';
import { argumentsJson, decodeCallObject } from './qwen-xml-protocol';
import {
  holdoutSentence,
  type DecodedCall,
  type ProtocolParseResult,
  type ToolCallProtocol,
} from './tool-call-protocol';
import { findTagPairs } from './tag-pairs';

function countPairs(
  text: string,
  tag: string,
): { open: number; pairs: [string, string][] } {
  const { open, pairs } = findTagPairs({ text, tag });
  return { open, pairs: pairs.map((pair) => [pair.text, pair.inner]) };
}

/** The instruction after execution results (our wording of Environment Tuning's). */
export const envTuningResultInstruction =
  'If the request is now complete, reason in <think></think> and then give a short summary in <answer></answer>. Otherwise keep calling tools.';

/**
 * Environment Tuning's format: every response has exactly one
 * `<think>…</think>`, then either one `<tool_call>` (a JSON call object or a
 * list of them) or one `<answer>` that ends the turn, and no other text.
 * Violations return Environment Tuning's actionable error strings.
 */
export function createEnvTuningProtocol(): ToolCallProtocol {
  return {
    name: 'envtuning',
    toolsOutOfBand: false,
    renderSystemPrompt({ tools, mode, notes }) {
      const toolLines =
        mode === 'compact'
          ? tools.map(renderCompactTool)
          : tools.map((doc) => JSON.stringify(toOpenAiTool(doc)));
      return [
        'You are a tool-use agent. Available tools:',
        `<tools>\n${toolLines.join('\n')}\n</tools>`,
        'Answer every message in this format: first your reasoning inside <think></think>, then EITHER one <tool_call></tool_call> holding a JSON object {"name": ..., "arguments": {...}} (or a JSON list of such objects for parallel calls), OR one <answer></answer> with your reply to the user, which ends your turn. Write nothing outside these tags.',
        ...notes,
      ].join('\n\n');
    },
    parse(response): ProtocolParseResult {
      const text = typeof response === 'string' ? response : response.content;
      const think = countPairs(text, 'think');
      if (think.pairs.length === 0)
        return {
          kind: 'error',
          message: 'Error: Missing <think></think> tags',
        };
      if (think.pairs.length > 1 || think.open > 1) {
        return {
          kind: 'error',
          message:
            'Error: Multiple <think></think> tag pairs found. Only one pair is allowed.',
        };
      }
      const toolCall = countPairs(text, 'tool_call');
      const answer = countPairs(text, 'answer');
      if (toolCall.pairs.length > 1 || toolCall.open > 1) {
        return {
          kind: 'error',
          message:
            'Error: Multiple <tool_call></tool_call> tag pairs found. Only one pair is allowed.',
        };
      }
      if (answer.pairs.length > 1 || answer.open > 1) {
        return {
          kind: 'error',
          message:
            'Error: Multiple <answer></answer> tag pairs found. Only one pair is allowed.',
        };
      }
      if (toolCall.pairs.length === 1 && answer.pairs.length === 1) {
        return {
          kind: 'error',
          message:
            'Error: Response cannot contain both <tool_call> and <answer> tags',
        };
      }
      if (toolCall.pairs.length === 0 && answer.pairs.length === 0) {
        return {
          kind: 'error',
          message:
            'Error: Response must contain either <tool_call> or <answer> tags',
        };
      }
      let outside = text.replace(think.pairs[0]![0], '');
      for (const match of [...toolCall.pairs, ...answer.pairs])
        outside = outside.replace(match[0], '');
      if (outside.trim() !== '') {
        return {
          kind: 'error',
          message:
            'Error: Response must not contain text outside the required XML tags',
        };
      }
      if (answer.pairs.length === 1)
        return { kind: 'reply', content: answer.pairs[0]![1]!.trim() };
      let value: PyValue;
      try {
        value = parsePyJson(toolCall.pairs[0]![1]!.trim());
      } catch (error) {
        const detail =
          error instanceof PyJsonSyntaxError ? error.message : String(error);
        return {
          kind: 'error',
          message: `Error: Invalid JSON inside <tool_call>: ${detail}`,
        };
      }
      const items = Array.isArray(value) ? value : [value];
      if (items.length === 0)
        return {
          kind: 'error',
          message: 'Error: Invalid JSON inside <tool_call>: empty list',
        };
      const calls: DecodedCall[] = [];
      for (const item of items) {
        const decoded = decodeCallObject(item);
        if (!decoded.success)
          return {
            kind: 'error',
            message: `Error: Invalid JSON inside <tool_call>: ${decoded.message}`,
          };
        calls.push(decoded.call);
      }
      return { kind: 'calls', calls, content: think.pairs[0]![1]!.trim() };
    },
    renderResults(results) {
      const list = pyJsonDumps(results.map(({ result }) => result));
      return [
        {
          role: 'user',
          content: `Here are the function's execution results. Execution results: ${list}\n${envTuningResultInstruction}`,
        },
      ];
    },
    renderError(message) {
      return [
        {
          role: 'user',
          content: message.startsWith('Error') ? message : `Error: ${message}`,
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
      const body =
        calls.length === 1
          ? `{"name": ${JSON.stringify(calls[0]!.name)}, "arguments": ${argumentsJson(calls[0]!)}}`
          : `[${calls.map((call) => `{"name": ${JSON.stringify(call.name)}, "arguments": ${argumentsJson(call)}}`).join(', ')}]`;
      return {
        role: 'assistant',
        content: `<think>${content ?? ''}</think>\n<tool_call>${body}</tool_call>`,
      };
    },
    renderReply(content) {
      return {
        role: 'assistant',
        content: `<think></think>\n<answer>${content}</answer>`,
      };
    },
  };
}

import {
  PyDict,
  fromJsonValue,
  formatCall,
  parseCallSequence,
  pyRepr,
  type ParsedCall,
} from '@seal/python';
import type { ChatMessage, ToolDoc } from '@seal/spec';
import { renderCompactTool } from '../prompt/render-tools';
import {
  holdoutSentence,
  type DecodedCall,
  type ProtocolParseResult,
  type ToolCallProtocol,
} from './tool-call-protocol';

/**
 * BFCL's system prompt for prompting (non-FC) models, verbatim from
 * `bfcl_eval/constants/default_prompts.py` at gorilla cd9429cc (Apache-2.0),
 * so that evaluations with this protocol match the leaderboard's prompt.
 */
export const bfclPromptingSystemPrompt =
  'You are an expert in composing functions. You are given a question and a set of possible functions. Based on the question, you will need to make one or more function/tool calls to achieve the purpose.\n' +
  'If none of the functions can be used, point it out. If the given question lacks the parameters required by the function, also point it out.\n' +
  'You should only return the function calls in your response.\n\n' +
  'If you decide to invoke any of the function(s), you MUST put it in the format of [func_name1(params_name1=params_value1, params_name2=params_value2...), func_name2(params)]\n' +
  'You SHOULD NOT include any other text in the response.\n\n' +
  "At each turn, you should try your best to complete the tasks requested by the user within the current turn. Continue to output functions to call until you have fulfilled the user's request to the best of your ability. Once you have no more functions to call, the system will consider the current turn complete and proceed to the next turn or task.\n\n" +
  'Here is a list of functions in JSON format that you can invoke.\n{functions}\n\n';

const python3Note = ' Note that the provided function is in Python 3 syntax.';

/**
 * The compact mode's instruction (ours): the same contract as BFCL's prompt
 * in a few tokens, for small models with short contexts.
 */
export const compactPythonInstruction =
  "Call tools by writing only a Python list of calls, e.g. [tool(arg='value')]. When the request is done, or no tool can do it, or a value is missing, reply in plain text.";

/** Python repr of doc dicts, as BFCL's `str.format` puts them in the prompt. */
function docsRepr(tools: ToolDoc[], note: string): string {
  return pyRepr(
    tools.map((doc) =>
      fromJsonValue({ ...doc, description: `${doc.description}${note}` }),
    ),
  );
}

function stripChars(text: string, chars: string): string {
  let start = 0;
  let end = text.length;
  while (start < end && chars.includes(text[start]!)) start++;
  while (end > start && chars.includes(text[end - 1]!)) end--;
  return text.slice(start, end);
}

/**
 * BFCL's `default_decode_execute_prompting`: strip fences and whitespace,
 * force one pair of brackets, strip every leading/trailing `[`, `]`, `'`,
 * then read one call or a tuple of calls. Positional arguments are dropped,
 * bare names become strings, arithmetic on literals is folded, nested calls
 * stay code — all as BFCL does, but nothing is evaluated beyond literal
 * arithmetic. Returns undefined when BFCL's decoder would raise.
 */
export function decodeBfclPrompting(raw: string): ParsedCall[] | undefined {
  let text = stripChars(raw, '`\n ');
  if (!text.startsWith('[')) text = `[${text}`;
  if (!text.endsWith(']')) text = `${text}]`;
  text = stripChars(text, "[]'");
  const parsed = parseCallSequence(text, {
    bareNames: 'string',
    arithmetic: true,
    nestedCalls: 'source',
  });
  if (!parsed.success) return undefined;
  return parsed.value.map((call) => ({ ...call, args: [] }));
}

/**
 * BFCL's prompting format: tools as a Python list of doc dicts in BFCL's own
 * system prompt; calls as a Python list `[f(a=1), g(b='x')]`. Output that does
 * not decode is a plain reply (that is how a prompting model ends a turn).
 * Results return as one user message holding the Python repr of
 * `[{'role': 'tool', 'name': <call>, 'content': <result>}, ...]`.
 */
export function createBfclPythonProtocol(): ToolCallProtocol {
  return {
    name: 'bfcl-python',
    toolsOutOfBand: false,
    renderSystemPrompt({ tools, mode, notes }) {
      if (mode === 'compact') {
        return [
          compactPythonInstruction,
          `Tools:\n${tools.map(renderCompactTool).join('\n')}`,
          ...notes,
        ].join('\n');
      }
      const prompt = bfclPromptingSystemPrompt.replace(
        '{functions}',
        docsRepr(tools, python3Note),
      );
      return notes.length === 0 ? prompt : `${prompt}${notes.join('\n\n')}`;
    },
    parse(response): ProtocolParseResult {
      const text = typeof response === 'string' ? response : response.content;
      const calls = decodeBfclPrompting(text);
      if (calls === undefined || calls.length === 0)
        return { kind: 'reply', content: text };
      const decoded: DecodedCall[] = calls.map((call) => ({
        name: call.name,
        args: [],
        kwargs: call.kwargs,
      }));
      return { kind: 'calls', calls: decoded, content: '' };
    },
    renderResults(results) {
      const items = results.map(
        ({ call, result }) =>
          new PyDict([
            ['role', 'tool'],
            ['name', call.callText],
            ['content', result],
          ]),
      );
      return [{ role: 'user', content: pyRepr(items) }];
    },
    renderError(message) {
      return [{ role: 'user', content: `Error: ${message}` }];
    },
    renderHoldout({ tools, mode }) {
      const functions =
        mode === 'compact'
          ? tools.map(renderCompactTool).join('\n')
          : docsRepr(tools, '');
      return `${functions}\n${holdoutSentence}`;
    },
    renderCalls({ calls }): ChatMessage {
      return {
        role: 'assistant',
        content: `[${calls.map((call) => call.callText).join(', ')}]`,
      };
    },
    renderReply(content) {
      return { role: 'assistant', content };
    },
  };
}

/** Formats decoded calls back to BFCL's `name(k=repr(v), ...)` strings. */
export function formatDecoded(calls: ParsedCall[]): string[] {
  return calls.map((call) => formatCall(call));
}

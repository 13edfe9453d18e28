import { PyDict, pyJsonDumps } from '@seal/python';
import type { ToolCall } from '@seal/spec';
import { toToolCall, type DecodedCall } from './tool-call-protocol';

/**
 * A decoded call as an OpenAI-style tool call: `argumentsText` is the JSON
 * object of its keyword arguments with ints and floats kept apart (`5.0`
 * stays `5.0`, as Python's `json.dumps` writes it), so a client that reads
 * numbers the way the environment does gets back the call the model made.
 * Positional arguments have no JSON form and are dropped, as BFCL's
 * prompting decoder drops them.
 */
export function toWireToolCall({
  call,
  id,
}: {
  call: DecodedCall;
  id: string;
}): ToolCall & { id: string; argumentsText: string } {
  const keywordOnly: DecodedCall = { ...call, args: [] };
  const converted = toToolCall(keywordOnly);
  return {
    ...converted,
    id,
    argumentsText: pyJsonDumps(new PyDict(call.kwargs), { ensureAscii: false }),
  };
}

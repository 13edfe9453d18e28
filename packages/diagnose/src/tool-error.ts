import type { EpisodeEvent } from '@seal/spec';

/** A `call-executed` event. */
export type CallExecutedEvent = Extract<
  EpisodeEvent,
  { type: 'call-executed' }
>;

/**
 * SEAL's error-like-string pattern (`env_handler._TOOL_ERROR_RE`): a result
 * text matching it counts as a tool error even without an error field.
 */
export const sealToolErrorPattern: RegExp =
  /(\[ERROR\]|Error during execution|Invalid tool call format|not available in the current tool list|path not allowed|Invalid character|No such file or directory|unexpected keyword argument)/i;

/**
 * The error an executed call signals, or `undefined` when it ran cleanly.
 * SEAL's `_tool_result_has_error`, adapted to our events: the event's `error`
 * field (a raised exception's text, or a returned dict's `error` field, which
 * replaces SEAL's walk over JSON keys); else the result of a call that did
 * not return normally (`raised`, or `rejected` by the safe call parser);
 * else the result text when it matches {@link sealToolErrorPattern}.
 */
export function toolErrorOf(event: CallExecutedEvent): string | undefined {
  if (event.error !== undefined) return event.error;
  if (event.status !== 'ok') return event.result;
  return sealToolErrorPattern.test(event.result) ? event.result : undefined;
}

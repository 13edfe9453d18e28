import type { ErrorHint } from '@seal/spec';

/** Settings of φ_err (SEAL's `tool_feedback_evolution`). */
export type ErrorHintSettings = {
  /** How many tool names a parse-error hint lists before `(+k more)`. Default 12. */
  maxToolNames?: number;
  /** The protocol whose format the parse-error hint describes. */
  protocol?: 'qwen-xml' | 'bfcl-python' | 'openai-tools' | 'envtuning';
};

const formatHints: Record<
  NonNullable<ErrorHintSettings['protocol']>,
  string
> = {
  'qwen-xml':
    '[Hint] Each tool call must be a JSON object with "name" and "arguments" inside <tool_call></tool_call>, e.g. <tool_call>{"name": "<tool>", "arguments": {"<arg>": <value>}}</tool_call>.',
  'bfcl-python':
    '[Hint] Write tool calls only as a Python list, e.g. [tool_name(arg="value")], with no other text.',
  'openai-tools':
    '[Hint] Call tools through tool_calls with a JSON object of arguments.',
  envtuning:
    '[Hint] Write exactly one <think> block, then either one <tool_call> with {"name": ..., "arguments": {...}} or one <answer> block.',
};

/**
 * φ_err for malformed output: a protocol-specific format hint, the available
 * tools (first N, then `+k more`), and advice to answer in plain text when no
 * tool fits. Placeholders are filled by the environment.
 */
export function parseErrorHintLines({
  maxToolNames = 12,
  protocol = 'qwen-xml',
}: ErrorHintSettings = {}): string[] {
  return [
    formatHints[protocol],
    `[Hint] Available tools: {tools:${maxToolNames}}.`,
    "[Hint] If no available tool can serve the user's request, reply in plain text instead.",
  ];
}

/**
 * φ_err for tool errors: SEAL's ordered recovery-hint rules (§4.3), as data.
 * The first matching rule adds one `[ToolHint]` line; hints never reveal the
 * correct call or any value. `{tool}` is the failing tool, `{tools:N}` the
 * available ones, `$1` a captured group.
 */
export function toolErrorHintRules(): ErrorHint[] {
  const rule = (id: string, pattern: string, hint: string): ErrorHint => ({
    id,
    pattern,
    flags: 'i',
    hint,
  });
  return [
    rule(
      'missing-argument',
      String.raw`missing\s+\d+\s+required\s+(?:positional|keyword)\s+arguments?:\s*([^\n"]+?)\.?(?:"|$)`,
      '[ToolHint] `{tool}` was called without required argument(s) $1. Call it again with them in the arguments.',
    ),
    rule(
      'unexpected-argument',
      String.raw`unexpected\s+keyword\s+argument\s*['"]?(\w+)`,
      '[ToolHint] `{tool}` does not accept the argument `$1`. Use only the arguments in its schema.',
    ),
    rule(
      'missing-path',
      String.raw`no such (?:file|directory)`,
      '[ToolHint] The path given to `{tool}` does not exist in the current state. Look at the current state with a listing or reading tool first, then retry.',
    ),
    rule(
      'single-component-path',
      String.raw`you cannot use path|use a single component|paths are not allowed`,
      '[ToolHint] `{tool}` does not take multi-part paths. Move one step at a time.',
    ),
    rule(
      'authentication',
      String.raw`not authenticated|login[^\n]*required|required[^\n]*login|not logged in`,
      '[ToolHint] This call needs you to authenticate first. Log in, then retry.',
    ),
    rule(
      'unknown-tool',
      String.raw`tool not found|no such tool|unknown function|is not defined|is not available`,
      '[ToolHint] `{tool}` is not an available tool. Available tools start with: {tools:8}. If none fits the request, reply in plain text.',
    ),
    rule(
      'type',
      String.raw`expected[\s\S]*got|must be (?:a |an )?(?:str|int|float|real number|string)|not supported between instances|indices must be integers`,
      '[ToolHint] `{tool}` rejected an argument type. Check the types in its schema (string, integer, number, list).',
    ),
    rule(
      'generic-short',
      String.raw`^[\s\S]{1,199}$`,
      "[ToolHint] `{tool}` returned an error. Re-read the tool's parameters and retry with corrected arguments.",
    ),
  ];
}

import { SealError } from '@seal/spec';
import type { FromMcpOptions } from './from-mcp';

const assignment = /^([A-Za-z_][A-Za-z0-9_]*)=(.*)$/s;

/** Splits a command line into words: spaces separate, quotes group, `\` escapes. */
function splitWords(text: string): string[] {
  const words: string[] = [];
  let current = '';
  let inWord = false;
  let quote: '"' | "'" | undefined;
  for (let index = 0; index < text.length; index += 1) {
    const char = text[index]!;
    if (quote !== undefined) {
      if (char === quote) quote = undefined;
      else if (char === '\\' && quote === '"' && index + 1 < text.length) {
        index += 1;
        current += text[index]!;
      } else current += char;
    } else if (char === '"' || char === "'") {
      quote = char;
      inWord = true;
    } else if (char === '\\' && index + 1 < text.length) {
      index += 1;
      current += text[index]!;
      inWord = true;
    } else if (/\s/.test(char)) {
      if (inWord) words.push(current);
      current = '';
      inWord = false;
    } else {
      current += char;
      inWord = true;
    }
  }
  if (quote !== undefined) {
    throw new SealError({
      code: 'INVALID_ARGUMENT',
      message: `MCP command ${text}: unterminated ${quote} quote`,
    });
  }
  if (inWord) words.push(current);
  return words;
}

/**
 * Reads `mcp:ENV=VAL ... command args` (the `--env` form of the CLI) into
 * {@link fromMcp} options: leading `NAME=value` words are environment
 * variables, the next word the command, the rest its arguments. Values may
 * name `{session_dir}`.
 */
export function parseMcpCommand(
  spec: string,
): Pick<FromMcpOptions, 'command' | 'args' | 'env'> {
  const text = spec.startsWith('mcp:') ? spec.slice('mcp:'.length) : spec;
  const words = splitWords(text);
  const env: Record<string, string> = {};
  let index = 0;
  for (; index < words.length; index += 1) {
    const match = assignment.exec(words[index]!);
    if (match === null) break;
    env[match[1]!] = match[2]!;
  }
  const command = words[index];
  if (command === undefined) {
    throw new SealError({
      code: 'INVALID_ARGUMENT',
      message: `MCP spec ${spec}: no command after the environment assignments (expected mcp:[NAME=value ...] command [args ...])`,
    });
  }
  return { command, args: words.slice(index + 1), env };
}

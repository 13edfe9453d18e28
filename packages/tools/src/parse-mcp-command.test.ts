import { describe, expect, it } from 'vitest';
import { parseMcpCommand } from './parse-mcp-command';

describe('parseMcpCommand', () => {
  it('should read env assignments, the command and quoted arguments', () => {
    expect(
      parseMcpCommand(
        `mcp:MEMORY_FILE_PATH={session_dir}/memory.jsonl DEBUG="a b" npx -y '@scope/server x'`,
      ),
    ).toEqual({
      env: { MEMORY_FILE_PATH: '{session_dir}/memory.jsonl', DEBUG: 'a b' },
      command: 'npx',
      args: ['-y', '@scope/server x'],
    });
  });

  it('should reject a spec without a command', () => {
    expect(() => parseMcpCommand('mcp:A=1')).toThrow(
      expect.objectContaining({ code: 'INVALID_ARGUMENT' }),
    );
  });

  it('should reject an unterminated quote', () => {
    expect(() => parseMcpCommand('mcp:node "x')).toThrow(
      expect.objectContaining({ code: 'INVALID_ARGUMENT' }),
    );
  });
});

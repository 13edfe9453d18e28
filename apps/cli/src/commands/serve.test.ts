import { PassThrough } from 'node:stream';
import {
  hasSharedBfclData,
  sharedBfclDataDir,
  sharedDataSkipMessage,
} from '@seal/bfcl/test';
import { describe, expect, it } from 'vitest';
import { createOutput } from '../ui/output';
import { runServe } from './serve';

describe.skipIf(!hasSharedBfclData)('runServe', () => {
  it('should print the URL, serve SEAL requests and stop cleanly on SIGINT', async () => {
    const stdout = new PassThrough();
    let text = '';
    stdout.on('data', (chunk: Buffer) => (text += chunk.toString()));
    const listening = new Promise<string>((resolve) => {
      stdout.on('data', () => {
        const match = /listening on (http:\/\/\S+)/.exec(text);
        if (match) resolve(match[1]!);
      });
    });
    const run = runServe({
      argv: ['--port', '0', '--data', sharedBfclDataDir],
      output: createOutput({ json: false, stdout, stderr: new PassThrough() }),
    });
    const url = await listening;
    expect(await (await fetch(`${url}/healthz`)).text()).toBe('OK');
    const created = await fetch(`${url}/create`, {
      method: 'POST',
      body: JSON.stringify({
        env_type: 'bfcl',
        task_id: 'multi_turn_base_0',
        instance_id: 'cli',
        messages: {},
        params: {},
      }),
    });
    expect(((await created.json()) as { success: boolean }).success).toBe(true);
    process.emit('SIGINT');
    expect(await run).toBe(0);
    await new Promise((resolve) => setImmediate(resolve));
    expect(text).toContain('stopped (SIGINT); released 1 instance');
    await expect(fetch(`${url}/healthz`)).rejects.toThrow();
  });

  it('should refuse bad flags with INVALID_ARGUMENT', async () => {
    const output = createOutput({
      json: false,
      stdout: new PassThrough(),
      stderr: new PassThrough(),
    });
    await expect(
      runServe({ argv: ['--port', '70000'], output }),
    ).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
    await expect(
      runServe({ argv: ['--max-body', 'lots'], output }),
    ).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
  });
});

if (!hasSharedBfclData) {
  describe('runServe (shared data absent)', () => {
    it.skip(sharedDataSkipMessage, () => {});
  });
}

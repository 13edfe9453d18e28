import { PassThrough } from 'node:stream';
import { codRunFixtureDirectory, runFixtureDirectory } from '@seal/report/test';
import { describe, expect, it } from 'vitest';
import { createOutput } from '../ui/output';
import { runView } from './view';

describe('runView', () => {
  it('should print the URL, serve re-verified episodes and stop cleanly on SIGINT', async () => {
    const stdout = new PassThrough();
    let text = '';
    stdout.on('data', (chunk: Buffer) => (text += chunk.toString()));
    const listening = new Promise<string>((resolve) => {
      stdout.on('data', () => {
        const match = /listening on (http:\/\/\S+)/.exec(text);
        if (match) resolve(match[1]!);
      });
    });
    const run = runView({
      argv: [runFixtureDirectory, '--port', '0'],
      output: createOutput({ json: false, stdout, stderr: new PassThrough() }),
    });
    const url = await listening;
    const page = await (
      await fetch(`${url}/episode/step-000003.jsonl/0`)
    ).text();
    expect(page).toMatch(/data-verdict="(success|failure)"/);
    expect(page).toContain('Ground truth');
    process.emit('SIGINT');
    expect(await run).toBe(0);
    await new Promise((resolve) => setImmediate(resolve));
    expect(text).toContain('seal view: stopped (SIGINT)');
    await expect(fetch(`${url}/`)).rejects.toThrow();
  });

  it('should serve a Connect the Dots run with each pack run and its hints between the tasks', async () => {
    const stdout = new PassThrough();
    let text = '';
    stdout.on('data', (chunk: Buffer) => (text += chunk.toString()));
    const listening = new Promise<string>((resolve) => {
      stdout.on('data', () => {
        const match = /listening on (http:\/\/\S+)/.exec(text);
        if (match) resolve(match[1]!);
      });
    });
    const run = runView({
      argv: [codRunFixtureDirectory, '--port', '0'],
      output: createOutput({ json: false, stdout, stderr: new PassThrough() }),
    });
    const url = await listening;
    expect(text).toContain('0 episode files, 4 pack-run files');
    expect(await (await fetch(`${url}/`)).text()).toContain(
      'step 2 · training packs',
    );
    const page = await (await fetch(`${url}/pack/step-000001.jsonl/0`)).text();
    expect(page.match(/<section class="pack-task"/g)).toHaveLength(4);
    expect(page.match(/<section class="hint-update/g)).toHaveLength(3);
    process.emit('SIGINT');
    expect(await run).toBe(0);
  });

  it('should refuse bad flags with INVALID_ARGUMENT', async () => {
    const output = createOutput({
      json: false,
      stdout: new PassThrough(),
      stderr: new PassThrough(),
    });
    await expect(
      runView({ argv: [runFixtureDirectory, '--port', '70000'], output }),
    ).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
    await expect(runView({ argv: [], output })).rejects.toMatchObject({
      code: 'INVALID_ARGUMENT',
    });
  });
});

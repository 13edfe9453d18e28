import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createOutput, type Output } from '../ui/output';
import { runTrain } from './train';

let root: string;
beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), 'seal-train-cli-'));
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

/** A text-mode output (no TTY) whose stdout is captured. */
function capture(): { output: Output; text: () => string } {
  const stdout = new PassThrough();
  let text = '';
  stdout.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
  return { output: createOutput({ json: false, stdout, stderr: new PassThrough() }), text: () => text };
}

describe('seal train (smoke preset)', () => {
  it('should train, print its table, report a finished run again, refuse another configuration and continue with more steps', async () => {
    const args = ['--preset', 'smoke', '--run-dir', join(root, 'run'), '--cache', join(root, 'cache')];

    const first = capture();
    expect(await runTrain({ argv: args, output: first.output })).toBe(0);
    expect(first.text()).toContain('warm start done');
    expect(first.text()).toMatch(/step 2\/2: success +\d+\.\d% \(last 2: +\d+\.\d%\)/);
    expect(first.text()).toMatch(/\| test-id \| \*\*overall\*\* \| +\d+\.\d% \| +\d+\.\d% \|/);
    expect(first.text()).toMatch(/\| test-ood \| \*\*overall\*\* \|/);

    // The same command again: the cached warm start, and the finished run's own results.
    const again = capture();
    expect(await runTrain({ argv: args, output: again.output })).toBe(0);
    expect(again.text()).toContain('warm start loaded from the cache');
    expect(again.text()).toContain('the run was already complete');
    expect(again.text()).toMatch(/\| test-id \| \*\*overall\*\* \|/);

    // Another sampling temperature is another run: no silent mix of the two.
    await expect(runTrain({ argv: [...args, '--temperature', '0.7'], output: capture().output })).rejects.toMatchObject({
      code: 'INVALID_STATE',
      message: expect.stringContaining('--fresh'),
    });

    // More steps continue the run from its checkpoint.
    const more = capture();
    expect(await runTrain({ argv: [...args, '--steps', '3'], output: more.output })).toBe(0);
    expect(more.text()).toContain('resumed after step 2');
    expect(more.text()).toMatch(/step 3\/3: success/);
  }, 240_000);
});

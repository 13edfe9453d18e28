import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createOutput, type Output } from '../ui/output';
import type { TrainStepEvent } from '@seal/spec';
import { baselineSummary, runTrain } from './train';

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
  return {
    output: createOutput({ json: false, stdout, stderr: new PassThrough() }),
    text: () => text,
  };
}

describe('seal train (smoke preset)', () => {
  it('should train, print its table, report a finished run again, refuse another configuration and continue with more steps', async () => {
    const args = [
      '--preset',
      'smoke',
      '--run-dir',
      join(root, 'run'),
      '--cache',
      join(root, 'cache'),
    ];

    const first = capture();
    expect(await runTrain({ argv: args, output: first.output })).toBe(0);
    expect(first.text()).toContain('warm start done');
    expect(first.text()).toMatch(
      /step 2\/2: success +\d+\.\d% \(last 2: +\d+\.\d%\), warm start +\d+\.\d% \(gain so far [+−±]\d+\.\d points\)/,
    );
    // The frozen warm start on the same tasks and seeds, step by step.
    expect(first.text()).toMatch(
      /training success on the same tasks and seeds: policy +\d+\.\d%, frozen warm start +\d+\.\d%/,
    );
    expect(first.text()).toMatch(
      /\| 2 \| +\d+\.\d% \| +\d+\.\d% \| [+−±]\d+\.\d points \|/,
    );
    expect(first.text()).toMatch(
      /\| test-id \| \*\*overall\*\* \| +\d+\.\d% \| +\d+\.\d% \|/,
    );
    expect(first.text()).toMatch(/\| test-ood \| \*\*overall\*\* \|/);

    // The same command again: the cached warm start, and the finished run's own results.
    const again = capture();
    expect(await runTrain({ argv: args, output: again.output })).toBe(0);
    expect(again.text()).toContain('warm start loaded from the cache');
    expect(again.text()).toContain('the run was already complete');
    expect(again.text()).toMatch(/\| test-id \| \*\*overall\*\* \|/);

    // Another sampling temperature is another run: no silent mix of the two.
    await expect(
      runTrain({
        argv: [...args, '--temperature', '0.7'],
        output: capture().output,
      }),
    ).rejects.toMatchObject({
      code: 'INVALID_STATE',
      message: expect.stringContaining('--fresh'),
    });

    // More steps continue the run from its checkpoint.
    const more = capture();
    // Turning the baseline off is not another run: it does not change the policy's steps.
    expect(
      await runTrain({
        argv: [...args, '--steps', '3', '--baseline', 'off'],
        output: more.output,
      }),
    ).toBe(0);
    expect(more.text()).toContain('resumed after step 2');
    expect(more.text()).toMatch(
      /step 3\/3: success +\d+\.\d% \(last 1: +\d+\.\d%\), loss/,
    );
  }, 240_000);
});

describe('baselineSummary', () => {
  const step = (n: number, successRate: number, baselineSuccessRate: number) =>
    ({ step: n, successRate, baselineSuccessRate }) as TrainStepEvent;

  it('should compare the policy with the frozen warm start step by step, with the mean gain so far', () => {
    const lines = baselineSummary([
      step(1, 0.25, 0.25),
      step(2, 0.5, 0.25),
      step(3, 0.125, 0.25),
    ]);
    // Means 0.2917 and 0.25; gains 0, +0.25, −0.125: so far 0, +0.125, +0.0417.
    expect(lines[0]).toBe(
      'training success on the same tasks and seeds: policy  29.2%, frozen warm start  25.0% (+4.2 points; ahead on 1 of 3 steps, behind on 1)',
    );
    expect(lines.slice(3)).toEqual([
      '| 1 |  25.0% |  25.0% | ±0.0 points |',
      '| 2 |  50.0% |  25.0% | +12.5 points |',
      '| 3 |  12.5% |  25.0% | +4.2 points |',
    ]);
  });
});

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { runResumeChaos } from './resume-chaos';

describe('runResumeChaos', () => {
  it('should finish a smoke run killed three times (model phase, torn event append, checkpoint write) identical to the uninterrupted run', async () => {
    const root = mkdtempSync(join(tmpdir(), 'seal-chaos-test-'));
    onTestFinished(() => rmSync(root, { recursive: true, force: true }));
    const report = await runResumeChaos({
      root,
      kills: 3,
      seed: 3,
      // One RL step: the warm start, two evaluations and one checkpoint.
      trainArgs: ['--preset', 'smoke', '--steps', '1'],
      kinds: ['time', 'append', 'checkpoint'],
    });
    expect(report.kills.map((kill) => kill.killed)).toEqual([true, true, true]);
    expect(report.differences).toEqual([]);
    expect(report.identical).toBe(true);
  }, 600_000);
});

import { cp, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { runFixtureDirectory } from '@seal/report/test';
import { readTrainingCells } from '@seal/rl';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRunDiagnoser } from '../run-diagnoser';
import { createOutput } from '../ui/output';
import { runCompare } from './compare';

describe('readTrainingCells', () => {
  let root: string;
  const stepFile = join(runFixtureDirectory, 'episodes', 'step-000003.jsonl');

  beforeAll(async () => {
    root = await mkdtemp(join(tmpdir(), 'seal-compare-training-'));
    await cp(runFixtureDirectory, join(root, 'run'), { recursive: true });
    // The frozen baseline's episodes: the policy's own, under baseline ids and with each task's samples swapped.
    const lines = (await readFile(stepFile, 'utf8'))
      .split('\n')
      .filter((line) => line.trim() !== '');
    const baseline = lines.map((line) => {
      const record = JSON.parse(line) as { episodeId: string };
      const parts = record.episodeId.split(':');
      const index = Number(parts.pop());
      record.episodeId = [
        ...parts.slice(0, 2),
        'baseline',
        ...parts.slice(2),
        String(1 - index),
      ].join(':');
      return JSON.stringify(record);
    });
    await writeFile(
      join(root, 'run', 'episodes', 'baseline-000003.jsonl'),
      baseline.join('\n') + '\n',
    );
  });
  afterAll(async () => {
    await rm(root, { recursive: true, force: true });
  });

  it("should pair each step's episodes with the baseline's by task and sample, re-verified, one cell per task", async () => {
    const runDirectory = join(root, 'run');
    const diagnose = await createRunDiagnoser({ runDirectory, seed: 3 });
    const { cells, unpaired } = await readTrainingCells({
      runDirectory,
      diagnose,
    });
    expect(unpaired).toBe(0);
    expect(cells.map((c) => [c.step, c.episodes])).toEqual([
      [3, 2],
      [3, 2],
      [3, 2],
      [3, 2],
    ]);
    // The same two episodes on each side of a task: the same means.
    for (const c of cells) expect(c.policy).toEqual(c.frozen);
    expect(new Set(cells.map((c) => c.category))).toEqual(
      new Set([
        'multi_turn_miss_param',
        'multi_turn_miss_func',
        'multi_turn_long_context',
      ]),
    );
    expect(
      (await readTrainingCells({ runDirectory, diagnose, fromStep: 4 })).cells,
    ).toEqual([]);
  });

  it('should print the comparison, and refuse a run without the baseline or flags that do not apply', async () => {
    const stdout = new PassThrough();
    let text = '';
    stdout.on('data', (chunk: Buffer) => (text += chunk.toString()));
    const output = createOutput({
      json: false,
      stdout,
      stderr: new PassThrough(),
    });
    expect(
      await runCompare({ argv: ['--training', join(root, 'run')], output }),
    ).toBe(0);
    expect(text).toContain('1 run, the policy against the frozen warm start');
    expect(text).toMatch(
      /\n {2}all +4 +8 +[\d.]+% +[\d.]+% +\+0\.0 \[\+0\.0, \+0\.0\]\n/,
    );
    await expect(
      runCompare({ argv: ['--training', runFixtureDirectory], output }),
    ).rejects.toThrow('train with --baseline on');
    await expect(
      runCompare({
        argv: ['--training', runFixtureDirectory, '--set', 'test-id'],
        output,
      }),
    ).rejects.toThrow('--set apply to evaluations');
    await expect(
      runCompare({ argv: [runFixtureDirectory, '--from-step', '2'], output }),
    ).rejects.toThrow('--from-step needs --training');
  });
});

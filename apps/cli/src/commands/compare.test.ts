import { mkdtemp, mkdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import type { EvalEvent } from '@seal/spec';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createOutput } from '../ui/output';
import { runCompare } from './compare';

const ids = [
  't_multi_turn_base_0',
  't_multi_turn_base_1',
  't_multi_turn_miss_param_0',
  't_multi_turn_miss_param_1',
];

function evaluation(
  step: number,
  greedy: readonly number[],
  sampled?: readonly number[],
  set = 'test-id',
): EvalEvent {
  const record = (values: readonly number[]) =>
    Object.fromEntries(ids.map((id, i) => [id, values[i]!]));
  return {
    schemaVersion: 1,
    type: 'eval',
    step,
    set,
    accuracy: greedy.reduce((a, b) => a + b, 0) / greedy.length,
    overall: 0,
    categories: {},
    tagCounts: {},
    overlayHash: 'none',
    taskSuccess: record(greedy),
    ...(sampled
      ? {
          sampled: {
            samples: 4,
            temperature: 1,
            accuracy: 0,
            taskSuccess: record(sampled),
          },
        }
      : {}),
  };
}

describe('runCompare', () => {
  let root: string;
  const output = () => {
    const stdout = new PassThrough();
    let text = '';
    stdout.on('data', (chunk: Buffer) => (text += chunk.toString()));
    return {
      output: createOutput({ json: false, stdout, stderr: new PassThrough() }),
      text: () => text,
    };
  };
  const writeRun = async (
    name: string,
    seed: number,
    events: EvalEvent[],
  ): Promise<string> => {
    const directory = join(root, name);
    await mkdir(directory, { recursive: true });
    await writeFile(
      join(directory, 'config.json'),
      JSON.stringify({
        schemaVersion: 1,
        runId: name,
        seed,
        method: 'grpo',
        steps: 4,
      }),
    );
    await writeFile(
      join(directory, 'events.jsonl'),
      events.map((event) => JSON.stringify(event)).join('\n') + '\n',
    );
    return directory;
  };

  beforeAll(async () => {
    root = await mkdtemp(join(tmpdir(), 'seal-compare-'));
  });
  afterAll(async () => {
    await rm(root, { recursive: true, force: true });
  });

  it('should print each pair and the pooled gain with its interval and minimum detectable effect', async () => {
    const probe = await writeRun('probe', 1, [
      evaluation(0, [0, 0, 1, 1], [0, 0, 0.5, 1]),
      evaluation(4, [1, 1, 1, 1], [1, 0.5, 0.5, 1]),
    ]);
    const control = await writeRun('control', 1, [
      evaluation(0, [0, 0, 1, 1], [0, 0, 0.5, 1]),
      evaluation(4, [0, 1, 1, 1], [0.25, 0.5, 0.5, 1]),
    ]);
    const { output: out, text } = output();
    expect(
      await runCompare({ argv: [probe, '--against', control], output: out }),
    ).toBe(0);
    expect(text()).toContain('1 run against 1 control');
    // Greedy first, sampled beside it with what its temperatures compare.
    expect(text().indexOf('test-id, greedy pass@1')).toBeGreaterThan(0);
    expect(text().indexOf('test-id, greedy pass@1')).toBeLessThan(
      text().indexOf('test-id, sampled pass@1'),
    );
    expect(text()).toContain(
      'test-id, sampled pass@1, sampled at T=1 vs control at T=1 (not temperature-matched)',
    );
    expect(text()).toMatch(
      /pooled over 1 run and 4 cells: \+18\.8 \[\+0\.0, \+56\.3\] points \(56\.3% → 75\.0%\), 95% two-way bootstrap \(runs × tasks, crossed\) includes 0; t over runs n\/a \(one run\); minimum detectable effect \d+\.\d points \(2\.8 × the two-way SE\)/,
    );
    expect(text()).toMatch(
      /test-id, greedy pass@1\n[\s\S]*pooled over 1 run and 4 cells: \+25\.0 \[\+0\.0, \+75\.0\]/,
    );
  });

  it('should pool several runs with the crossed interval and print the t-interval over their gains', async () => {
    const a = await writeRun('seed-a', 1, [
      evaluation(0, [0, 0, 1, 1]),
      evaluation(4, [1, 0, 1, 1]),
    ]);
    const b = await writeRun('seed-b', 2, [
      evaluation(0, [0, 0, 1, 1]),
      evaluation(4, [1, 1, 1, 1]),
    ]);
    const { output: out, text } = output();
    expect(await runCompare({ argv: [a, b], output: out })).toBe(0);
    // Gains 0.25 and 0.5: t_{0.975,1} · sd / √2 = 12.706 · 0.125 = 1.588.
    expect(text()).toMatch(
      /pooled over 2 runs and 8 cells: \+37\.5 \[[^\]]+\] points \(50\.0% → 87\.5%\), 95% two-way bootstrap \(runs × tasks, crossed\) (above|includes) 0; t over 2 runs' gains \+37\.5 \[-121\.3, \+196\.3\]; minimum detectable effect \d+\.\d points \(2\.8 × the two-way SE\)/,
    );
  });

  it('should refuse a directory that is not a run and flags it cannot use', async () => {
    const { output: out } = output();
    await expect(
      runCompare({ argv: [root], output: out }),
    ).rejects.toMatchObject({ code: 'NOT_FOUND' });
    await expect(runCompare({ argv: [], output: out })).rejects.toMatchObject({
      code: 'INVALID_ARGUMENT',
    });
    await expect(
      runCompare({ argv: [root, '--against-step', '3'], output: out }),
    ).rejects.toMatchObject({
      code: 'INVALID_ARGUMENT',
      message: '--against-step needs --against',
    });
    await expect(
      runCompare({ argv: [root, '--category', 'multi'], output: out }),
    ).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
  });
});

import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import type { EvalEvent } from '@seal/spec';
import { describe, expect, it, onTestFinished } from 'vitest';
import { createOutput } from '../ui/output';
import { encodeSafetensors } from '@seal/engine-ort';
import { gainLines, logitScaleLine, parseOverlays, runTrain } from './train';

describe('seal train --overlays', () => {
  it('should parse module lists and none', () => {
    expect(parseOverlays('schema,err,cap')).toEqual(['schema', 'err', 'cap']);
    expect(parseOverlays('cap, schema')).toEqual(['cap', 'schema']);
    expect(parseOverlays('none')).toEqual([]);
  });

  it('should reject an unknown module with one clear error naming it, before touching the run directory', async () => {
    expect(() => parseOverlays('schema,hints')).toThrow(
      /unknown overlay module 'hints'/,
    );
    expect(() => parseOverlays('none,schema')).toThrow(
      /unknown overlay module 'none'/,
    );
    const root = mkdtempSync(join(tmpdir(), 'seal-overlays-'));
    onTestFinished(() => rmSync(root, { recursive: true, force: true }));
    const output = createOutput({
      json: false,
      stdout: new PassThrough(),
      stderr: new PassThrough(),
    });
    const runDirectory = join(root, 'run');
    await expect(
      runTrain({
        argv: [
          '--preset',
          'smoke',
          '--overlays',
          'schema,foo',
          '--run-dir',
          runDirectory,
          '--cache',
          join(root, 'cache'),
        ],
        output,
      }),
    ).rejects.toMatchObject({
      code: 'INVALID_ARGUMENT',
      message: expect.stringContaining("'foo'"),
    });
    await expect(
      runTrain({
        argv: [
          '--preset',
          'smoke',
          '--method',
          'grpo',
          '--overlays',
          'schema',
          '--run-dir',
          runDirectory,
        ],
        output,
      }),
    ).rejects.toMatchObject({
      code: 'INVALID_ARGUMENT',
      message: expect.stringContaining('method grpo'),
    });
    expect(existsSync(runDirectory)).toBe(false);
    expect(existsSync(join(root, 'cache'))).toBe(false);
  });
});

describe('seal train RL and evaluation flags', () => {
  it('should refuse out-of-range values with one error naming the flag, before touching the run directory', async () => {
    const root = mkdtempSync(join(tmpdir(), 'seal-flags-'));
    onTestFinished(() => rmSync(root, { recursive: true, force: true }));
    const output = createOutput({
      json: false,
      stdout: new PassThrough(),
      stderr: new PassThrough(),
    });
    const runDirectory = join(root, 'run');
    for (const [flag, value] of [
      ['--strict-abstention', 'yes'],
      ['--tasks-per-step', '0'],
      ['--updates-per-step', '1.5'],
      ['--test-id', '2'],
      ['--test-ood', 'many'],
      ['--eval-every', '0'],
      ['--batch-order', 'random'],
      ['--zero-advantage-share', '0'],
      ['--zero-advantage-share', '1.5'],
      ['--output-norm', 'scalar'],
      ['--output-norm-lr-scale', '-1'],
      ['--vector-lr-scale', '20000'],
    ] as const) {
      await expect(
        runTrain({
          argv: [
            '--preset',
            'smoke',
            flag,
            value,
            '--run-dir',
            runDirectory,
            '--cache',
            join(root, 'cache'),
          ],
          output,
        }),
      ).rejects.toMatchObject({
        code: 'INVALID_ARGUMENT',
        message: expect.stringContaining(flag.slice(2)),
      });
    }
    expect(existsSync(runDirectory)).toBe(false);
    expect(existsSync(join(root, 'cache'))).toBe(false);
  });
});

describe('gainLines', () => {
  const event = (
    step: number,
    taskSuccess: Record<string, number>,
  ): EvalEvent => ({
    schemaVersion: 1,
    type: 'eval',
    step,
    set: 'test-id',
    accuracy: 0,
    overall: 0,
    categories: {},
    tagCounts: {},
    overlayHash: '',
    taskSuccess,
  });

  it('should print the paired gain with its interval and verdict', () => {
    const before = Object.fromEntries(
      Array.from({ length: 10 }, (_, i) => [`t${i}`, 0]),
    );
    const after = Object.fromEntries(
      Array.from({ length: 10 }, (_, i) => [`t${i}`, i < 8 ? 1 : 0]),
    );
    const [line] = gainLines([event(0, before), event(12, after)]);
    expect(line).toMatch(
      /^test-id gain over the warm start \(greedy, step 0 → 12\): \+80\.0 \[\+\d+\.\d, \+\d+\.\d\] points, 95% CI above 0 \(paired bootstrap over 10 tasks\)$/,
    );
    const [same] = gainLines([event(0, after), event(12, after)]);
    expect(same).toContain('+0.0 [+0.0, +0.0] points, 95% CI includes 0');
  });
});

describe('seal train: the learned logit scale', () => {
  it("should print the final norm's gain in the last checkpoint over the warm start's, and nothing when a file is missing", async () => {
    const root = mkdtempSync(join(tmpdir(), 'seal-scale-'));
    onTestFinished(() => rmSync(root, { recursive: true, force: true }));
    const norm = (values: number[]) =>
      encodeSafetensors({
        tensors: [
          [
            'model.norm.weight',
            { shape: [values.length], data: Float32Array.from(values) },
          ],
        ],
      });
    const warmStartDirectory = join(root, 'base');
    const runDirectory = join(root, 'run');
    mkdirSync(warmStartDirectory);
    mkdirSync(join(runDirectory, 'checkpoints', 'step-000003'), {
      recursive: true,
    });
    writeFileSync(join(warmStartDirectory, 'model.safetensors'), norm([1, 3]));
    expect(
      await logitScaleLine({ warmStartDirectory, runDirectory }),
    ).toBeUndefined();
    writeFileSync(
      join(runDirectory, 'checkpoints', 'latest.json'),
      JSON.stringify({ step: 3 }),
    );
    expect(
      await logitScaleLine({ warmStartDirectory, runDirectory }),
    ).toBeUndefined();
    writeFileSync(
      join(runDirectory, 'checkpoints', 'step-000003', 'model.safetensors'),
      norm([2, 4]),
    );
    const line = await logitScaleLine({ warmStartDirectory, runDirectory });
    expect(line).toContain('step 0 → 3');
    expect(line).toContain('× 1.500');
    expect(line).toContain('temperature 0.667');
  });
});

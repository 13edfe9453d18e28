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
import { describe, expect, it, onTestFinished } from 'vitest';
import { createOutput } from '../ui/output';
import { encodeSafetensors } from '@seal/engine-ort';
import {
  logitScaleLine,
  parseOverlays,
  runTrain,
  parseTaskMix,
  turnAdvantageWeightOf,
} from './train';

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

describe('seal train --credit', () => {
  it('should refuse an unknown credit mode with one error listing the valid modes, before touching the run directory', async () => {
    const root = mkdtempSync(join(tmpdir(), 'seal-credit-'));
    onTestFinished(() => rmSync(root, { recursive: true, force: true }));
    const output = createOutput({
      json: false,
      stdout: new PassThrough(),
      stderr: new PassThrough(),
    });
    const runDirectory = join(root, 'run');
    const argv = (...flags: string[]) => [
      '--preset',
      'smoke',
      ...flags,
      '--run-dir',
      runDirectory,
      '--cache',
      join(root, 'cache'),
    ];
    await expect(
      runTrain({ argv: argv('--credit', 'gigpo'), output }),
    ).rejects.toMatchObject({
      code: 'INVALID_ARGUMENT',
      message:
        "--credit: unknown credit mode 'gigpo' (valid modes: episode, turn)",
    });
    await expect(
      runTrain({
        argv: argv('--credit', 'episode', '--turn-advantage', '0.5'),
        output,
      }),
    ).rejects.toMatchObject({
      code: 'INVALID_ARGUMENT',
      message: expect.stringContaining(
        '--credit episode takes no turn-level weight',
      ),
    });
    expect(existsSync(runDirectory)).toBe(false);
    expect(existsSync(join(root, 'cache'))).toBe(false);
  });

  it('should map the credit mode to the turn-level weight', () => {
    expect(
      turnAdvantageWeightOf({ credit: undefined, weight: undefined }),
    ).toBeUndefined();
    expect(turnAdvantageWeightOf({ credit: undefined, weight: 0.5 })).toBe(0.5);
    expect(
      turnAdvantageWeightOf({ credit: 'episode', weight: undefined }),
    ).toBe(0);
    expect(turnAdvantageWeightOf({ credit: 'episode', weight: 0 })).toBe(0);
    expect(turnAdvantageWeightOf({ credit: 'turn', weight: undefined })).toBe(
      1,
    );
    expect(turnAdvantageWeightOf({ credit: 'turn', weight: 2 })).toBe(2);
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
    expect(line).toBe(
      "learned logit scale ×1.500 = sampling temperature 0.67 of the warm start's logits (the final norm's gain, step 0 → 3); not counted as learning",
    );
  });
});

describe('seal train --task-mix', () => {
  it('should read names with weights, bare names as 1, and BFCL short names', () => {
    expect(parseTaskMix('miss_func=2,base,miss_param=0.5')).toEqual({
      multi_turn_miss_func: 2,
      multi_turn_base: 1,
      multi_turn_miss_param: 0.5,
    });
    expect(parseTaskMix('notes=1,search=0')).toEqual({ notes: 1, search: 0 });
  });

  it.each([
    ['miss_func,miss_func', /listed twice/],
    ['miss_func=-1', /not name or name=weight/],
    ['miss_func=x', /not name or name=weight/],
    ['base=1=2', /not name or name=weight/],
    ['base=0', /no category has a positive weight/],
  ])('should refuse %s with one clear error', (text, message) => {
    expect(() => parseTaskMix(text)).toThrow(message);
  });

  it.each([
    [['--task-mix', 'miss_func,miss_func'], /listed twice/],
    [
      ['--task-mix', 'tools'],
      /'tools', with no training task of that category/,
    ],
  ])(
    'should refuse %j before touching the run directory',
    async (flags, message) => {
      const root = mkdtempSync(join(tmpdir(), 'seal-task-mix-'));
      onTestFinished(() => rmSync(root, { recursive: true, force: true }));
      const runDirectory = join(root, 'run');
      await expect(
        runTrain({
          argv: [
            '--preset',
            'smoke',
            ...flags,
            '--run-dir',
            runDirectory,
            '--cache',
            join(root, 'cache'),
          ],
          output: createOutput({
            json: false,
            stdout: new PassThrough(),
            stderr: new PassThrough(),
          }),
        }),
      ).rejects.toThrow(message);
      expect(existsSync(runDirectory)).toBe(false);
    },
  );
});

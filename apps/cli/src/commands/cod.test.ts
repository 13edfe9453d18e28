import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { frozenLakeSystemPrompt, updateContextSystemPrompt } from '@seal/cod';
import {
  buildBpeTokenizer,
  copyFriendlyPretokenizerPattern,
  createModelConfig,
  createOrtPolicy,
} from '@seal/engine-ort';
import {
  codRunConfigSchema,
  codTrainStateSchema,
  packRunRecordSchema,
  toSealError,
} from '@seal/spec';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exitCodeFor } from '../exit-codes';
import type { Output } from '../ui/output';
import { requestsPacks, runEvalPacks } from './eval-packs';
import { runReport } from './report';
import { requestsCod, runTrainCod } from './train-cod';

let root: string;
let modelDirectory: string;

/** A tiny random model saved as a checkpoint. */
beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), 'seal-cod-cli-'));
  modelDirectory = join(root, 'model');
  const tokenizer = buildBpeTokenizer({
    corpus: [frozenLakeSystemPrompt(8), updateContextSystemPrompt],
    vocabSize: 600,
    pattern: copyFriendlyPretokenizerPattern,
  });
  const config = createModelConfig({
    vocabSize: 600,
    hiddenSize: 32,
    intermediateSize: 64,
    numLayers: 1,
    numHeads: 2,
    numKeyValueHeads: 1,
    maxPositionEmbeddings: 1024,
    initializerRange: 0.2,
  });
  const policy = await createOrtPolicy({
    model: { config, seed: 4 },
    tokenizer,
    worker: false,
    threads: 1,
  });
  await policy.save({ directory: modelDirectory });
  await policy.close();
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

function capture(): {
  output: Output;
  result: () => Record<string, unknown>;
  lines: string[];
} {
  let value: unknown;
  const lines: string[] = [];
  return {
    output: {
      json: false,
      interactive: false,
      line: (text = '') => lines.push(text),
      result: (v) => (value = v),
      progress: () => ({ tick: () => {}, done: () => {} }),
    },
    result: () => value as Record<string, unknown>,
    lines,
  };
}

describe('requestsCod / requestsPacks', () => {
  it('should recognise the CoD flags and nothing else', () => {
    expect(requestsCod(['--method', 'cod'])).toBe(true);
    expect(requestsCod(['--method=cod'])).toBe(true);
    expect(requestsCod(['--method', 'seal', 'cod'])).toBe(false);
    expect(requestsPacks(['--packs', '4'])).toBe(true);
    expect(requestsPacks(['--model', 'x'])).toBe(false);
  });
});

describe('seal eval --packs', () => {
  it('should print success per position, write the pack runs and resume them', async () => {
    const out = join(root, 'eval.jsonl');
    const argv = [
      '--packs',
      '2',
      '--pack-size',
      '3',
      '--model',
      modelDirectory,
      '--out',
      out,
      '--max-tokens',
      '8',
      '--update-max-tokens',
      '8',
    ];
    const first = capture();
    await runEvalPacks({ argv, output: first.output });
    const positions = first.result()['positions'] as {
      position: number;
      runs: number;
    }[];
    expect(positions.map((p) => [p.position, p.runs])).toEqual([
      [0, 2],
      [1, 2],
      [2, 2],
    ]);
    expect(
      first.lines.filter((line) => line.includes('position')),
    ).toHaveLength(3);
    const records = readFileSync(out, 'utf8')
      .trim()
      .split('\n')
      .map((line) => packRunRecordSchema.parse(JSON.parse(line)));
    expect(records.map((r) => r.strategy)).toEqual(['cod', 'cod']);
    const again = capture();
    await runEvalPacks({ argv, output: again.output });
    expect(again.result()['resumedPacks']).toBe(2);
    expect(again.result()['positions']).toEqual(first.result()['positions']);
  });

  it('should repeat one task per pack with --ralph', async () => {
    const out = join(root, 'ralph.jsonl');
    const run = capture();
    await runEvalPacks({
      argv: [
        '--packs',
        '1',
        '--pack-size',
        '2',
        '--ralph',
        '--model',
        modelDirectory,
        '--out',
        out,
        '--max-tokens',
        '4',
        '--update-max-tokens',
        '4',
      ],
      output: run.output,
    });
    const [record] = readFileSync(out, 'utf8')
      .trim()
      .split('\n')
      .map((line) => packRunRecordSchema.parse(JSON.parse(line)));
    expect(record!.strategy).toBe('ralph_sample');
    expect(record!.solves[0]!.taskId).toBe(record!.solves[1]!.taskId);
  });

  it('should refuse a pack size below 2 and a missing model by code', async () => {
    await expect(
      runEvalPacks({
        argv: ['--packs', '2', '--pack-size', '1', '--model', modelDirectory],
        output: capture().output,
      }),
    ).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
    await expect(
      runEvalPacks({ argv: ['--packs', '2'], output: capture().output }),
    ).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
  });
});

describe('seal train --method cod', () => {
  it('should train, write pack runs with hints and advantages, and resume after the last step', async () => {
    const runDirectory = join(root, 'run');
    const argv = [
      '--method',
      'cod',
      '--preset',
      'smoke',
      '--model',
      modelDirectory,
      '--steps',
      '1',
      '--group-size',
      '2',
      '--pack-size',
      '2',
      '--run-dir',
      runDirectory,
      '--max-tokens',
      '6',
      '--update-max-tokens',
      '6',
    ];
    const run = capture();
    await runTrainCod({ argv, output: run.output });
    const records = readFileSync(
      join(runDirectory, 'packs', 'step-000001.jsonl'),
      'utf8',
    )
      .trim()
      .split('\n')
      .map((line) => packRunRecordSchema.parse(JSON.parse(line)));
    expect(records).toHaveLength(2);
    for (const record of records) {
      expect(record.mode).toBe('train');
      expect(record.advantages).not.toBeNull();
      expect(record.updates).toHaveLength(1);
      expect(record.solves[1]!.hints).toBe(record.updates[0]!.hints);
    }
    expect(
      existsSync(
        join(runDirectory, 'checkpoints', 'step-000001', 'model.safetensors'),
      ),
    ).toBe(true);
    expect(
      codTrainStateSchema.parse(
        JSON.parse(readFileSync(join(runDirectory, 'cod-state.json'), 'utf8')),
      ),
    ).toEqual({
      schemaVersion: 1,
      nextStep: 1,
      checkpoint: join('checkpoints', 'step-000001'),
    });
    const config = codRunConfigSchema.parse(
      JSON.parse(readFileSync(join(runDirectory, 'config.json'), 'utf8')),
    );
    expect(config).toMatchObject({
      method: 'cod',
      steps: 1,
      groupSize: 2,
      packSize: 2,
      evalPacks: 2,
      evalPackSize: 8,
      initialModel: modelDirectory,
    });
    expect(existsSync(join(runDirectory, 'packs', 'eval-000000.jsonl'))).toBe(
      true,
    );
    // seal report reads what the run wrote: the position curve before and after.
    const report = capture();
    await runReport({
      argv: [runDirectory, '--no-verify'],
      output: report.output,
    });
    expect(report.lines.filter((line) => line.startsWith('  packs '))).toEqual([
      expect.stringMatching(
        /^ {2}packs before training: success by position( \d+%){8} \(2 pack runs\)$/,
      ),
      expect.stringMatching(/^ {2}packs after step 1: success by position/),
    ]);
    const resumed = capture();
    await runTrainCod({
      argv: [...argv, '--steps', '1'],
      output: resumed.output,
    });
    expect(
      resumed.lines.some((line) => line.includes('resuming after step 1')),
    ).toBe(true);
    expect(resumed.lines.some((line) => line.startsWith('  step '))).toBe(
      false,
    );
  });

  it('should resume a killed run after its last step with nothing lost, and refuse other sizes', async () => {
    const runDirectory = join(root, 'killed');
    const argv = [
      '--method',
      'cod',
      '--preset',
      'smoke',
      '--model',
      modelDirectory,
      '--group-size',
      '2',
      '--pack-size',
      '2',
      '--eval-packs',
      '1',
      '--run-dir',
      runDirectory,
      '--max-tokens',
      '4',
      '--update-max-tokens',
      '4',
    ];
    await runTrainCod({
      argv: [...argv, '--steps', '1'],
      output: capture().output,
    });
    const packs = join(runDirectory, 'packs');
    const firstStep = readFileSync(join(packs, 'step-000001.jsonl'), 'utf8');
    const before = readFileSync(join(packs, 'eval-000000.jsonl'), 'utf8');
    // A kill during step 2: a half-written step file and a checkpoint the state does not name yet.
    writeFileSync(
      join(packs, 'step-000002.jsonl.tmp'),
      '{"schemaVersion":1,"ty',
    );
    writeFileSync(join(runDirectory, 'checkpoints', 'step-000002'), 'torn');
    await expect(
      runTrainCod({
        argv: [...argv, '--steps', '2', '--pack-size', '3'],
        output: capture().output,
      }),
    ).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
    const resumed = capture();
    await runTrainCod({
      argv: [...argv, '--steps', '2'],
      output: resumed.output,
    });
    expect(resumed.lines.filter((line) => line.startsWith('  step '))).toEqual([
      expect.stringMatching(/^ {2}step 2\/2:/),
    ]);
    expect(readFileSync(join(packs, 'step-000001.jsonl'), 'utf8')).toBe(
      firstStep,
    );
    expect(readFileSync(join(packs, 'eval-000000.jsonl'), 'utf8')).toBe(before);
    expect(
      readFileSync(join(packs, 'step-000002.jsonl'), 'utf8').trim().split('\n'),
    ).toHaveLength(2);
    expect(existsSync(join(packs, 'eval-000002.jsonl'))).toBe(true);
    expect(readdirSync(join(runDirectory, 'checkpoints'))).toEqual([
      'step-000002',
    ]);
    expect(
      JSON.parse(readFileSync(join(runDirectory, 'cod-state.json'), 'utf8')),
    ).toMatchObject({ nextStep: 2 });
  });

  // A taskset too small for one pack cannot come from the CLI's sources (they
  // draw packs × pack size tasks from one taskset); buildPacks refuses it.
  it.each([
    [['--pack-size', '1'], 'INVALID_ARGUMENT', 2],
    [['--pack-size=0'], 'INVALID_ARGUMENT', 2],
    [['--eval-pack-size', '1'], 'INVALID_ARGUMENT', 2],
    [['--group-size', '1'], 'INVALID_ARGUMENT', 2],
    [['--eval-packs=-1'], 'INVALID_ARGUMENT', 2],
    [['--env', 'alchemy'], 'INVALID_ARGUMENT', 2],
    [['--format', 'verbose'], 'INVALID_ARGUMENT', 2],
    [['--eval-runs', '0'], 'INVALID_ARGUMENT', 2],
  ])(
    'should refuse %j before loading anything with %s (exit %i) and one line',
    async (flags, code, exit) => {
      const runDirectory = join(root, `refused-${flags.join('')}`);
      const error = await runTrainCod({
        argv: [
          '--method',
          'cod',
          '--model',
          join(root, 'no-model'),
          '--run-dir',
          runDirectory,
          ...flags,
        ],
        output: capture().output,
      }).then(
        () => undefined,
        (thrown: unknown) => toSealError(thrown),
      );
      expect(error?.code).toBe(code);
      expect(exitCodeFor(error!.code)).toBe(exit);
      expect(error!.message).not.toContain('\n');
      expect(existsSync(runDirectory)).toBe(false);
    },
  );

  it('should refuse the embedded preset off FrozenLake without a model, before building it', async () => {
    const runDirectory = join(root, 'embedded-bfcl');
    await expect(
      runTrainCod({
        argv: [
          '--method',
          'cod',
          '--preset',
          'embedded',
          '--env',
          'bfcl',
          '--run-dir',
          runDirectory,
        ],
        output: capture().output,
      }),
    ).rejects.toMatchObject({
      code: 'INVALID_ARGUMENT',
    });
    expect(existsSync(runDirectory)).toBe(false);
  });

  it('should refuse the literal preset on another environment or format without a model, before building it', async () => {
    for (const extra of [
      ['--env', 'frozen-lake'],
      ['--format', 'paper'],
    ]) {
      const runDirectory = join(root, `literal-${extra[1]}`);
      await expect(
        runTrainCod({
          argv: [
            '--method',
            'cod',
            '--preset',
            'literal',
            ...extra,
            '--run-dir',
            runDirectory,
          ],
          output: capture().output,
        }),
      ).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
      expect(existsSync(runDirectory)).toBe(false);
    }
  });

  it('should train the one-by-one control: every task with Hints: null, no update, and record the arm', async () => {
    const runDirectory = join(root, 'one-by-one');
    const argv = [
      '--method',
      'cod',
      '--model',
      modelDirectory,
      '--one-by-one',
      '--format',
      'compact',
      '--steps',
      '1',
      '--group-size',
      '2',
      '--pack-size',
      '2',
      '--eval-packs',
      '0',
      '--run-dir',
      runDirectory,
      '--max-tokens',
      '4',
    ];
    await runTrainCod({ argv, output: capture().output });
    const config = codRunConfigSchema.parse(
      JSON.parse(readFileSync(join(runDirectory, 'config.json'), 'utf8')),
    );
    expect(config).toMatchObject({ arm: 'one-by-one', format: 'compact' });
    const records = readFileSync(
      join(runDirectory, 'packs', 'step-000001.jsonl'),
      'utf8',
    )
      .trim()
      .split('\n')
      .map((line) => packRunRecordSchema.parse(JSON.parse(line)));
    expect(
      records.every(
        (record) =>
          record.updates.length === 0 &&
          record.solves.every((solve) => solve.hints === 'Hints: null'),
      ),
    ).toBe(true);
    // A CoD resume of the control's directory is refused.
    await expect(
      runTrainCod({
        argv: argv.filter((flag) => flag !== '--one-by-one'),
        output: capture().output,
      }),
    ).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
  });

  it('should refuse a state that names a missing checkpoint with FILE_NOT_FOUND', async () => {
    const runDirectory = join(root, 'lost-checkpoint');
    mkdirSync(runDirectory, { recursive: true });
    writeFileSync(
      join(runDirectory, 'cod-state.json'),
      JSON.stringify({
        schemaVersion: 1,
        nextStep: 3,
        checkpoint: 'checkpoints/step-000003',
      }),
    );
    await expect(
      runTrainCod({
        argv: [
          '--method',
          'cod',
          '--model',
          modelDirectory,
          '--run-dir',
          runDirectory,
        ],
        output: capture().output,
      }),
    ).rejects.toMatchObject({ code: 'FILE_NOT_FOUND' });
    writeFileSync(
      join(runDirectory, 'cod-state.json'),
      JSON.stringify({ schemaVersion: 1, nextStep: 'three' }),
    );
    await expect(
      runTrainCod({
        argv: [
          '--method',
          'cod',
          '--model',
          modelDirectory,
          '--run-dir',
          runDirectory,
        ],
        output: capture().output,
      }),
    ).rejects.toMatchObject({ code: 'INVALID_DATA' });
  });
});

import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { frozenLakeSystemPrompt, updateContextSystemPrompt } from '@seal/cod';
import { buildBpeTokenizer, copyFriendlyPretokenizerPattern, createModelConfig, createOrtPolicy } from '@seal/engine-ort';
import { packRunRecordSchema } from '@seal/spec';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Output } from '../ui/output';
import { requestsPacks, runEvalPacks } from './eval-packs';
import { requestsCod, runTrainCod } from './train-cod';

let root: string;
let modelDirectory: string;

/** A tiny random model saved as a checkpoint. */
beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), 'seal-cod-cli-'));
  modelDirectory = join(root, 'model');
  const tokenizer = buildBpeTokenizer({ corpus: [frozenLakeSystemPrompt(8), updateContextSystemPrompt], vocabSize: 600, pattern: copyFriendlyPretokenizerPattern });
  const config = createModelConfig({ vocabSize: 600, hiddenSize: 32, intermediateSize: 64, numLayers: 1, numHeads: 2, numKeyValueHeads: 1, maxPositionEmbeddings: 1024, initializerRange: 0.2 });
  const policy = await createOrtPolicy({ model: { config, seed: 4 }, tokenizer, worker: false, threads: 1 });
  await policy.save({ directory: modelDirectory });
  await policy.close();
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

function capture(): { output: Output; result: () => Record<string, unknown>; lines: string[] } {
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
    const argv = ['--packs', '2', '--pack-size', '3', '--model', modelDirectory, '--out', out, '--max-tokens', '8', '--update-max-tokens', '8'];
    const first = capture();
    await runEvalPacks({ argv, output: first.output });
    const positions = first.result()['positions'] as { position: number; runs: number }[];
    expect(positions.map((p) => [p.position, p.runs])).toEqual([
      [0, 2],
      [1, 2],
      [2, 2],
    ]);
    expect(first.lines.filter((line) => line.includes('position'))).toHaveLength(3);
    const records = readFileSync(out, 'utf8').trim().split('\n').map((line) => packRunRecordSchema.parse(JSON.parse(line)));
    expect(records.map((r) => r.strategy)).toEqual(['cod', 'cod']);
    const again = capture();
    await runEvalPacks({ argv, output: again.output });
    expect(again.result()['resumedPacks']).toBe(2);
    expect(again.result()['positions']).toEqual(first.result()['positions']);
  });

  it('should repeat one task per pack with --ralph', async () => {
    const out = join(root, 'ralph.jsonl');
    const run = capture();
    await runEvalPacks({ argv: ['--packs', '1', '--pack-size', '2', '--ralph', '--model', modelDirectory, '--out', out, '--max-tokens', '4', '--update-max-tokens', '4'], output: run.output });
    const [record] = readFileSync(out, 'utf8').trim().split('\n').map((line) => packRunRecordSchema.parse(JSON.parse(line)));
    expect(record!.strategy).toBe('ralph_sample');
    expect(record!.solves[0]!.taskId).toBe(record!.solves[1]!.taskId);
  });

  it('should refuse a pack size below 2 and a missing model by code', async () => {
    await expect(runEvalPacks({ argv: ['--packs', '2', '--pack-size', '1', '--model', modelDirectory], output: capture().output })).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
    await expect(runEvalPacks({ argv: ['--packs', '2'], output: capture().output })).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
  });
});

describe('seal train --method cod', () => {
  it('should train, write pack runs with hints and advantages, and resume after the last step', async () => {
    const runDirectory = join(root, 'run');
    const argv = ['--method', 'cod', '--preset', 'smoke', '--model', modelDirectory, '--steps', '1', '--group-size', '2', '--pack-size', '2', '--run-dir', runDirectory, '--max-tokens', '6', '--update-max-tokens', '6'];
    const run = capture();
    await runTrainCod({ argv, output: run.output });
    const records = readFileSync(join(runDirectory, 'packs', 'step-000001.jsonl'), 'utf8').trim().split('\n').map((line) => packRunRecordSchema.parse(JSON.parse(line)));
    expect(records).toHaveLength(4);
    for (const record of records) {
      expect(record.mode).toBe('train');
      expect(record.advantages).not.toBeNull();
      expect(record.updates).toHaveLength(1);
      expect(record.solves[1]!.hints).toBe(record.updates[0]!.hints);
    }
    expect(existsSync(join(runDirectory, 'checkpoint', 'model.safetensors'))).toBe(true);
    expect(JSON.parse(readFileSync(join(runDirectory, 'cod-state.json'), 'utf8'))).toEqual({ schemaVersion: 1, nextStep: 1 });
    expect(existsSync(join(runDirectory, 'packs', 'eval-000000.jsonl'))).toBe(true);
    const resumed = capture();
    await runTrainCod({ argv: [...argv, '--steps', '1'], output: resumed.output });
    expect(resumed.lines.some((line) => line.includes('resuming after step 1'))).toBe(true);
    expect(resumed.lines.some((line) => line.startsWith('  step '))).toBe(false);
  });
});

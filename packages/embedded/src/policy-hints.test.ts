import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { embeddedPresets, embeddedTasks } from './embedded-preset';
import { readPolicyHints } from './policy-hints';

const smoke = embeddedPresets.smoke;

/** A run directory with one checkpoint of the smoke model's shape; returns the checkpoint. */
function smokeRun({
  runSeed,
  taskSeed,
}: {
  runSeed: number;
  taskSeed?: number;
}): string {
  const root = mkdtempSync(join(tmpdir(), 'seal-hints-'));
  onTestFinished(() => rmSync(root, { recursive: true, force: true }));
  const checkpoint = join(root, 'checkpoints', 'step-000002');
  mkdirSync(checkpoint, { recursive: true });
  writeFileSync(
    join(root, 'config.json'),
    JSON.stringify({
      schemaVersion: 1,
      runId: 'hints',
      steps: 2,
      seed: runSeed,
      sampling: { maxTokens: 64 },
      episode: {
        protocol: 'bfcl-python',
        promptMode: 'compact',
        maxModelCalls: 9,
      },
    }),
  );
  writeFileSync(
    join(checkpoint, 'config.json'),
    JSON.stringify({
      vocab_size: smoke.model.vocabSize,
      hidden_size: smoke.model.hiddenSize,
      intermediate_size: smoke.model.intermediateSize,
      num_hidden_layers: smoke.model.numLayers,
      num_attention_heads: smoke.model.numHeads,
      num_key_value_heads: smoke.model.numKeyValueHeads,
    }),
  );
  if (taskSeed !== undefined) {
    const suite = embeddedTasks({ ...smoke, seed: taskSeed });
    const tasks = [
      ...suite.train.slice(0, 3),
      ...suite.testId,
      ...suite.testOod,
    ];
    writeFileSync(
      join(root, 'tasks.jsonl'),
      tasks.map((task) => `${JSON.stringify(task)}\n`).join(''),
    );
  }
  return checkpoint;
}

describe('readPolicyHints of a run checkpoint', () => {
  it("should name the suite the run evaluated on, not the run's RL seed", async () => {
    // Since `seal train --seed` is the RL seed alone, a seed-3 run's tasks are the preset's.
    const checkpoint = smokeRun({ runSeed: 3, taskSeed: smoke.seed });
    expect(await readPolicyHints(checkpoint)).toEqual({
      protocol: 'bfcl-python',
      promptMode: 'compact',
      maxModelCalls: 9,
      maxTokens: 64,
      preset: { name: 'smoke', seed: smoke.seed },
    });
  });

  it('should keep the run seed for a run whose tasks were generated from it', async () => {
    const checkpoint = smokeRun({ runSeed: 3, taskSeed: 3 });
    expect((await readPolicyHints(checkpoint)).preset).toEqual({
      name: 'smoke',
      seed: 3,
    });
  });

  it("should fall back to the preset's suite without a tasks file", async () => {
    const checkpoint = smokeRun({ runSeed: 3 });
    expect((await readPolicyHints(checkpoint)).preset).toEqual({
      name: 'smoke',
      seed: smoke.seed,
    });
  });

  it('should give no hints for a run whose config.json is not a run config', async () => {
    const checkpoint = smokeRun({ runSeed: 3 });
    writeFileSync(
      join(checkpoint, '..', '..', 'config.json'),
      JSON.stringify({ seed: 3, episode: { promptMode: 'compact' } }),
    );
    expect(await readPolicyHints(checkpoint)).toEqual({});
  });

  it('should give no hints for a directory that is neither a warm start nor a checkpoint', async () => {
    const root = mkdtempSync(join(tmpdir(), 'seal-hints-'));
    onTestFinished(() => rmSync(root, { recursive: true, force: true }));
    expect(await readPolicyHints(root)).toEqual({});
  });
});

describe('readPolicyHints of a warm start', () => {
  it("should read the compact prompt and the preset's budgets from warmstart.json", async () => {
    const root = mkdtempSync(join(tmpdir(), 'seal-hints-'));
    onTestFinished(() => rmSync(root, { recursive: true, force: true }));
    writeFileSync(
      join(root, 'warmstart.json'),
      JSON.stringify({
        key: 'k',
        preset: smoke,
        drillLosses: [1],
        losses: [0.5],
      }),
    );
    expect(await readPolicyHints(root)).toEqual({
      protocol: 'bfcl-python',
      promptMode: 'compact',
      maxTokens: smoke.rl.maxTokens,
      maxModelCalls: smoke.rl.maxModelCalls,
      preset: { name: 'smoke', seed: smoke.seed },
    });
  });

  it('should give no hints for a warmstart.json that is not a manifest', async () => {
    const root = mkdtempSync(join(tmpdir(), 'seal-hints-'));
    onTestFinished(() => rmSync(root, { recursive: true, force: true }));
    writeFileSync(
      join(root, 'warmstart.json'),
      JSON.stringify({ preset: { name: 'smoke', seed: 1 } }),
    );
    expect(await readPolicyHints(root)).toEqual({});
  });
});

import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  buildBpeTokenizer,
  createModelConfig,
  createOrtPolicy,
} from '@seal/engine-ort';
import { afterAll, describe, expect, it } from 'vitest';
import {
  embeddedPresets,
  warmStartKey,
  type EmbeddedPreset,
} from './embedded-preset';
import { prepareEmbedded, readWarmStartManifest } from './warm-start';

const smoke = embeddedPresets.smoke;
const stage = {
  steps: 3,
  batchSize: 4,
  learningRate: 1e-3,
  drillShare: 0.5,
  repeats: 16,
  seed: 7,
};
// A tiny model and the smoke preset's suite: the stage's plumbing, not its effect.
const consolidated: EmbeddedPreset = {
  ...smoke,
  name: 'smoke-consolidated',
  model: {
    vocabSize: 320,
    hiddenSize: 32,
    intermediateSize: 64,
    numLayers: 1,
    numHeads: 2,
    numKeyValueHeads: 1,
    maxPositionEmbeddings: 512,
  },
  tasks: { train: 16, testId: 4, testOod: 4 },
  warmup: { ...smoke.warmup, tasks: 16, consolidation: stage },
};

/** Writes a parent warm start (untrained tiny model) where the stage looks for it. */
async function writeParent(directory: string): Promise<void> {
  const tokenizer = buildBpeTokenizer({
    corpus: [
      "Repeat exactly: plan the offsite [cat(file_name='minutes.md')]",
      'A required value is missing. Please give it.',
    ],
    vocabSize: consolidated.model.vocabSize,
  });
  const policy = await createOrtPolicy({
    model: { config: createModelConfig(consolidated.model), seed: 3 },
    tokenizer,
  });
  try {
    await policy.save({ directory });
  } finally {
    await policy.close();
  }
  await writeFile(
    join(directory, 'warmstart.json'),
    JSON.stringify({
      key: 'parent',
      preset: { ...consolidated, warmup: parentWarmup },
      drillLosses: [],
      losses: [],
    }),
  );
}
const { consolidation: _stage, ...parentWarmup } = consolidated.warmup;

describe('the consolidation stage of a warm start', () => {
  const directories: string[] = [];
  afterAll(async () => {
    for (const directory of directories)
      await rm(directory, { recursive: true, force: true });
  });

  it('should train only the stage, from the same preset without it, and cache both', async () => {
    const cache = await mkdtemp(join(tmpdir(), 'seal-consolidation-'));
    directories.push(cache);
    const parentDirectory = join(
      cache,
      `warmstart-${warmStartKey({ ...consolidated, warmup: parentWarmup })}`,
    );
    await writeParent(parentDirectory);
    const parentWeights = await readFile(
      join(parentDirectory, 'model.safetensors'),
    );
    const phases: string[] = [];
    const stageSteps: number[] = [];
    const assets = await prepareEmbedded({
      preset: consolidated,
      cacheDirectory: cache,
      onProgress: (progress) => {
        if (progress.type === 'phase') phases.push(progress.phase);
        else if (progress.stage === 'consolidation')
          stageSteps.push(progress.step);
      },
    });
    expect(assets.source).toBe('trained');
    // The parent came from the cache: only the stage trained.
    expect(phases).toContain('consolidation');
    expect(phases).not.toContain('demonstrations');
    // At most the stage's steps (examples longer than the tiny model's
    // context are left out, so a tiny model may run fewer).
    expect(stageSteps.length).toBeGreaterThan(0);
    expect(stageSteps.length).toBeLessThanOrEqual(stage.steps);
    expect(assets.warmStartDirectory).not.toBe(parentDirectory);
    const manifest = await readWarmStartManifest(assets.warmStartDirectory);
    expect(manifest.key).toBe(warmStartKey(consolidated));
    expect(manifest.preset.warmup.consolidation).toEqual(stage);
    expect(manifest.losses).toHaveLength(stageSteps.length);
    expect(
      (
        await readFile(join(assets.warmStartDirectory, 'model.safetensors'))
      ).equals(parentWeights),
    ).toBe(false);
    // The parent is left as it was.
    expect(
      (await readFile(join(parentDirectory, 'model.safetensors'))).equals(
        parentWeights,
      ),
    ).toBe(true);
    // The tokenizer is the parent's: the stage changes weights only.
    expect(
      await readFile(join(assets.warmStartDirectory, 'tokenizer.json'), 'utf8'),
    ).toBe(await readFile(join(parentDirectory, 'tokenizer.json'), 'utf8'));

    // A second preparation reads the cache and trains nothing.
    const again = await prepareEmbedded({
      preset: consolidated,
      cacheDirectory: cache,
    });
    expect(again.source).toBe('cache');
    expect(again.warmStartDirectory).toBe(assets.warmStartDirectory);
  }, 120_000);
});

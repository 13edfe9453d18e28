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
  type CodRunConfig,
} from '@seal/spec';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PackEnvironment } from '../environment/pack-environment';
import {
  createFrozenLakeEnvironment,
  frozenLakeSystemPrompt,
} from '../frozen-lake/frozen-lake-environment';
import { generateFrozenLakeTasks } from '../frozen-lake/frozen-lake-tasks';
import { updateContextSystemPrompt } from '../hints/update-context-prompt';
import { buildPacks, type Pack } from '../packs/build-packs';
import {
  codStateFile,
  readCodResume,
  runCodTraining,
  type CodPackSource,
  type CodTrainingEvent,
} from './run-cod-training';

let root: string;
let modelDirectory: string;

/** A tiny random model (about 30k parameters) saved as the starting checkpoint. */
beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), 'seal-cod-training-'));
  modelDirectory = join(root, 'model');
  const tokenizer = buildBpeTokenizer({
    corpus: [frozenLakeSystemPrompt(8), updateContextSystemPrompt],
    vocabSize: 600,
    pattern: copyFriendlyPretokenizerPattern,
  });
  const policy = await createOrtPolicy({
    model: {
      config: createModelConfig({
        vocabSize: 600,
        hiddenSize: 32,
        intermediateSize: 64,
        numLayers: 1,
        numHeads: 2,
        numKeyValueHeads: 1,
        maxPositionEmbeddings: 1024,
        initializerRange: 0.2,
      }),
      seed: 4,
    },
    tokenizer,
    worker: false,
    threads: 1,
  });
  await policy.save({ directory: modelDirectory });
  await policy.close();
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

/** FrozenLake packs drawn per round, as the CLI's sources draw them. */
function frozenLakeSource(seed: number): CodPackSource {
  return {
    environment: createFrozenLakeEnvironment({
      maxSteps: 3,
    }) as PackEnvironment<unknown>,
    packs: ({ count, packSize, strategy, round }) =>
      buildPacks({
        tasks: generateFrozenLakeTasks({
          seed: seed + round * 7919,
          count: count * packSize,
          maxSize: 4,
        }),
        taskId: (t) => t.taskId,
        tasksetId: (t) => t.tasksetId,
        packSize,
        strategy,
        seed: seed + round,
      }).slice(0, count) as Pack<unknown>[],
  };
}

const baseConfig: CodRunConfig = {
  schemaVersion: 1,
  runId: 'test-cod',
  method: 'cod',
  preset: 'smoke',
  environment: 'frozen-lake',
  environmentId: 'frozen-lake-obscure',
  seed: 3,
  steps: 2,
  packsPerStep: 1,
  groupSize: 2,
  packSize: 2,
  evalPacks: 1,
  evalPackSize: 2,
  learningRate: 1e-3,
  temperature: 1,
  maxTokens: 4,
  updateMaxTokens: 4,
  initialModel: 'model',
  format: 'paper',
  arm: 'cod',
};

/** Opens the run directory as the CLI does and trains to `config.steps`. */
async function train(
  runDirectory: string,
  config: CodRunConfig,
): Promise<{ events: CodTrainingEvent[] }> {
  const resume = readCodResume({ runDirectory, config });
  const policy = await createOrtPolicy({
    model: { directory: resume.checkpoint ?? modelDirectory },
    worker: false,
    threads: 1,
  });
  const events: CodTrainingEvent[] = [];
  try {
    await runCodTraining({
      policy,
      runDirectory,
      config,
      state: resume.state,
      train: frozenLakeSource(config.seed),
      eval: frozenLakeSource(config.seed + 1_000_003),
      onEvent: (event) => events.push(event),
    });
  } finally {
    await policy.close();
  }
  return { events };
}

const readLines = (path: string) => readFileSync(path, 'utf8');

describe('readCodResume', () => {
  it('should start a new run at step 0 in an empty or missing directory', () => {
    expect(
      readCodResume({ runDirectory: join(root, 'none'), config: baseConfig }),
    ).toEqual({
      state: { schemaVersion: 1, nextStep: 0 },
      checkpoint: undefined,
      initialModel: undefined,
    });
  });

  it('should refuse a state naming a missing checkpoint (FILE_NOT_FOUND) and a state that does not parse (INVALID_DATA)', () => {
    const runDirectory = join(root, 'lost');
    mkdirSync(runDirectory, { recursive: true });
    const statePath = join(runDirectory, codStateFile);
    writeFileSync(
      statePath,
      JSON.stringify({
        schemaVersion: 1,
        nextStep: 2,
        checkpoint: 'checkpoints/step-000002',
      }),
    );
    expect(() =>
      readCodResume({ runDirectory, config: baseConfig }),
    ).toThrowError(expect.objectContaining({ code: 'FILE_NOT_FOUND' }));
    writeFileSync(statePath, JSON.stringify({ schemaVersion: 1 }));
    expect(() =>
      readCodResume({ runDirectory, config: baseConfig }),
    ).toThrowError(expect.objectContaining({ code: 'INVALID_DATA' }));
  });
});

describe('runCodTraining', () => {
  it('should train, evaluate, rotate checkpoints and resume after its last step to the records of an uninterrupted run', async () => {
    const whole = join(root, 'whole');
    const { events } = await train(whole, baseConfig);
    expect(
      events.map((event) =>
        event.type === 'step-end' ? `step ${event.step}` : event.when,
      ),
    ).toEqual(['before', 'step 1', 'step 2', 'after']);
    expect(
      readdirSync(join(whole, 'packs')).sort((a, b) => a.localeCompare(b)),
    ).toEqual([
      'eval-000000.jsonl',
      'eval-000002.jsonl',
      'step-000001.jsonl',
      'step-000002.jsonl',
    ]);
    const stepRecords = readLines(join(whole, 'packs', 'step-000002.jsonl'))
      .trim()
      .split('\n')
      .map((line) => packRunRecordSchema.parse(JSON.parse(line)));
    expect(stepRecords).toHaveLength(2);
    expect(stepRecords.every((record) => record.advantages !== null)).toBe(
      true,
    );
    // Only the last checkpoint stays, and the state names it.
    expect(readdirSync(join(whole, 'checkpoints'))).toEqual(['step-000002']);
    expect(
      codTrainStateSchema.parse(
        JSON.parse(readLines(join(whole, codStateFile))),
      ),
    ).toEqual({
      schemaVersion: 1,
      nextStep: 2,
      checkpoint: join('checkpoints', 'step-000002'),
    });
    expect(
      codRunConfigSchema.parse(
        JSON.parse(readLines(join(whole, 'config.json'))),
      ),
    ).toEqual(baseConfig);

    // The same run stopped after step 1 (and a pre-schema checkpoint/ left
    // behind), then resumed to 2 steps: the same files, one checkpoint.
    const split = join(root, 'split');
    await train(split, { ...baseConfig, steps: 1 });
    mkdirSync(join(split, 'checkpoint'));
    const resume = readCodResume({ runDirectory: split, config: baseConfig });
    expect(resume.state.nextStep).toBe(1);
    expect(resume.checkpoint).toBe(join(split, 'checkpoints', 'step-000001'));
    expect(resume.initialModel).toBe('model');
    const { events: resumed } = await train(split, baseConfig);
    expect(
      resumed.map((event) =>
        event.type === 'step-end' ? `step ${event.step}` : event.when,
      ),
    ).toEqual(['step 2', 'after']);
    for (const file of ['step-000001.jsonl', 'step-000002.jsonl'])
      expect(readLines(join(split, 'packs', file))).toBe(
        readLines(join(whole, 'packs', file)),
      );
    expect(readdirSync(join(split, 'checkpoints'))).toEqual(['step-000002']);
    expect(existsSync(join(split, 'checkpoint'))).toBe(false);

    // Other sizes than the run's are refused, naming what changed.
    expect(() =>
      readCodResume({
        runDirectory: split,
        config: { ...baseConfig, packSize: 3, arm: 'one-by-one' },
      }),
    ).toThrowError(
      expect.objectContaining({
        code: 'INVALID_ARGUMENT',
        details: { changed: ['packSize', 'arm'] },
      }),
    );
    // A longer run may resume: only the step count grows.
    expect(
      readCodResume({
        runDirectory: split,
        config: { ...baseConfig, steps: 5 },
      }).state.nextStep,
    ).toBe(2);
  });
});

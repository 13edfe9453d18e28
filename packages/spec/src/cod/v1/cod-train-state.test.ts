import { describe, expect, it } from 'vitest';
import { parseWithSchema } from '../../shared/parse';
import { codRunConfigSchema } from './cod-run-config';
import { codTrainStateSchema } from './cod-train-state';

describe('codTrainStateSchema', () => {
  it('should accept the state a run writes', () => {
    expect(
      codTrainStateSchema.parse({ schemaVersion: 1, nextStep: 2 }),
    ).toEqual({ schemaVersion: 1, nextStep: 2 });
    const state = {
      schemaVersion: 1,
      nextStep: 2,
      checkpoint: 'checkpoints/step-000002',
    };
    expect(codTrainStateSchema.parse(state)).toEqual(state);
  });

  it('should refuse another version or a negative step with INVALID_DATA', () => {
    for (const value of [
      { schemaVersion: 2, nextStep: 0 },
      { schemaVersion: 1, nextStep: -1 },
      { schemaVersion: 1 },
    ]) {
      expect(() =>
        parseWithSchema({
          schema: codTrainStateSchema,
          value,
          source: 'cod-state.json',
        }),
      ).toThrow(expect.objectContaining({ code: 'INVALID_DATA' }));
    }
  });
});

describe('codRunConfigSchema', () => {
  const config = {
    schemaVersion: 1,
    runId: 'smoke-cod-frozen-lake-s0',
    method: 'cod',
    preset: 'smoke',
    environment: 'frozen-lake',
    environmentId: 'frozen-lake-obscure',
    seed: 0,
    steps: 2,
    packsPerStep: 1,
    groupSize: 2,
    packSize: 4,
    evalPacks: 2,
    evalPackSize: 8,
    learningRate: 1e-5,
    temperature: 1,
    maxTokens: 16,
    updateMaxTokens: 64,
    initialModel: '/tmp/model',
  };

  it('should accept a resolved configuration', () => {
    expect(codRunConfigSchema.parse(config)).toEqual(config);
  });

  it('should refuse a pack size below 2 and another method', () => {
    expect(
      codRunConfigSchema.safeParse({ ...config, packSize: 1 }).success,
    ).toBe(false);
    expect(
      codRunConfigSchema.safeParse({ ...config, method: 'seal' }).success,
    ).toBe(false);
  });
});

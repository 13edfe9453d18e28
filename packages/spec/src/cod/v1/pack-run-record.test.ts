import { describe, expect, it } from 'vitest';
import { packRunRecordSchema } from './pack-run-record';

const solve = {
  position: 0,
  taskId: 't0',
  episodeId: 'p#0/solve-0',
  hints: 'Hints: null',
  messages: [{ role: 'system', content: 'rules' }],
  outcome: 1,
  success: true,
  reward: 0.9,
  feedback: 'Success! Reached the goal',
  stepsUsed: 1,
  maxSteps: 8,
  responseTokens: 5,
  endReason: 'finished',
};

const record = {
  schemaVersion: 1,
  type: 'pack-run',
  packRunId: 'p#0',
  packId: 'p',
  packIndex: 0,
  packSeed: 7,
  tasksetId: 'frozen-lake-4x5',
  strategy: 'cod',
  environmentId: 'frozen-lake-obscure',
  regularity: 'Direction 1 = up',
  runIndex: 0,
  mode: 'eval',
  policyStep: null,
  solves: [solve, { ...solve, position: 1 }],
  updates: [
    {
      afterPosition: 0,
      previousHints: 'Hints: null',
      response: 'x',
      hints: 'Hints: no hint available.',
      parsed: false,
      failure: 'missing-start',
      trailingText: false,
      reward: -0.1,
      responseTokens: 1,
    },
  ],
  taskRewards: [0.9, 0.9],
  hintRewards: [-0.1],
  advantages: null,
};

describe('packRunRecordSchema', () => {
  it('should accept a pack run', () => {
    expect(packRunRecordSchema.parse(record).updates[0]!.failure).toBe(
      'missing-start',
    );
  });

  it('should refuse a positive hint reward, an unknown strategy and another schema version', () => {
    expect(
      packRunRecordSchema.safeParse({ ...record, hintRewards: [0.1] }).success,
    ).toBe(false);
    expect(
      packRunRecordSchema.safeParse({ ...record, strategy: 'ralph' }).success,
    ).toBe(false);
    expect(
      packRunRecordSchema.safeParse({ ...record, schemaVersion: 2 }).success,
    ).toBe(false);
  });
});

import { describe, expect, it } from 'vitest';
import { parseWithSchema, safeParseWithSchema } from '../../shared/parse';
import { runEventSchema } from './run-event';
import { trainerStateSchema } from './trainer-state';

/** A train-step line as the first writers recorded it (before `samples`). */
const earlyTrainStep = {
  schemaVersion: 1,
  type: 'train-step',
  step: 1,
  method: 'seal',
  rewardMean: 0.125,
  successRate: 0.125,
  tagCounts: { pass: 6, state_mismatch: 1 },
  loss: 0.5,
  gradNorm: 0.5,
  kl: 0.001,
  clipFraction: 0.05,
  skippedUpdates: 0,
  droppedGroups: 0,
  overlayHash: 'e6671f2ba448637f',
  tagWeights: { pass: 1 },
  timing: { model: 1.06, other: 21.1, total: 22.2, parts: { verify: 4.6 } },
};

describe('runEventSchema', () => {
  it('should read a train-step written before samples were recorded, with no samples', () => {
    const event = parseWithSchema({
      schema: runEventSchema,
      value: earlyTrainStep,
    });
    expect(event).toMatchObject({ type: 'train-step', step: 1, samples: [] });
  });

  it('should tell the kinds of event apart by type', () => {
    const event = parseWithSchema({
      schema: runEventSchema,
      value: {
        schemaVersion: 1,
        type: 'rollback',
        step: 2,
        toStep: 0,
        windowGain: -0.2,
        learningRate: 1.5e-4,
      },
    });
    expect(event.type).toBe('rollback');
  });

  it('should refuse an unknown kind and a record missing a field with INVALID_DATA', () => {
    for (const value of [
      { ...earlyTrainStep, type: 'train-stop' },
      { ...earlyTrainStep, loss: undefined },
      { ...earlyTrainStep, schemaVersion: 2 },
    ]) {
      const result = safeParseWithSchema({
        schema: runEventSchema,
        value,
        source: 'events.jsonl:1',
      });
      expect(result.success).toBe(false);
      if (!result.success) expect(result.error.code).toBe('INVALID_DATA');
    }
  });
});

describe('trainerStateSchema', () => {
  it('should round-trip a trainer state with a curriculum and a gap monitor', () => {
    const state = {
      schemaVersion: 1 as const,
      step: 6,
      curriculum: {
        schemaVersion: 1 as const,
        stage: 1,
        scores: [0.25],
        stageStartStep: 3,
        transitions: [
          {
            step: 2,
            from: 0,
            to: 1,
            reason: 'plateau' as const,
            validation: 0.125,
          },
        ],
      },
      gapMonitor: {
        gains: [0.1, -0.05],
        bestStep: 4,
        bestGain: 0.02,
        rollbacks: 1,
        learningRateScale: 0.5,
      },
    };
    expect(
      parseWithSchema({
        schema: trainerStateSchema,
        value: JSON.parse(JSON.stringify(state)),
      }),
    ).toEqual(state);
  });
});

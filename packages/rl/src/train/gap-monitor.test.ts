import type { GapMonitorState } from '@seal/spec';
import { describe, expect, it } from 'vitest';
import {
  gapMonitorSettingsSchema,
  initialGapMonitorState,
  observeGap,
  type GapDecision,
} from './gap-monitor';

const settings = gapMonitorSettingsSchema.parse({
  window: 2,
  threshold: -0.1,
  learningRateFactor: 0.5,
  maxRollbacks: 1,
});

function play(gains: number[]): {
  state: GapMonitorState;
  decisions: GapDecision[];
} {
  let state = initialGapMonitorState();
  const decisions: GapDecision[] = [];
  gains.forEach((gain, i) => {
    const next = observeGap({ state, step: i + 1, gain, settings });
    state = next.state;
    decisions.push(next.decision);
  });
  return { state, decisions };
}

describe('observeGap', () => {
  it('waits for a full window, then tracks the best window', () => {
    const { state, decisions } = play([0.1, 0.3, 0.0]);
    expect(decisions[0]).toEqual({
      action: 'continue',
      windowGain: undefined,
      newBest: false,
    });
    expect(decisions[1]).toEqual({
      action: 'continue',
      windowGain: 0.2,
      newBest: true,
    });
    expect(decisions[2]).toMatchObject({ action: 'continue', newBest: false });
    expect(decisions[2]!.windowGain).toBeCloseTo(0.15, 12);
    expect(state.bestStep).toBe(2);
  });

  it('rolls back to the best step and halves the learning rate when the window falls below the threshold', () => {
    const { state, decisions } = play([0.1, 0.3, -0.3, -0.1]);
    // Windows: step 2 → 0.2 (best), step 3 → 0.0, step 4 → −0.2 < −0.1: roll back to step 2.
    expect(decisions[3]).toEqual({
      action: 'rollback',
      windowGain: -0.2,
      toStep: 2,
      learningRateScale: 0.5,
    });
    expect(state).toEqual({
      gains: [],
      bestStep: 2,
      bestGain: 0.2,
      rollbacks: 1,
      learningRateScale: 0.5,
    });
  });

  it('rolls back to the starting weights when no window was ever positive', () => {
    const { decisions } = play([-0.2, -0.2]);
    expect(decisions[1]).toEqual({
      action: 'rollback',
      windowGain: -0.2,
      toStep: 0,
      learningRateScale: 0.5,
    });
  });

  it('starts a new window after a rollback and stops rolling back after maxRollbacks', () => {
    const { state, decisions } = play([-0.2, -0.2, -0.3, -0.3]);
    expect(decisions.map((d) => d.action)).toEqual([
      'continue',
      'rollback',
      'continue',
      'continue',
    ]);
    expect(state.rollbacks).toBe(1);
    expect(state.learningRateScale).toBe(0.5);
  });

  it('rejects settings out of range with the field named', () => {
    expect(() => gapMonitorSettingsSchema.parse({ window: 0 })).toThrow(
      /window/,
    );
    expect(() =>
      gapMonitorSettingsSchema.parse({ learningRateFactor: 2 }),
    ).toThrow(/learningRateFactor/);
    expect(() => gapMonitorSettingsSchema.parse({ windows: 3 })).toThrow(
      /windows/,
    );
  });
});

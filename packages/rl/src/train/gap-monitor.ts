import type { GapMonitorState } from '@seal/spec';
import * as z from 'zod';

/**
 * Settings of the gap monitor: with the frozen baseline on, the run watches
 * the policy's paired gain over the frozen warm start (same tasks, same
 * sampling seeds) and rolls back to its best weights when the gain, averaged
 * over a window of steps, falls below a threshold.
 */
export const gapMonitorSettingsSchema = z
  .object({
    /** Steps the gain is averaged over (the trailing window). */
    window: z.number().int().min(1).max(1000).default(4),
    /** Roll back when the window's mean gain (a fraction, e.g. -0.05 for −5 points) falls below this. */
    threshold: z.number().min(-1).max(1).default(-0.05),
    /** The learning rate is multiplied by this at each rollback. */
    learningRateFactor: z.number().gt(0).lte(1).default(0.5),
    /** At most this many rollbacks in a run (then the monitor only records). */
    maxRollbacks: z.number().int().nonnegative().default(3),
  })
  .strict();

/** See {@link gapMonitorSettingsSchema}. */
export type GapMonitorSettings = z.output<typeof gapMonitorSettingsSchema>;

/** What the monitor decides after a step. */
export type GapDecision =
  | { action: 'continue'; windowGain: number | undefined; newBest: boolean }
  | {
      action: 'rollback';
      windowGain: number;
      toStep: number;
      learningRateScale: number;
    };

/** The state of a run that has not trained yet: the starting weights are the best, at gain 0. */
export function initialGapMonitorState(): GapMonitorState {
  return {
    gains: [],
    bestStep: 0,
    bestGain: 0,
    rollbacks: 0,
    learningRateScale: 1,
  };
}

/**
 * One step of the gap monitor (a pure function). The step's paired gain is
 * appended; once a full window is in, its mean is compared with the best so
 * far (a new best means the caller keeps this step's weights) and with the
 * threshold (below it, the caller restores the best weights and scales the
 * learning rate). A rollback starts a new window.
 */
export function observeGap({
  state,
  step,
  gain,
  settings,
}: {
  state: GapMonitorState;
  step: number;
  gain: number;
  settings: GapMonitorSettings;
}): { state: GapMonitorState; decision: GapDecision } {
  const gains = [...state.gains, gain];
  if (gains.length < settings.window) {
    return {
      state: { ...state, gains },
      decision: { action: 'continue', windowGain: undefined, newBest: false },
    };
  }
  const recent = gains.slice(-settings.window);
  const windowGain = recent.reduce((a, b) => a + b, 0) / recent.length;
  if (
    windowGain < settings.threshold &&
    state.rollbacks < settings.maxRollbacks
  ) {
    const learningRateScale =
      state.learningRateScale * settings.learningRateFactor;
    return {
      state: {
        ...state,
        gains: [],
        rollbacks: state.rollbacks + 1,
        learningRateScale,
      },
      decision: {
        action: 'rollback',
        windowGain,
        toStep: state.bestStep,
        learningRateScale,
      },
    };
  }
  if (windowGain > state.bestGain) {
    return {
      state: { ...state, gains, bestStep: step, bestGain: windowGain },
      decision: { action: 'continue', windowGain, newBest: true },
    };
  }
  return {
    state: { ...state, gains },
    decision: { action: 'continue', windowGain, newBest: false },
  };
}

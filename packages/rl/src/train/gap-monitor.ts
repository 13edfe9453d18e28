import {
  gapMonitorSettingsSchema,
  type GapMonitorSettings,
  type GapMonitorState,
} from '@seal/spec';

/** The gap monitor's settings (`config.json`'s `gapMonitor`, a `@seal/spec` schema). */
export { gapMonitorSettingsSchema, type GapMonitorSettings };

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

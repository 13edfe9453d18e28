import { curriculumStateSchema, type CurriculumState } from '@seal/spec';
import { describe, expect, it } from 'vitest';
import {
  advanceCurriculum,
  envTuningStages,
  initialCurriculumState,
  stageEndReason,
  type PlateauSettings,
} from './curriculum';

/** Runs steps 1..n with a validation score per step (undefined: no validation that step). */
function runSteps(
  scores: readonly (number | undefined)[],
  settings: PlateauSettings,
): CurriculumState {
  let state = initialCurriculumState();
  scores.forEach((score, i) => {
    state = advanceCurriculum({
      state,
      step: i + 1,
      ...(score === undefined ? {} : { score }),
      settings,
    });
  });
  return state;
}

describe('stageEndReason', () => {
  it('should end a stage whose validation scores stopped improving by more than minDelta', () => {
    const state = { ...initialCurriculumState(), scores: [0.3, 0.3, 0.29] };
    expect(
      stageEndReason({
        state,
        step: 3,
        settings: { patience: 2, minDelta: 0.01 },
      }),
    ).toBe('plateau');
    // A gain of more than minDelta within the patience window is progress.
    const improving = { ...state, scores: [0.3, 0.3, 0.32] };
    expect(
      stageEndReason({
        state: improving,
        step: 3,
        settings: { patience: 2, minDelta: 0.01 },
      }),
    ).toBeUndefined();
    expect(
      stageEndReason({
        state: improving,
        step: 3,
        settings: { patience: 2, minDelta: 0.1 },
      }),
    ).toBe('plateau');
  });

  it('should wait for minEvaluations before calling a plateau', () => {
    const state = { ...initialCurriculumState(), scores: [0.5, 0.5] };
    expect(
      stageEndReason({
        state,
        step: 2,
        settings: { patience: 1, minEvaluations: 2 },
      }),
    ).toBe('plateau');
    expect(
      stageEndReason({
        state,
        step: 2,
        settings: { patience: 1, minEvaluations: 3 },
      }),
    ).toBeUndefined();
  });

  it('should end a stage once it has trained its step budget', () => {
    const state = { ...initialCurriculumState(), stageStartStep: 4 };
    expect(
      stageEndReason({ state, step: 6, settings: { maxStepsPerStage: 3 } }),
    ).toBeUndefined();
    expect(
      stageEndReason({ state, step: 7, settings: { maxStepsPerStage: 3 } }),
    ).toBe('budget');
  });

  it('should prefer plateau when both rules hold, and never end the last stage', () => {
    const state = { ...initialCurriculumState(), scores: [0.1, 0.1] };
    expect(
      stageEndReason({
        state,
        step: 9,
        settings: { patience: 1, maxStepsPerStage: 1 },
      }),
    ).toBe('plateau');
    const last = { ...state, stage: envTuningStages.length - 1 };
    expect(
      stageEndReason({
        state: last,
        step: 99,
        settings: { patience: 1, maxStepsPerStage: 1 },
      }),
    ).toBeUndefined();
  });
});

describe('advanceCurriculum', () => {
  it('should advance through all four stages on the step budget alone', () => {
    const state = runSteps(
      [
        undefined,
        undefined,
        undefined,
        undefined,
        undefined,
        undefined,
        undefined,
        undefined,
        undefined,
        undefined,
      ],
      {
        maxStepsPerStage: 3,
      },
    );
    expect(state.stage).toBe(3);
    expect(state.transitions).toEqual([
      { step: 3, from: 0, to: 1, reason: 'budget' },
      { step: 6, from: 1, to: 2, reason: 'budget' },
      { step: 9, from: 2, to: 3, reason: 'budget' },
    ]);
    expect(state.stageStartStep).toBe(9);
  });

  it('should advance on a plateau, starting the next stage from the score it was entered with', () => {
    const settings = { patience: 2, minEvaluations: 3, maxStepsPerStage: 100 };
    // Stage 1 rises, then stalls: 0.1, 0.3, 0.3, 0.3 → plateau after step 4.
    const state = runSteps([0.1, 0.3, 0.3, 0.3, 0.5, 0.4], settings);
    expect(state.transitions).toEqual([
      { step: 4, from: 0, to: 1, reason: 'plateau', validation: 0.3 },
    ]);
    // Stage 2 began from 0.3 and has improved on it: no plateau yet.
    expect(state.scores).toEqual([0.3, 0.5, 0.4]);
    expect(state.stage).toBe(1);
    const next = advanceCurriculum({ state, step: 7, score: 0.45, settings });
    expect(next.stage).toBe(2);
    expect(next.transitions.at(-1)).toEqual({
      step: 7,
      from: 1,
      to: 2,
      reason: 'plateau',
      validation: 0.45,
    });
    expect(next.scores).toEqual([0.45]);
  });

  it('should check the budget on steps without a validation score', () => {
    const state = runSteps([0.2, undefined, 0.2, undefined], {
      patience: 5,
      maxStepsPerStage: 2,
    });
    expect(state.transitions).toEqual([
      { step: 2, from: 0, to: 1, reason: 'budget' },
      { step: 4, from: 1, to: 2, reason: 'budget' },
    ]);
    // Entered without a score on that step: the new stage has none yet.
    expect(state.scores).toEqual([]);
  });

  it('should keep a serialisable state that a checkpoint can restore', () => {
    const state = runSteps([0.1, 0.1, 0.1, 0.1], { patience: 1 });
    expect(
      curriculumStateSchema.parse(JSON.parse(JSON.stringify(state))),
    ).toEqual(state);
    // States written before reasons were recorded still parse.
    expect(
      curriculumStateSchema.parse({
        ...state,
        transitions: [{ step: 1, from: 0, to: 1 }],
      }).transitions,
    ).toHaveLength(1);
  });
});

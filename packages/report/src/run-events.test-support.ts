import type { TrainStepEvent } from '@seal/spec';

/**
 * Test support (not part of the package's exports): a complete `train-step`
 * record as `runTraining` writes it, with `overrides` on top.
 */
export function trainStepEvent(
  overrides: Partial<TrainStepEvent> & { step: number },
): TrainStepEvent {
  return {
    schemaVersion: 1,
    type: 'train-step',
    method: 'seal',
    rewardMean: 0,
    successRate: 0,
    tagCounts: {},
    loss: 0,
    gradNorm: 0,
    kl: 0,
    clipFraction: 0,
    skippedUpdates: 0,
    droppedGroups: 0,
    overlayHash: '0000000000000000',
    tagWeights: {},
    timing: { model: 0, other: 0, total: 0, parts: {} },
    samples: [],
    ...overrides,
  };
}

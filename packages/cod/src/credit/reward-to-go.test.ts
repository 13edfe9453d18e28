import { describe, expect, it } from 'vitest';
import { hintRewardToGo, rewardToGo } from './reward-to-go';

describe('rewardToGo', () => {
  it('should average each reward with every later one (mean style)', () => {
    expect(rewardToGo({ rewards: [0, 0, 1, 0] })).toEqual([
      0.25,
      1 / 3,
      0.5,
      0,
    ]);
  });

  it('should average only the next W rewards (sliding window)', () => {
    expect(
      rewardToGo({
        rewards: [1, 0, 0, 1],
        returns: { style: 'sliding-window', window: 2 },
      }),
    ).toEqual([0.5, 0, 0.5, 1]);
  });

  it('should discount later rewards by γ^k', () => {
    const returns = rewardToGo({
      rewards: [0, 1, 0, 1],
      returns: { style: 'discounted', gamma: 0.5 },
    });
    // 0 + 0.5·1 + 0.25·0 + 0.125·1, then 1 + 0 + 0.25, then 0 + 0.5, then 1.
    expect(returns).toEqual([0.625, 1.25, 0.5, 1]);
  });

  it('should refuse a window below 1 and γ outside [0, 1] by code', () => {
    expect(() =>
      rewardToGo({
        rewards: [1],
        returns: { style: 'sliding-window', window: 0 },
      }),
    ).toThrow(expect.objectContaining({ code: 'INVALID_ARGUMENT' }));
    expect(() =>
      rewardToGo({
        rewards: [1],
        returns: { style: 'discounted', gamma: 1.5 },
      }),
    ).toThrow(expect.objectContaining({ code: 'INVALID_ARGUMENT' }));
  });
});

describe('hintRewardToGo', () => {
  it('should credit a hint with its own reward and every later task', () => {
    expect(
      hintRewardToGo({ taskRewards: [0, 1, 1, 1], hintRewards: [-0.1, 0, 0] }),
    ).toEqual([(-0.1 + 3) / 4, 2 / 3, 0.5]);
  });

  it('should refuse a hint count other than tasks − 1', () => {
    expect(() =>
      hintRewardToGo({ taskRewards: [0, 1], hintRewards: [0, 0] }),
    ).toThrow(expect.objectContaining({ code: 'INVALID_ARGUMENT' }));
  });
});

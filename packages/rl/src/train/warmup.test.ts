import { describe, expect, it } from 'vitest';
import { trainConfigSchema } from '../config/train-config';
import { warmupFactor } from './run-training';

describe('warmupFactor', () => {
  it('should raise the rate linearly over the warm-up steps and hold it after', () => {
    expect([1, 2, 3, 4, 10].map((step) => warmupFactor(step, 3))).toEqual([1 / 3, 2 / 3, 1, 1, 1]);
  });

  it('should leave the rate alone without a warm-up', () => {
    expect(warmupFactor(1, 0)).toBe(1);
  });

  it('should default to no warm-up and refuse a negative one', () => {
    expect(trainConfigSchema.parse({ runId: 'r', steps: 1 }).ppo.warmupSteps).toBe(0);
    expect(trainConfigSchema.safeParse({ runId: 'r', steps: 1, ppo: { warmupSteps: -1 } }).success).toBe(false);
  });
});

import { SealError } from '@seal/spec';
import { describe, expect, it } from 'vitest';
import { wilsonInterval } from './wilson-interval';

describe('wilsonInterval', () => {
  it('should match hand-computed Wilson intervals', () => {
    // 5 of 10: centre 0.5, half-width 1.96·√(0.025 + 0.0096)/1.3842 = 0.2634.
    const [low, high] = wilsonInterval({ successes: 5, total: 10 });
    expect(low).toBeCloseTo(0.2366, 4);
    expect(high).toBeCloseTo(0.7634, 4);
    // 0 of 10: [0, z²/(n + z²)] = [0, 0.2775].
    const [zeroLow, zeroHigh] = wilsonInterval({ successes: 0, total: 10 });
    expect(zeroLow).toBe(0);
    expect(zeroHigh).toBeCloseTo(0.2775, 4);
    expect(wilsonInterval({ successes: 0, total: 0 })).toEqual([0, 1]);
  });

  it('should refuse counts that are not a proportion', () => {
    for (const [successes, total] of [
      [3, 2],
      [-1, 2],
      [0.5, 2],
    ] as const) {
      let caught: unknown;
      try {
        wilsonInterval({ successes, total });
      } catch (error) {
        caught = error;
      }
      expect(SealError.isInstance(caught) && caught.code).toBe(
        'INVALID_ARGUMENT',
      );
    }
  });
});

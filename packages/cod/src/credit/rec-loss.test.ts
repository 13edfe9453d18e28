import { describe, expect, it } from 'vitest';
import { recLoss, recTrainSequences, recTrustRegionMask } from './rec-loss';

const log = Math.log;

describe('recTrustRegionMask', () => {
  it('should drop positive-advantage tokens whose ratio exceeds 1 + ε and keep lower ratios', () => {
    const mask = recTrustRegionMask({
      sequence: {
        advantages: [1, 1, 1, 1],
        logprobs: [log(0.5), log(0.59), log(0.61), log(0.1)],
        oldLogprobs: [log(0.5), log(0.5), log(0.5), log(0.5)],
        responseMask: [1, 1, 1, 1],
      },
    });
    // ratios 1, 1.18, 1.22, 0.2: one-sided, so the low ratio stays.
    expect(mask).toEqual([1, 1, 0, 1]);
  });

  it('should drop negative-advantage tokens whose ratio falls below 1 − ε and keep higher ratios', () => {
    const mask = recTrustRegionMask({
      sequence: {
        advantages: [-1, -1, -1],
        logprobs: [log(0.41), log(0.39), log(0.9)],
        oldLogprobs: [log(0.5), log(0.5), log(0.5)],
        responseMask: [1, 1, 1],
      },
    });
    // ratios 0.82, 0.78, 1.8
    expect(mask).toEqual([1, 0, 1]);
  });

  it('should give 0 outside the response and honour custom ε', () => {
    const mask = recTrustRegionMask({
      sequence: {
        advantages: [1, 1],
        logprobs: [0, log(1.3)],
        oldLogprobs: [0, 0],
        responseMask: [0, 1],
      },
      settings: { clipHigh: 0.5 },
    });
    expect(mask).toEqual([0, 1]);
  });

  it('should refuse misaligned arrays by code', () => {
    expect(() =>
      recTrustRegionMask({
        sequence: {
          advantages: [1],
          logprobs: [0, 0],
          oldLogprobs: [0, 0],
          responseMask: [1, 1],
        },
      }),
    ).toThrow(expect.objectContaining({ code: 'SHAPE_MISMATCH' }));
  });
});

describe('recLoss', () => {
  it('should be the token mean of −A·logπ over in-region tokens, with no importance weight', () => {
    const result = recLoss({
      sequences: [
        // ratio 2 on the second token: out of the region for A > 0.
        {
          advantages: [0, 0.5, 0.5],
          logprobs: [0, log(0.8), log(0.8)],
          oldLogprobs: [0, log(0.4), log(0.8)],
          responseMask: [0, 1, 1],
        },
        {
          advantages: [-1, -1],
          logprobs: [log(0.5), log(0.25)],
          oldLogprobs: [log(0.5), log(0.5)],
          responseMask: [1, 1],
        },
      ],
    });
    // In region: seq 1 token 2 (ratio 1) and seq 2 token 1 (ratio 1); seq 2 token 2 has ratio 0.5 < 0.8.
    const expected = (-0.5 * log(0.8) + 1 * log(0.5)) / 4;
    expect(result.loss).toBeCloseTo(expected, 12);
    expect(result.tokens).toBe(4);
    expect(result.maskedFraction).toBe(0.5);
  });
});

describe('recTrainSequences', () => {
  it('should put the region and the token mean into the weights and make the engine ratio 1', () => {
    const [sequence] = recTrainSequences({
      sequences: [
        {
          tokenIds: [1, 2, 3, 4],
          advantages: [0, 1, 1, 1],
          logprobs: [0, log(0.5), log(0.9), log(0.5)],
          oldLogprobs: [0, log(0.5), log(0.5), log(0.5)],
          responseMask: [0, 1, 1, 1],
        },
      ],
    });
    expect(sequence!.tokenWeights).toEqual([0, 1 / 3, 0, 1 / 3]);
    expect(sequence!.oldLogprobs).toEqual([0, log(0.5), log(0.9), log(0.5)]);
    expect(sequence!.advantages).toEqual([0, 1, 1, 1]);
  });
});

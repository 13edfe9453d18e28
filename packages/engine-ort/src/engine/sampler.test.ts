import { describe, expect, it } from 'vitest';
import { SeededRandom } from '../io/seeded-random';
import { sampleToken } from './sampler';

const logits = Float32Array.of(0.5, 3, 1, 2.5, -1);
const logSoftmax = (id: number, temperature: number): number => {
  const scaled = Array.from(logits, (x) => x / temperature);
  const max = Math.max(...scaled);
  const total = scaled.reduce((sum, x) => sum + Math.exp(x - max), 0);
  return scaled[id]! - max - Math.log(total);
};

describe('sampleToken with suppressed ids', () => {
  it('should pick the best token that is not suppressed when greedy', () => {
    const token = sampleToken({
      logits,
      settings: { temperature: 0, topP: 1, topK: 0 },
      random: new SeededRandom(1),
      suppress: new Set([1]),
    });
    expect(token.tokenId).toBe(3);
    expect(token.modelLogprob).toBeCloseTo(logSoftmax(3, 1), 6);
  });

  it('should never draw a suppressed id and report the unconstrained log-probabilities', () => {
    const random = new SeededRandom(7);
    const counts = new Map<number, number>();
    for (let i = 0; i < 4000; i++) {
      const token = sampleToken({
        logits,
        settings: { temperature: 0.8, topP: 1, topK: 0 },
        random,
        suppress: new Set([1, 3]),
      });
      counts.set(token.tokenId, (counts.get(token.tokenId) ?? 0) + 1);
      expect(token.logprob).toBeCloseTo(logSoftmax(token.tokenId, 0.8), 6);
      expect(token.modelLogprob).toBeCloseTo(logSoftmax(token.tokenId, 1), 6);
    }
    expect(counts.has(1)).toBe(false);
    expect(counts.has(3)).toBe(false);
    // Among the rest, draws follow the renormalised distribution (token 2 is the likeliest).
    expect(counts.get(2)!).toBeGreaterThan(counts.get(0)!);
    expect(counts.get(0)!).toBeGreaterThan(counts.get(4)!);
  });

  it('should refuse to sample when every token is suppressed', () => {
    expect(() =>
      sampleToken({
        logits,
        settings: { temperature: 1, topP: 1, topK: 0 },
        random: new SeededRandom(1),
        suppress: new Set([0, 1, 2, 3, 4]),
      }),
    ).toThrow(/every token/);
  });
});

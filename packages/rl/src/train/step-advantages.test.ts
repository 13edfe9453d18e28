import type { EpisodeRecord } from '@seal/spec';
import { describe, expect, it } from 'vitest';
import { rolloutTokenAdvantages } from './step-advantages';

/** A record whose turns hold the given numbers of model calls. */
function record(callsPerTurn: readonly number[]): EpisodeRecord {
  return {
    turns: callsPerTurn.map((calls, turn) => ({
      turn,
      steps: Array.from({ length: calls }, () => ({})),
      endReason: 'reply',
    })),
  } as unknown as EpisodeRecord;
}

describe('rolloutTokenAdvantages', () => {
  // Prompt (2 tokens), call 0 (turn 0: 2 tokens), observation (1), call 1
  // (turn 1: 1 token and an appended stop, masked).
  const rollout = {
    tokenIds: [10, 11, 20, 21, 30, 40, 2],
    generatedMask: [0, 0, 1, 1, 0, 1, 0],
    callStarts: [2, 5],
    record: record([1, 1]),
  };

  it("should add each call's turn advantage, times the weight, to the episode's on its generated tokens only", () => {
    const [tokens] = rolloutTokenAdvantages({
      rollouts: [rollout],
      advantages: [0.5],
      turns: [[1, -2]],
      weight: 0.5,
    });
    expect(tokens).toEqual([0, 0, 1, 1, 0, -0.5, 0]);
  });

  it('should keep the episode advantage on every generated token when calls and steps do not line up', () => {
    const [tokens] = rolloutTokenAdvantages({
      rollouts: [{ ...rollout, record: record([1, 2]) }],
      advantages: [0.5],
      turns: [[1, -2]],
      weight: 1,
    });
    expect(tokens).toEqual([0, 0, 0.5, 0.5, 0, 0.5, 0]);
  });

  it('should map several calls of one turn to that turn', () => {
    const [tokens] = rolloutTokenAdvantages({
      rollouts: [{ ...rollout, record: record([2]) }],
      advantages: [0],
      turns: [[3]],
      weight: 1,
    });
    expect(tokens).toEqual([0, 0, 3, 3, 0, 3, 0]);
  });
});

import { CapabilityState } from '@seal/diagnose';
import type { EpisodeRecord } from '@seal/spec';
import { describe, expect, it } from 'vitest';
import { grpoEpsilon } from '../advantages/grpo';
import {
  methodComponents,
  trainConfigSchema,
  type TrainConfigInput,
} from '../config/train-config';
import type { Rollout } from '../rollout/run-rollouts';
import { rolloutTokenAdvantages, stepAdvantages } from './step-advantages';
import { turnVerdicts } from './step-outcomes';

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

/**
 * Turn-level credit on hand-built episodes, through the path the training
 * loop takes: each turn's verdict (`turnVerdicts`), then `stepAdvantages`
 * under GRPO with `turnAdvantageWeight` 0.5. Every expected advantage is
 * computed by hand below.
 */
describe('stepAdvantages with turn-level credit on hand-computed episodes', () => {
  /**
   * An episode of two turns: `calls[t]` model calls in turn t, each call one
   * generated token, each followed by one observation token (not generated).
   * Token layout: 2 prompt tokens, then per call [generated, observation].
   */
  function episode(task: string, index: number, calls: readonly number[]) {
    const tokenIds = [1, 2];
    const generatedMask = [0, 0];
    const callStarts: number[] = [];
    for (const count of calls) {
      for (let c = 0; c < count; c++) {
        callStarts.push(tokenIds.length);
        tokenIds.push(100 + tokenIds.length, 9);
        generatedMask.push(1, 0);
      }
    }
    return {
      task: { id: task, category: 'multi_turn_base' },
      group: task,
      index,
      record: record(calls),
      tokenIds,
      generatedMask,
      samplingLogprobs: tokenIds.map(() => 0),
      callStarts,
    } as unknown as Rollout;
  }

  /** A verdict whose turn t passed (1), failed (0), or (2) was an empty turn correctly abstained. */
  const verdict = (turns: readonly (0 | 1 | 2)[]) => ({
    turns: turns.map((v, turn) => ({
      turn,
      valid: v === 2 ? null : v === 1,
      irrelevance: v === 2 ? 1 : null,
    })),
  });

  // Group "ask": A passes (turn 0 right, turn 1 an empty turn it correctly
  // abstains in); B fails its second turn; C fails both. Group "fail": every
  // episode fails, but D gets its first turn right (in two calls) and E does not.
  const rollouts = [
    episode('ask', 0, [1, 1]),
    episode('ask', 1, [1, 1]),
    episode('ask', 2, [1, 1]),
    episode('fail', 0, [2, 1]),
    episode('fail', 1, [1, 1]),
  ];
  const rewards = [1, 0, 0, 0, 0];
  const verdicts = [
    verdict([1, 2]),
    verdict([1, 0]),
    verdict([0, 0]),
    verdict([1, 0]),
    verdict([0, 0]),
  ];

  const run = (settings: Partial<TrainConfigInput>) =>
    stepAdvantages({
      rollouts,
      rewards,
      tags: rollouts.map(() => ['pass', 'pass']),
      turnRewards: verdicts.map(turnVerdicts),
      components: methodComponents('grpo'),
      capability: new CapabilityState(),
      config: trainConfigSchema.parse({
        runId: 'hand',
        steps: 1,
        method: 'grpo',
        ...settings,
      }),
    });

  const eps = grpoEpsilon;
  // Group "ask": rewards 1, 0, 0: mean 1/3, unbiased variance
  // ((2/3)² + 2·(1/3)²)/2 = 1/3, std 1/√3.
  const s3 = 1 / Math.sqrt(3);
  const high = 2 / 3 / (s3 + eps); // ≈ +1.1547
  const low = -(1 / 3) / (s3 + eps); // ≈ −0.5774
  // Turn 0 of "ask": 1, 1, 0 (same spread): A, B +(1/3)/std, C −(2/3)/std.
  // Turn 1 of "ask": 1 (abstained), 0, 0: A +(2/3)/std, B and C −(1/3)/std.
  // Group "fail": episodes 0, 0 (advantage 0); turn 0: 1, 0, mean 1/2,
  // variance 2·(1/2)²/1 = 1/2, std 1/√2: D +(1/2)/std, E −(1/2)/std; turn 1: 0, 0.
  const half = 0.5 / (Math.SQRT1_2 + eps); // ≈ 0.7071
  const w = 0.5;
  /** Per-token advantages: 0 on prompt and observation tokens. */
  const tokens = (perCall: readonly number[]) => [
    0,
    0,
    ...perCall.flatMap((a) => [a, 0]),
  ];

  it('should read each turn as passed, abstained or failed', () => {
    expect(verdicts.map(turnVerdicts)).toEqual([
      [1, 1],
      [1, 0],
      [0, 0],
      [1, 0],
      [0, 0],
    ]);
  });

  it("should give each call its episode's advantage plus w times its turn's", () => {
    const result = run({ turnAdvantageWeight: w });
    const expected = [
      tokens([high + w * -low, high + w * high]), // A: ≈ 1.443, 1.732
      tokens([low + w * -low, low + w * low]), // B: ≈ −0.289, −0.866
      tokens([low + w * 2 * low, low + w * low]), // C: ≈ −1.155, −0.866
      tokens([w * half, w * half, 0]), // D: both calls of turn 0, then turn 1
      tokens([-w * half, 0]), // E
    ];
    expect(result.advantages).toHaveLength(5);
    [high, low, low, 0, 0].forEach((a, i) =>
      expect(result.advantages[i]).toBeCloseTo(a, 12),
    );
    result.tokenAdvantages!.forEach((row, r) => {
      expect(row).toHaveLength(expected[r]!.length);
      row.forEach((a, t) => expect(a).toBeCloseTo(expected[r]![t]!, 12));
    });
    expect(result.tokenAdvantages![0]![2]).toBeCloseTo(1.4434, 4);
    expect(result.tokenAdvantages![3]![2]).toBeCloseTo(0.3536, 4);
  });

  it('should give every token its episode advantage without turn-level credit', () => {
    const result = run({});
    expect(result.tokenAdvantages).toBeUndefined();
    expect(result.advantages[3]).toBe(0);
  });

  it('should keep under dynamic sampling a group whose episodes agree but whose turns differ, only with turn-level credit', () => {
    const withCredit = run({
      turnAdvantageWeight: w,
      dynamicSampling: { maxRefillRounds: 0 },
    });
    expect([...withCredit.dropped]).toEqual([]);
    expect(withCredit.kept).toEqual([0, 1, 2, 3, 4]);
    const episodeOnly = run({ dynamicSampling: { maxRefillRounds: 0 } });
    expect([...episodeOnly.dropped]).toEqual(['fail']);
    expect(episodeOnly.kept).toEqual([0, 1, 2]);
  });
});

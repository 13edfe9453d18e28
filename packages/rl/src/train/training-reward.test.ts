import { describe, expect, it } from 'vitest';
import { trainingReward } from './training-reward';

/** A verdict BFCL passes, with one turn per tag. */
function verdict(tags: string[], binary = 1) {
  return {
    rewards: {
      binary,
      progress:
        tags.filter((tag) => tag === 'pass' || tag === 'correct_abstention')
          .length / tags.length,
      format: 1.5,
    },
    turns: tags.map((tag, turn) => ({ turn, tag }) as never),
  };
}

describe('trainingReward', () => {
  it("should be BFCL's verdict plus the weighted progress by default, a spurious call in an empty turn included", () => {
    const invented = verdict(['pass', 'spurious_tool_call', 'pass']);
    expect(
      trainingReward({
        verdict: invented,
        progressWeight: 0,
        strictAbstention: false,
      }),
    ).toBe(1);
    expect(
      trainingReward({
        verdict: invented,
        progressWeight: 0.5,
        strictAbstention: false,
      }),
    ).toBeCloseTo(1 + 0.5 * (2 / 3), 12);
  });

  it('should fail an episode that calls a tool where the ground truth is empty, with strictAbstention', () => {
    expect(
      trainingReward({
        verdict: verdict(['pass', 'spurious_tool_call', 'pass']),
        progressWeight: 0,
        strictAbstention: true,
      }),
    ).toBe(0);
    // The progress reward is unchanged: only the verdict is strict.
    expect(
      trainingReward({
        verdict: verdict(['pass', 'spurious_tool_call', 'pass']),
        progressWeight: 0.5,
        strictAbstention: true,
      }),
    ).toBeCloseTo(0.5 * (2 / 3), 12);
    // Asking (correct abstention) keeps the reward; a failed verdict stays 0.
    expect(
      trainingReward({
        verdict: verdict(['pass', 'correct_abstention', 'pass']),
        progressWeight: 0,
        strictAbstention: true,
      }),
    ).toBe(1);
    expect(
      trainingReward({
        verdict: verdict(['pass', 'state_mismatch'], 0),
        progressWeight: 0,
        strictAbstention: true,
      }),
    ).toBe(0);
  });

  it("should use an Environment Tuning stage's own reward", () => {
    const invented = verdict(['pass', 'spurious_tool_call']);
    expect(
      trainingReward({
        verdict: invented,
        progressWeight: 1,
        strictAbstention: true,
        stageReward: 'format',
      }),
    ).toBe(0.75);
    expect(
      trainingReward({
        verdict: invented,
        progressWeight: 1,
        strictAbstention: true,
        stageReward: 'progress',
      }),
    ).toBe(0.5);
  });
});

import type { PackRunRecord } from '@seal/spec';

/** Success and reward at one pack position, over pack runs. */
export type PackPositionSummary = {
  /** Position in the pack, from 0 (the paper's k − 1). */
  position: number;
  /** Pack runs that reached it. */
  runs: number;
  /** Fraction solved. */
  successRate: number;
  /** Mean task reward. */
  rewardMean: number;
};

/**
 * Success and reward per pack position: the Connect the Dots signature is
 * a curve that rises with the position (spec B7).
 */
export function summarizePackPositions(
  records: readonly PackRunRecord[],
): PackPositionSummary[] {
  const totals: { runs: number; successes: number; reward: number }[] = [];
  for (const record of records) {
    for (const solve of record.solves) {
      const entry = (totals[solve.position] ??= {
        runs: 0,
        successes: 0,
        reward: 0,
      });
      entry.runs++;
      if (solve.success) entry.successes++;
      entry.reward += solve.reward;
    }
  }
  return totals.map((entry, position) => ({
    position,
    runs: entry.runs,
    successRate: entry.runs === 0 ? 0 : entry.successes / entry.runs,
    rewardMean: entry.runs === 0 ? 0 : entry.reward / entry.runs,
  }));
}

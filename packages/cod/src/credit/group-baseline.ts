import { SealError } from '@seal/spec';
import { hintRewardToGo, rewardToGo, type ReturnStyle } from './reward-to-go';

/** The rewards of one pack run: one of the G repeated runs of a pack. */
export type PackRunRewards = {
  /** The pack; runs of the same pack share a baseline. */
  packId: string;
  /** Task rewards r_1..r_n, in pack order. */
  taskRewards: readonly number[];
  /** Update-context rewards h_1..h_{n-1} (each ≤ 0), in pack order. */
  hintRewards: readonly number[];
};

/** Returns, baselines and advantages of one pack run, per episode. */
export type PackRunCredit = {
  /** Reward-to-go of each solve episode. */
  solveReturns: number[];
  /** Reward-to-go of each update-context episode. */
  updateReturns: number[];
  /** The group baseline of each solve position. */
  solveBaselines: number[];
  /** The group baseline of each update position. */
  updateBaselines: number[];
  /** `return − baseline` per solve episode (broadcast to all its response tokens). */
  solveAdvantages: number[];
  /** `return − baseline` per update-context episode. */
  updateAdvantages: number[];
};

/**
 * Connect the Dots' causal advantages (spec B4, `std_cal_level: none`):
 * reward-to-go returns per episode; the baseline of a key (pack, episode
 * kind, index) is the mean return over the runs of that pack; the advantage
 * is `return − baseline`, with no std normalisation. Results are in the
 * order of `runs`. A pack with a single run gets advantages of 0.
 */
export function computePackAdvantages({
  runs,
  returns = { style: 'mean' },
}: {
  runs: readonly PackRunRewards[];
  returns?: ReturnStyle;
}): PackRunCredit[] {
  const partial = runs.map((run) => ({
    packId: run.packId,
    solveReturns: rewardToGo({ rewards: run.taskRewards, returns }),
    updateReturns: hintRewardToGo({
      taskRewards: run.taskRewards,
      hintRewards: run.hintRewards,
      returns,
    }),
  }));
  // key `${packId}\u0000${kind}\u0000${index}` → [sum, count]
  const sums = new Map<string, [number, number]>();
  const add = (key: string, value: number) => {
    const entry = sums.get(key) ?? [0, 0];
    entry[0] += value;
    entry[1] += 1;
    sums.set(key, entry);
  };
  const key = (packId: string, kind: 'solve' | 'update', index: number) =>
    `${packId}\u0000${kind}\u0000${index}`;
  const lengths = new Map<string, number>();
  for (const run of partial) {
    const known = lengths.get(run.packId);
    if (known !== undefined && known !== run.solveReturns.length) {
      throw new SealError({
        code: 'INVALID_ARGUMENT',
        message: `pack ${run.packId}: its runs have different lengths (${known} and ${run.solveReturns.length} tasks)`,
        details: { packId: run.packId },
      });
    }
    lengths.set(run.packId, run.solveReturns.length);
    run.solveReturns.forEach((value, index) =>
      add(key(run.packId, 'solve', index), value),
    );
    run.updateReturns.forEach((value, index) =>
      add(key(run.packId, 'update', index), value),
    );
  }
  const baseline = (k: string) => {
    const [sum, count] = sums.get(k)!;
    return sum / count;
  };
  return partial.map((run) => {
    const solveBaselines = run.solveReturns.map((_, index) =>
      baseline(key(run.packId, 'solve', index)),
    );
    const updateBaselines = run.updateReturns.map((_, index) =>
      baseline(key(run.packId, 'update', index)),
    );
    return {
      solveReturns: run.solveReturns,
      updateReturns: run.updateReturns,
      solveBaselines,
      updateBaselines,
      solveAdvantages: run.solveReturns.map(
        (value, index) => value - solveBaselines[index]!,
      ),
      updateAdvantages: run.updateReturns.map(
        (value, index) => value - updateBaselines[index]!,
      ),
    };
  });
}

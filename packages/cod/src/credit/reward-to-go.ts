import { SealError } from '@seal/spec';

/**
 * How a reward-to-go return is formed from the rewards at and after an
 * episode (Connect the Dots, spec B4):
 * - `mean`: the mean of every reward from here to the end of the pack (the
 *   paper's default);
 * - `sliding-window`: the mean of the next `window` rewards (fewer near the end);
 * - `discounted`: `Σ_k γ^k · r_{i+k}`.
 */
export type ReturnStyle =
  | { style: 'mean' }
  | { style: 'sliding-window'; window: number }
  | { style: 'discounted'; gamma: number };

function checkStyle(returns: ReturnStyle): void {
  if (
    returns.style === 'sliding-window' &&
    !(Number.isInteger(returns.window) && returns.window >= 1)
  ) {
    throw new SealError({
      code: 'INVALID_ARGUMENT',
      message: `reward-to-go: the sliding window must be a whole number ≥ 1, got ${returns.window}`,
      details: { window: returns.window },
    });
  }
  if (
    returns.style === 'discounted' &&
    !(returns.gamma >= 0 && returns.gamma <= 1)
  ) {
    throw new SealError({
      code: 'INVALID_ARGUMENT',
      message: `reward-to-go: the discount γ must lie in [0, 1], got ${returns.gamma}`,
      details: { gamma: returns.gamma },
    });
  }
}

/** The return of the first entry of `rewards` under `returns` (the tail after it follows causally). */
function returnOfTail(
  rewards: readonly number[],
  returns: ReturnStyle,
): number {
  switch (returns.style) {
    case 'mean':
      return mean(rewards);
    case 'sliding-window':
      return mean(rewards.slice(0, returns.window));
    case 'discounted': {
      let total = 0;
      let weight = 1;
      for (const reward of rewards) {
        total += weight * reward;
        weight *= returns.gamma;
      }
      return total;
    }
  }
}

function mean(values: readonly number[]): number {
  if (values.length === 0) return 0;
  let total = 0;
  for (const value of values) total += value;
  return total / values.length;
}

/**
 * Reward-to-go returns of the solve episodes of one pack run: entry `i` is
 * the return of `rewards[i], rewards[i+1], …` under `returns`. A task is
 * credited with what happens from it onwards, never with the past (the
 * dynamic-programming principle of spec B4).
 *
 * @example rewardToGo({ rewards: [0, 1, 1, 1], returns: { style: 'mean' } }) // [0.75, 1, 1, 1]
 */
export function rewardToGo({
  rewards,
  returns = { style: 'mean' },
}: {
  rewards: readonly number[];
  returns?: ReturnStyle;
}): number[] {
  checkStyle(returns);
  return rewards.map((_, index) => returnOfTail(rewards.slice(index), returns));
}

/**
 * Returns of the update-context episodes of one pack run. The hint written
 * after task `j` (index `j`, used by task `j+1`) is credited with its own
 * reward and everything after it: the return of `hintRewards[j],
 * taskRewards[j+1], …, taskRewards[n-1]` under `returns` (spec B4:
 * `G^h_j = mean(h_j, r_{j+1}, …, r_n)` for the mean style).
 */
export function hintRewardToGo({
  taskRewards,
  hintRewards,
  returns = { style: 'mean' },
}: {
  taskRewards: readonly number[];
  hintRewards: readonly number[];
  returns?: ReturnStyle;
}): number[] {
  checkStyle(returns);
  if (hintRewards.length !== Math.max(0, taskRewards.length - 1)) {
    throw new SealError({
      code: 'INVALID_ARGUMENT',
      message: `reward-to-go: a pack run of ${taskRewards.length} tasks has ${Math.max(0, taskRewards.length - 1)} hint updates, got ${hintRewards.length} hint rewards`,
      details: { tasks: taskRewards.length, hints: hintRewards.length },
    });
  }
  return hintRewards.map((hint, index) =>
    returnOfTail([hint, ...taskRewards.slice(index + 1)], returns),
  );
}

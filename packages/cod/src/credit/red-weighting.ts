import { SealError } from '@seal/spec';

/** One episode as RED sees it: its advantage and its number of response tokens. */
export type RedEpisode = {
  /** The episode's advantage (broadcast to each of its tokens). */
  advantage: number;
  /** Response tokens the advantage applies to (`L_e`). */
  tokens: number;
};

/** Settings of {@link redReweight}; the defaults are the paper's. */
export type RedSettings = {
  /** Lower end of the temperature bracket. Default 0.8. */
  minTemperature?: number;
  /** Upper end of the temperature bracket. Default 100. */
  maxTemperature?: number;
  /** Stop when the bracket is narrower than this. Default 0.05. */
  tolerance?: number;
  /** At most this many bisection steps. Default 20. */
  maxIterations?: number;
};

/** What {@link redReweight} did. */
export type RedResult = {
  /** The reweighted advantages, in input order (unchanged when `active` is false). */
  advantages: number[];
  /**
   * Whether reweighting ran: only when the token-weighted advantage sum
   * `Σ A_e·L_e` is negative and some advantage is positive.
   */
  active: boolean;
  /** The temperature τ used (null when inactive). */
  temperature: number | null;
  /** `Σ A_e·L_e` before reweighting. */
  tokenSumBefore: number;
  /** `Σ A_e·exp(A_e/τ)·L_e` at the chosen τ (equal to the sum before when inactive). */
  tokenSumAfter: number;
  /** Bisection steps taken. */
  iterations: number;
  /** Width of the final bracket. */
  bracket: number;
  /**
   * Whether the sum changes sign inside the bracket. When it does not, τ is
   * the bracket end whose sum is nearest zero (the sum falls as τ grows).
   */
  crossed: boolean;
};

/** `S(τ) = Σ A_e · exp(A_e/τ) · L_e`. */
export function redTokenSum({
  episodes,
  temperature,
}: {
  episodes: readonly RedEpisode[];
  temperature: number;
}): number {
  let total = 0;
  for (const { advantage, tokens } of episodes)
    total += advantage * Math.exp(advantage / temperature) * tokens;
  return total;
}

/**
 * RED reweighting with an adaptive temperature (spec B4, step 4). When the
 * batch's token-mean advantage is negative (long failed episodes outweigh
 * short successes), each advantage becomes `A·exp(A/τ)`, with τ found by
 * bisection over [0.8, 100] such that the token-weighted sum `S(τ)` crosses
 * zero. `S` falls strictly as τ grows (its derivative is
 * `−Σ A²·exp(A/τ)·L / τ²`), so bisection keeps `S(lo) > 0 ≥ S(hi)`; it stops
 * when the bracket is narrower than the tolerance or after 20 steps, and τ is
 * the bracket's midpoint. A non-negative token-mean advantage, or a batch
 * without any positive advantage, leaves the advantages unchanged.
 */
export function redReweight({
  episodes,
  settings = {},
}: {
  episodes: readonly RedEpisode[];
  settings?: RedSettings;
}): RedResult {
  const minTemperature = settings.minTemperature ?? 0.8;
  const maxTemperature = settings.maxTemperature ?? 100;
  const tolerance = settings.tolerance ?? 0.05;
  const maxIterations = settings.maxIterations ?? 20;
  if (!(
    minTemperature > 0 &&
    maxTemperature > minTemperature &&
    tolerance > 0 &&
    Number.isInteger(maxIterations) &&
    maxIterations >= 1
  )) {
    throw new SealError({
      code: 'INVALID_ARGUMENT',
      message: `RED: need 0 < minTemperature < maxTemperature, tolerance > 0 and maxIterations ≥ 1 (got ${minTemperature}, ${maxTemperature}, ${tolerance}, ${maxIterations})`,
      details: { minTemperature, maxTemperature, tolerance, maxIterations },
    });
  }
  for (const episode of episodes) {
    if (!Number.isFinite(episode.advantage) || !(episode.tokens >= 0)) {
      throw new SealError({
        code: 'INVALID_ARGUMENT',
        message: `RED: every episode needs a finite advantage and a token count ≥ 0 (got ${episode.advantage}, ${episode.tokens})`,
        details: { ...episode },
      });
    }
  }
  let tokenSumBefore = 0;
  for (const { advantage, tokens } of episodes)
    tokenSumBefore += advantage * tokens;
  const plain = episodes.map((episode) => episode.advantage);
  const inactive: RedResult = {
    advantages: plain,
    active: false,
    temperature: null,
    tokenSumBefore,
    tokenSumAfter: tokenSumBefore,
    iterations: 0,
    bracket: maxTemperature - minTemperature,
    crossed: false,
  };
  if (tokenSumBefore >= 0) return inactive;
  if (!episodes.some((episode) => episode.advantage > 0 && episode.tokens > 0))
    return inactive;

  const sum = (temperature: number) => redTokenSum({ episodes, temperature });
  let lo = minTemperature;
  let hi = maxTemperature;
  let iterations = 0;
  let temperature: number;
  let crossed: boolean;
  if (sum(lo) <= 0) {
    // Even the sharpest weighting leaves the sum negative: use it.
    temperature = lo;
    crossed = false;
  } else if (sum(hi) > 0) {
    // The flattest weighting in the bracket is still positive.
    temperature = hi;
    crossed = false;
  } else {
    while (hi - lo >= tolerance && iterations < maxIterations) {
      const mid = (lo + hi) / 2;
      if (sum(mid) > 0) lo = mid;
      else hi = mid;
      iterations++;
    }
    temperature = (lo + hi) / 2;
    crossed = true;
  }
  const advantages = episodes.map(
    ({ advantage }) => advantage * Math.exp(advantage / temperature),
  );
  return {
    advantages,
    active: true,
    temperature,
    tokenSumBefore,
    tokenSumAfter: sum(temperature),
    iterations,
    bracket: crossed ? hi - lo : maxTemperature - minTemperature,
    crossed,
  };
}

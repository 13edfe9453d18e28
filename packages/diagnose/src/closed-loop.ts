import { excludedTags } from './apatch';

/** Tag statistics the closed loop reads (window counters, or total ones when the window is empty). */
export type LoopTagStatistics = Readonly<
  Record<string, { count: number; rewardSum: number }>
>;

/** The closed-loop (EMA) update settings (§5.4). */
export type ClosedLoopSettings = {
  /** EMA rate β. Default 0.25. */
  beta?: number;
  /** Prevalence gain α. Default 1. */
  alpha?: number;
  /** Confidence sample count K. Default 32. */
  confidenceSamples?: number;
  /** Clip of the target. Default [0.5, 2]. */
  minScale?: number;
  maxScale?: number;
};

/**
 * SEAL's closed-loop utility update (§5.4): with N the count of all tags but
 * `checker_error`/`gt_error` (if N = 0 the base weights are returned),
 * target(z) = 1 for excluded tags, ρ₀(pass) for `pass`, and otherwise
 * ρ₀(z)·(1 + α·prev(z)·stag(z)·conf(z)) with prev = count/N, stag = 1 −
 * reward mean, conf = min(1, count/K); clipped to [0.5, 2]; then
 * ρ_t = (1 − β)·ρ_{t−1} + β·target, where ρ_{t−1} starts at ρ₀. Over the
 * union of base, observed and previous tags, like SEAL's code.
 */
export function updateDynamicTagWeights({
  base,
  previous,
  statistics,
  settings = {},
}: {
  base: Readonly<Record<string, number>>;
  /** ρ_{t−1}; empty at the start. */
  previous: Readonly<Record<string, number>>;
  statistics: LoopTagStatistics;
  settings?: ClosedLoopSettings;
}): Record<string, number> {
  const beta = Math.min(1, Math.max(0, settings.beta ?? 0.25));
  const alpha = settings.alpha ?? 1;
  const confidenceSamples = Math.max(
    1,
    Math.trunc(settings.confidenceSamples ?? 32),
  );
  const minScale = settings.minScale ?? 0.5;
  const maxScale = settings.maxScale ?? 2;
  const total = Object.entries(statistics)
    .filter(([tag]) => !excludedTags.has(tag))
    .reduce((sum, [, stat]) => sum + stat.count, 0);
  if (total <= 0) return { ...base };
  const tags = new Set([
    ...Object.keys(base),
    ...Object.keys(statistics),
    ...Object.keys(previous),
  ]);
  const updated: Record<string, number> = {};
  for (const tag of [...tags].sort()) {
    const rho0 = base[tag] ?? 1;
    let target: number;
    if (excludedTags.has(tag)) target = 1;
    else if (tag === 'pass') target = rho0;
    else {
      const stat = statistics[tag] ?? { count: 0, rewardSum: 0 };
      const prevalence = stat.count / total;
      const stagnation = 1 - (stat.count > 0 ? stat.rewardSum / stat.count : 0);
      const confidence = Math.min(1, stat.count / confidenceSamples);
      target = rho0 * (1 + alpha * prevalence * stagnation * confidence);
    }
    target = Math.min(maxScale, Math.max(minScale, target));
    updated[tag] = (1 - beta) * (previous[tag] ?? rho0) + beta * target;
  }
  return updated;
}

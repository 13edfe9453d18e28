import { stat } from 'node:fs/promises';
import { resolve } from 'node:path';
import { loadCapabilityState } from '@seal/diagnose';
import type { TagStatistics } from '@seal/evolve';
import type { StatisticsLoader } from './episode-params';

/**
 * Reads φ_cap's tag statistics from a capability-state file written by
 * `@seal/diagnose` (`diagnostic_evolution.state_path`): the window counters,
 * or the total ones when the window is empty. As SEAL does, a file is cached
 * per path and reread when it changed or the cache is older than `maxAgeMs`.
 * A missing file reads as empty statistics (a fresh run).
 */
export function createStateFileStatisticsLoader({
  maxAgeMs = 30_000,
  now = Date.now,
}: {
  /** Cache lifetime. Default 30,000 ms (SEAL). */
  maxAgeMs?: number;
  now?: () => number;
} = {}): StatisticsLoader {
  const cache = new Map<
    string,
    { loadedAt: number; mtimeMs: number; statistics: TagStatistics }
  >();
  return async (path) => {
    const absolute = resolve(path);
    const mtimeMs = await stat(absolute).then(
      (info) => info.mtimeMs,
      () => -1,
    );
    const cached = cache.get(absolute);
    if (
      cached &&
      cached.mtimeMs === mtimeMs &&
      now() - cached.loadedAt < maxAgeMs
    )
      return cached.statistics;
    const state = await loadCapabilityState({
      path: absolute,
      missing: 'empty',
    });
    const statistics: TagStatistics = Object.fromEntries(
      Object.entries(state.activeTagStats()).map(([tag, counters]) => [
        tag,
        { count: counters.count, rewardSum: counters.rewardSum },
      ]),
    );
    cache.set(absolute, { loadedAt: now(), mtimeMs, statistics });
    return statistics;
  };
}

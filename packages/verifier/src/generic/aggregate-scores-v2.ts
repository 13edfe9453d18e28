import type { VerifierV2Result } from '@seal/spec';

/** Success counts of one category. */
export type CategoryScoreV2 = {
  episodes: number;
  successes: number;
  /** successes / episodes. */
  successRate: number;
  /** Mean of the per-turn validity reward. */
  turnPassRate: number;
};

/** Scores over a set of episodes, by the environment's own categories. */
export type ScoresV2 = {
  overall: CategoryScoreV2;
  /** Keyed by `VerifierV2Result.category` (open strings), sorted by name. */
  byCategory: Record<string, CategoryScoreV2>;
  /** Turn-level tag counts (primary tags). */
  tags: Record<string, number>;
};

function scoreOf(results: readonly VerifierV2Result[]): CategoryScoreV2 {
  const successes = results.filter((result) => result.success).length;
  const validity = results.reduce(
    (sum, result) => sum + result.rewards.validity,
    0,
  );
  return {
    episodes: results.length,
    successes,
    successRate: results.length === 0 ? 0 : successes / results.length,
    turnPassRate: results.length === 0 ? 0 : validity / results.length,
  };
}

/**
 * Aggregates generic verdicts: overall and per category, whatever the
 * categories are (BFCL's four, or an environment's own), plus tag counts.
 */
export function aggregateScoresV2(
  results: readonly VerifierV2Result[],
): ScoresV2 {
  const groups = new Map<string, VerifierV2Result[]>();
  const tags: Record<string, number> = {};
  for (const result of results) {
    const group = groups.get(result.category) ?? [];
    group.push(result);
    groups.set(result.category, group);
    for (const turn of result.turns) tags[turn.tag] = (tags[turn.tag] ?? 0) + 1;
  }
  return {
    overall: scoreOf(results),
    byCategory: Object.fromEntries(
      [...groups.keys()]
        .sort()
        .map((category) => [category, scoreOf(groups.get(category)!)]),
    ),
    tags,
  };
}

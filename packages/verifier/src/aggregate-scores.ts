import { bfclCategories } from '@seal/bfcl';

/** One category's accuracy as BFCL's score files report it. */
export type CategoryScore = {
  accuracy: number;
  correctCount: number;
  totalCount: number;
};

/** BFCL's multi-turn accounting. */
export type BfclScores = {
  /** Accuracy per category that appeared. */
  categories: Record<string, CategoryScore>;
  /**
   * The multi-turn overall: the unweighted mean of the four category
   * accuracies (base, miss_func, miss_param, long_context); a category that
   * was not run counts as 0, as in BFCL.
   */
  overall: number;
};

/** Aggregates verdicts into per-category accuracy and BFCL's multi-turn overall. */
export function aggregateBfclScores(
  results: readonly { category: string; valid: boolean }[],
): BfclScores {
  const categories: Record<string, CategoryScore> = {};
  for (const { category, valid } of results) {
    const score = (categories[category] ??= {
      accuracy: 0,
      correctCount: 0,
      totalCount: 0,
    });
    score.totalCount++;
    if (valid) score.correctCount++;
  }
  for (const score of Object.values(categories))
    score.accuracy = score.correctCount / score.totalCount;
  const overall =
    bfclCategories.reduce(
      (sum, category) => sum + (categories[category]?.accuracy ?? 0),
      0,
    ) / bfclCategories.length;
  return { categories, overall };
}

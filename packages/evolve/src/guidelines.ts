import type { SystemNote } from '@seal/spec';

/** Tag statistics as φ_cap reads them (window or total counters of the capability state). */
export type TagStatistics = Readonly<
  Record<string, { count: number; rewardSum: number }>
>;

/** Settings of φ_cap (SEAL's `diagnostic_evolution`). */
export type GuidelineSettings = {
  /** Minimum share of a tag among failure tags. Default 0.10. */
  prevalenceThreshold?: number;
  /** Keep tags whose mean trajectory reward is below this (not yet solved). Default 0.6. */
  rewardThreshold?: number;
  /** Minimum occurrences. Default 8. */
  minTagCount?: number;
  /** Most lines added. Default 3. */
  maxLines?: number;
  /** Guideline text per tag; defaults to {@link defaultGuidelines}. `null` removes one. */
  guidelines?: Readonly<Record<string, string | null>>;
};

/** Built-in guideline per failure tag (our wording of SEAL's five). */
export const defaultGuidelines: Readonly<Record<string, string>> = {
  spurious_tool_call:
    '[Cautious-call] If no function clearly fits the request, answer in plain text instead of inventing a call.',
  empty_turn_model_response:
    '[Active-respond] If an available function can serve the request, you must call it.',
  state_mismatch:
    '[State-aware] Re-read the latest tool results before making a call that changes state.',
  instance_mismatch:
    '[Scope] Only act on targets that appeared in the request or in earlier tool results.',
  response_mismatch:
    '[Format] Match the requested output exactly: lists, units, exact strings and order.',
};

/** The heading of the guideline block in the system prompt. */
export const guidelineHeader =
  'Behavioral guidelines (env-evolved from recent failures):';

const excluded = new Set([
  'pass',
  'correct_abstention',
  'checker_error',
  'gt_error',
  'unknown',
]);

/** One selected guideline with the statistics that chose it. */
export type SelectedGuideline = {
  tag: string;
  text: string;
  prevalence: number;
  rewardMean: number;
  pressure: number;
};

/**
 * φ_cap (§4.4): from tag statistics, keep failure tags with enough count,
 * prevalence ≥ threshold and mean reward < threshold, rank by pressure =
 * prevalence × (1 − reward mean), and take the top lines. Empty at first; it
 * grows with the dominant failures and shrinks as they are mastered.
 */
export function selectGuidelines({
  statistics,
  settings = {},
}: {
  statistics: TagStatistics;
  settings?: GuidelineSettings;
}): SelectedGuideline[] {
  const prevalenceThreshold = settings.prevalenceThreshold ?? 0.1;
  const rewardThreshold = settings.rewardThreshold ?? 0.6;
  const minTagCount = settings.minTagCount ?? 8;
  const maxLines = settings.maxLines ?? 3;
  const texts = { ...defaultGuidelines, ...settings.guidelines };
  const candidates = Object.entries(statistics).filter(
    ([tag]) => !excluded.has(tag),
  );
  const total = candidates.reduce((sum, [, stat]) => sum + stat.count, 0);
  if (total === 0) return [];
  const selected: SelectedGuideline[] = [];
  for (const [tag, stat] of candidates) {
    const text = texts[tag];
    if (!text || stat.count < minTagCount) continue;
    const prevalence = stat.count / total;
    const rewardMean = stat.count > 0 ? stat.rewardSum / stat.count : 0;
    if (prevalence < prevalenceThreshold || rewardMean >= rewardThreshold)
      continue;
    selected.push({
      tag,
      text,
      prevalence,
      rewardMean,
      pressure: prevalence * (1 - rewardMean),
    });
  }
  return selected
    .sort((a, b) => b.pressure - a.pressure || a.tag.localeCompare(b.tag))
    .slice(0, maxLines);
}

/** The guideline block as a system note (none when nothing is selected). */
export function guidelineNote(
  selected: readonly SelectedGuideline[],
): SystemNote[] {
  if (selected.length === 0) return [];
  return [
    {
      source: 'guidelines',
      text: [guidelineHeader, ...selected.map((g) => `- ${g.text}`)].join('\n'),
    },
  ];
}

/** SEAL's utility weights ρ(z) (paper Table 6); tags not listed weigh 1. */
export const defaultTagWeights: Readonly<Record<string, number>> = {
  spurious_tool_call: 2.0,
  correct_abstention: 1.8,
  empty_turn_model_response: 1.5,
  state_mismatch: 1.0,
  response_mismatch: 0.9,
  instance_mismatch: 0.6,
  pass: 1.0,
};

/** Tags that reflect the scorer, not the model; never weighted. */
export const excludedTags: ReadonlySet<string> = new Set([
  'checker_error',
  'gt_error',
]);

/** A-Patch settings (§5.3). */
export type APatchSettings = {
  /** Lower clip of the trajectory weight. Default 0.5. */
  minScale?: number;
  /** Upper clip. Default 2. */
  maxScale?: number;
  /** `all` (paper), `positive_advantage` or `negative_advantage`. */
  applyTo?: 'all' | 'positive_advantage' | 'negative_advantage';
};

/**
 * The A-Patch weight of one trajectory: the mean of ρ over its turn tags
 * (excluded tags dropped), clipped to [minScale, maxScale]; 1 when no tags
 * remain. Equals Σ_z p_j(z)·ρ(z).
 */
export function trajectoryWeight({
  tags,
  weights,
  minScale = 0.5,
  maxScale = 2,
}: {
  tags: readonly string[];
  weights: Readonly<Record<string, number>>;
  minScale?: number;
  maxScale?: number;
}): number {
  const effective = tags.filter((tag) => !excludedTags.has(tag));
  if (effective.length === 0) return 1;
  const raw =
    effective.reduce(
      (sum, tag) => sum + (weights[tag] ?? defaultTagWeights[tag] ?? 1),
      0,
    ) / effective.length;
  return Math.min(maxScale, Math.max(minScale, raw));
}

/**
 * Scales GRPO advantages by the A-Patch weights: Ã_j = w_j·A_j, or only the
 * positive/negative ones per `applyTo`. Signs are kept (w > 0); a group with
 * equal rewards stays at zero. Returns the scaled advantages and the weights.
 */
export function applyAPatch({
  advantages,
  tags,
  weights,
  settings = {},
}: {
  advantages: readonly number[];
  /** Per trajectory, its per-turn tags. */
  tags: readonly (readonly string[])[];
  weights: Readonly<Record<string, number>>;
  settings?: APatchSettings;
}): { advantages: number[]; scales: number[] } {
  const applyTo = settings.applyTo ?? 'all';
  const scales = tags.map((list) =>
    trajectoryWeight({
      tags: list,
      weights,
      minScale: settings.minScale,
      maxScale: settings.maxScale,
    }),
  );
  const scaled = advantages.map((advantage, i) => {
    const scale = scales[i] ?? 1;
    if (applyTo === 'positive_advantage')
      return advantage > 0 ? advantage * scale : advantage;
    if (applyTo === 'negative_advantage')
      return advantage < 0 ? advantage * scale : advantage;
    return advantage * scale;
  });
  return { advantages: scaled, scales };
}

/** Where a turn sits in its trajectory (SEAL's `turn_position_bucket`). */
export type TurnPosition = 'only' | 'early' | 'middle' | 'late';

/**
 * SEAL's position bucket of turn `index` among `total` tags: `only` when
 * there is at most one; else by `(index + 1) / total`: ≤ 1/3 `early`,
 * ≤ 2/3 `middle`, otherwise `late` (the same double arithmetic as Python).
 */
export function turnPosition({
  index,
  total,
}: {
  index: number;
  total: number;
}): TurnPosition {
  if (total <= 1) return 'only';
  const ratio = (index + 1) / total;
  if (ratio <= 1 / 3) return 'early';
  if (ratio <= 2 / 3) return 'middle';
  return 'late';
}

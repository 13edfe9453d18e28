import { SealError } from '@seal/spec';

/**
 * The Wilson score 95% interval of `successes` of `total` (z = 1.959964);
 * [0, 1] with no trials. The same formula as `wilsonInterval` of `@seal/rl`,
 * kept here because `@seal/cod` does not depend on `@seal/rl`.
 */
export function readinessWilsonInterval({
  successes,
  total,
  z = 1.959964,
}: {
  successes: number;
  total: number;
  z?: number;
}): [number, number] {
  if (
    !Number.isInteger(successes) ||
    !Number.isInteger(total) ||
    successes < 0 ||
    total < 0 ||
    successes > total
  )
    throw new SealError({
      code: 'INVALID_ARGUMENT',
      message: `a proportion needs integers 0 ≤ successes ≤ total, got ${successes}/${total}`,
    });
  if (total === 0) return [0, 1];
  const p = successes / total;
  const denominator = 1 + (z * z) / total;
  const centre = (p + (z * z) / (2 * total)) / denominator;
  const half =
    (z * Math.sqrt((p * (1 - p)) / total + (z * z) / (4 * total * total))) /
    denominator;
  return [Math.max(0, centre - half), Math.min(1, centre + half)];
}

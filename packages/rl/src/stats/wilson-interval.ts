import { SealError } from '@seal/spec';

/**
 * The Wilson score interval of a proportion, `successes` of `total`, at 95%
 * (z = 1.959964) unless `z` says otherwise: it stays inside [0, 1] and keeps
 * its coverage near 0 and 1, where the normal (Wald) interval does neither.
 * With no trials it is [0, 1].
 */
export function wilsonInterval({
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

import { fnv1a64 } from './seeds';
import type { PhrasingPolicy } from './phrasing';
import type { TaskFamily } from './task-family';

/** The generator's splits. */
export const generatorSplits = [
  'train',
  'test-id',
  'test-ood',
  'warmup',
] as const;

/**
 * - `train`: the RL pool (in-distribution families and phrasings);
 * - `test-id`: the same families and phrasings, other values;
 * - `test-ood`: held-out phrasings of the in-distribution families, and
 *   class compositions that train never sees;
 * - `warmup`: base-style tasks for supervised warm-start demonstrations,
 *   disjoint from all the others.
 */
export type GeneratorSplit = (typeof generatorSplits)[number];

/** How many content buckets a task's fingerprint is hashed into. */
export const contentBucketCount = 20;

/**
 * Which content buckets each in-distribution split may use: warmup 4 of 20
 * (20%), the two test splits 3 of 20 (15%), train the other 13 (65%). A task
 * whose fingerprint falls into another split's bucket is redrawn, so no two
 * splits can share a task's values, whatever seeds and counts they use.
 */
export const splitBuckets: Readonly<
  Record<'warmup' | 'test' | 'train', readonly number[]>
> = {
  warmup: [0, 1, 2, 3],
  test: [4, 5, 6],
  train: [7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19],
};

/** The content bucket of a fingerprint. */
export function contentBucket(fingerprint: string): number {
  return Number(fnv1a64(`bucket:${fingerprint}`) % BigInt(contentBucketCount));
}

/**
 * Whether a task with this fingerprint may go to `split`. Tasks of held-out
 * compositions are never in another split, so any bucket does.
 */
export function bucketAllowed({
  split,
  family,
  fingerprint,
}: {
  split: GeneratorSplit;
  family: TaskFamily;
  fingerprint: string;
}): boolean {
  if (family.pool === 'out-of-distribution') return true;
  const group =
    split === 'train' ? 'train' : split === 'warmup' ? 'warmup' : 'test';
  return splitBuckets[group].includes(contentBucket(fingerprint));
}

/** The phrasings a split's tasks of a family may use. */
export function phrasingPolicyFor({
  split,
  family,
}: {
  split: GeneratorSplit;
  family: TaskFamily;
}): PhrasingPolicy {
  if (split !== 'test-ood') return 'in-distribution';
  return family.pool === 'out-of-distribution' ? 'any' : 'held-out';
}

/** The families a split draws from. */
export function familiesForSplit({
  split,
  families,
}: {
  split: GeneratorSplit;
  families: readonly TaskFamily[];
}): TaskFamily[] {
  return split === 'test-ood'
    ? [...families]
    : families.filter((family) => family.pool === 'in-distribution');
}

/** Whether a family has a long-context form (see {@link TaskFamily.longContext}). */
export function supportsLongContext(family: TaskFamily): boolean {
  return family.longContext;
}

import type { CapabilityTag } from '@seal/spec';

/** The tag counted for a trajectory that carried none (SEAL's `UNKNOWN_TAG`). */
export const unknownTag = 'unknown' as const;

/**
 * SEAL's `dominant_failure_tag`: the most frequent tag other than `pass`
 * (ties go to the tag seen first, as Python's `Counter.most_common`), else
 * `pass` if any turn passed, else `unknown`. Empty or missing tags are
 * skipped; no tags at all gives `unknown`.
 */
export function dominantTag(
  tags: readonly (string | null | undefined)[] | null | undefined,
): string {
  if (!tags || tags.length === 0) return unknownTag;
  const counts = new Map<string, number>();
  let sawPass = false;
  for (const tag of tags) {
    if (!tag) continue;
    if (tag === 'pass') sawPass = true;
    else counts.set(tag, (counts.get(tag) ?? 0) + 1);
  }
  let best: string | undefined;
  let bestCount = 0;
  // Map iteration is insertion order, so a strict `>` keeps the first-seen tag on ties.
  for (const [tag, count] of counts) {
    if (count > bestCount) {
      best = tag;
      bestCount = count;
    }
  }
  return best ?? (sawPass ? 'pass' : unknownTag);
}

/** {@link dominantTag} narrowed to the tags SEAL's verifier emits. */
export function dominantCapabilityTag(
  tags: readonly CapabilityTag[],
): CapabilityTag {
  return dominantTag(tags) as CapabilityTag;
}

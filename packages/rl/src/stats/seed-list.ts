import { SealError } from '@seal/spec';

/**
 * Parses a comma list of seeds (`1,2,3,4,5`) for a multi-seed design. Each
 * seed must be a non-negative integer and appear once: a seed listed twice
 * would count one training run twice in the pooled intervals (and run it
 * twice), which looks like more evidence than there is. `flag` names the
 * option in the message.
 */
export function parseSeedList({
  text,
  flag = '--seeds',
}: {
  text: string;
  flag?: string;
}): number[] {
  const parts = text.split(',').map((part) => part.trim());
  const bad = parts.filter((part) => !/^\d+$/.test(part));
  if (parts.length === 0 || bad.length > 0)
    throw new SealError({
      code: 'INVALID_ARGUMENT',
      message: `${flag} must be a comma list of non-negative integers, got '${text}'${bad.length > 0 ? ` (not an integer: ${bad.map((part) => `'${part}'`).join(', ')})` : ''}`,
    });
  const seeds = parts.map(Number);
  const duplicates = [
    ...new Set(seeds.filter((seed, i) => seeds.indexOf(seed) !== i)),
  ];
  if (duplicates.length > 0)
    throw new SealError({
      code: 'INVALID_ARGUMENT',
      message: `${flag} lists seed ${duplicates.join(', ')} more than once (got '${text}'); each seed is one training run and is listed once`,
      details: { duplicates },
    });
  return seeds;
}

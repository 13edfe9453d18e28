import { SealError } from '@seal/spec';
import { describe, expect, it } from 'vitest';
import { parseSeedList } from './seed-list';

function errorOf(run: () => unknown): SealError {
  try {
    run();
  } catch (error) {
    if (SealError.isInstance(error)) return error;
    throw error;
  }
  throw new Error('expected a SealError');
}

describe('parseSeedList', () => {
  it('should parse a comma list of distinct seeds in order', () => {
    expect(parseSeedList({ text: '1,2,3,4,5' })).toEqual([1, 2, 3, 4, 5]);
    expect(parseSeedList({ text: ' 3, 1 ' })).toEqual([3, 1]);
  });

  it('should refuse a seed listed twice with one error naming it', () => {
    const error = errorOf(() => parseSeedList({ text: '1,1,2' }));
    expect(error.code).toBe('INVALID_ARGUMENT');
    expect(error.message).toMatch(/--seeds lists seed 1 more than once/);
    expect(error.details).toEqual({ duplicates: [1] });
  });

  it('should refuse what is not a non-negative integer', () => {
    for (const text of ['1,x', '1.5', '', '1,,2', '-1']) {
      const error = errorOf(() => parseSeedList({ text, flag: '--seed-list' }));
      expect(error.code).toBe('INVALID_ARGUMENT');
      expect(error.message).toMatch(/^--seed-list must be a comma list/);
    }
  });
});

import { describe, expect, it } from 'vitest';
import { dominantTag } from './dominant-tag';

describe('dominantTag', () => {
  it('should pick the most frequent non-pass tag', () => {
    expect(
      dominantTag([
        'pass',
        'state_mismatch',
        'pass',
        'response_mismatch',
        'state_mismatch',
      ]),
    ).toBe('state_mismatch');
  });

  it('should break ties by the tag seen first, as Counter.most_common does', () => {
    expect(
      dominantTag([
        'response_mismatch',
        'state_mismatch',
        'state_mismatch',
        'response_mismatch',
      ]),
    ).toBe('response_mismatch');
  });

  it('should give pass when every turn passed', () => {
    expect(dominantTag(['pass', 'pass'])).toBe('pass');
  });

  it('should give unknown without tags, and skip missing ones', () => {
    expect(dominantTag([])).toBe('unknown');
    expect(dominantTag(undefined)).toBe('unknown');
    expect(dominantTag([null, '', undefined])).toBe('unknown');
    expect(dominantTag([null, 'pass'])).toBe('pass');
  });
});

import { describe, expect, it } from 'vitest';
import { turnPosition } from './turn-position';

describe('turnPosition', () => {
  it('should give only for a single tag', () => {
    expect(turnPosition({ index: 0, total: 1 })).toBe('only');
  });

  it('should bucket by (index + 1) / total with inclusive thirds', () => {
    expect([0, 1, 2].map((index) => turnPosition({ index, total: 3 }))).toEqual(
      ['early', 'middle', 'late'],
    );
    expect(
      [0, 1, 2, 3].map((index) => turnPosition({ index, total: 4 })),
    ).toEqual(['early', 'middle', 'late', 'late']);
    expect(
      [0, 1, 2, 3, 4, 5].map((index) => turnPosition({ index, total: 6 })),
    ).toEqual(['early', 'early', 'middle', 'middle', 'late', 'late']);
    expect([0, 1].map((index) => turnPosition({ index, total: 2 }))).toEqual([
      'middle',
      'late',
    ]);
  });
});

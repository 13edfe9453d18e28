import { describe, expect, it } from 'vitest';
import { formatFixed, pyRound, pyRoundToInt } from './py-format';

// [value, digits, '%.*f' % (digits, value), round(value, digits)] from CPython.
const cases: [number, number, string, number][] = [
  [0.125, 2, '0.12', 0.12],
  [0.375, 2, '0.38', 0.38],
  [2.5, 0, '2', 2.0],
  [3.5, 0, '4', 4.0],
  [2.675, 2, '2.67', 2.67],
  [-0.001, 2, '-0.00', -0.0],
  [1.005, 2, '1.00', 1.0],
  [0.5, 0, '0', 0.0],
  [1.5, 0, '2', 2.0],
  [-2.5, 0, '-2', -2.0],
  [1234.5678, 1, '1234.6', 1234.6],
  [1e21, 2, '1000000000000000000000.00', 1e21],
  [0.045, 2, '0.04', 0.04],
  [9.995, 2, '9.99', 9.99],
];

describe('formatFixed', () => {
  it.each(cases)(
    'should format %s to %s digits like CPython',
    (value, digits, text) => {
      expect(formatFixed(value, digits)).toBe(text);
    },
  );
});

describe('pyRound', () => {
  it.each(cases)(
    'should round %s to %s digits like CPython',
    (value, digits, _text, rounded) => {
      expect(pyRound(value, digits)).toBe(rounded);
    },
  );

  it('should round to int with ties to even', () => {
    expect(pyRoundToInt(2.5)).toBe(2n);
    expect(pyRoundToInt(3.5)).toBe(4n);
    expect(pyRoundToInt(-0.5)).toBe(0n);
  });
});

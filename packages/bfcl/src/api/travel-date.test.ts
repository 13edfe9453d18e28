import { describe, expect, it } from 'vitest';
import { pyIntOfDigits, pyIsDigit, strptimeYearMonthDay } from './travel-date';

// Expected values checked against CPython 3.11.

describe('strptimeYearMonthDay', () => {
  it('should accept the forms CPython accepts for %Y-%m-%d', () => {
    expect(strptimeYearMonthDay('2024-02-29')).toEqual({
      year: 2024,
      month: 2,
      day: 29,
    });
    expect(strptimeYearMonthDay('2024-1-5')).toEqual({
      year: 2024,
      month: 1,
      day: 5,
    });
    expect(strptimeYearMonthDay('2024-01- 5')).toEqual({
      year: 2024,
      month: 1,
      day: 5,
    });
    // `\d` is Unicode in CPython's regex: Arabic-Indic digits make a year.
    expect(strptimeYearMonthDay('٢٠٢٤-01-05')).toEqual({
      year: 2024,
      month: 1,
      day: 5,
    });
  });

  it('should reject what raises ValueError in CPython', () => {
    for (const text of [
      '2023-02-29',
      '0000-01-01',
      '2024-13-01',
      '2024-01-05 ',
      '2024-01-05\n',
      '２０２４-01-0５',
      '24-01-05',
    ]) {
      expect(strptimeYearMonthDay(text)).toBeUndefined();
    }
  });

  it('should raise the TypeError CPython raises for a non-string', () => {
    expect(() => strptimeYearMonthDay(20240105n)).toThrow(
      'strptime() argument 1 must be str, not int',
    );
    expect(() => strptimeYearMonthDay(null)).toThrow(
      'strptime() argument 1 must be str, not None',
    );
  });
});

describe('pyIsDigit and pyIntOfDigits', () => {
  it('should follow str.isdigit() and int()', () => {
    expect(pyIsDigit('2024')).toBe(true);
    expect(pyIsDigit('')).toBe(false);
    expect(pyIsDigit('²')).toBe(true);
    expect(pyIsDigit('-1')).toBe(false);
    expect(pyIntOfDigits('٢٠٢٤')).toBe(2024n);
    expect(pyIntOfDigits('𝟗')).toBe(9n);
    expect(() => pyIntOfDigits('1²')).toThrow(
      "invalid literal for int() with base 10: '1²'",
    );
  });
});

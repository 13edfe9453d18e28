import { PyException, type PyValue } from '@seal/python';
import { describe, expect, it } from 'vitest';
import {
  compareDateTimes,
  datetimeMax,
  datetimeMin,
  pyStrptime,
  transactionTimestamp,
  type TradingBotTimeFormat,
} from './trading-bot-time';

// Expected values and messages come from CPython 3.11's datetime.strptime.

function message(run: () => unknown): string {
  try {
    run();
  } catch (error) {
    if (PyException.isInstance(error))
      return `${error.pyType}: ${error.message}`;
    throw error;
  }
  return 'no exception';
}

describe('pyStrptime', () => {
  it.each<[string, TradingBotTimeFormat, readonly number[]]>([
    ['1:30\tPM', '%I:%M %p', [1900, 1, 1, 13, 30, 0, 0]],
    ['12:00 AM', '%I:%M %p', [1900, 1, 1, 0, 0, 0, 0]],
    ['1:3\u0660 PM', '%I:%M %p', [1900, 1, 1, 13, 30, 0, 0]],
    ['10:30\u001cAM', '%I:%M %p', [1900, 1, 1, 10, 30, 0, 0]],
    ['2024-1-5', '%Y-%m-%d', [2024, 1, 5, 0, 0, 0, 0]],
    ['2024-10- 5', '%Y-%m-%d', [2024, 10, 5, 0, 0, 0, 0]],
    ['2024-02-29', '%Y-%m-%d', [2024, 2, 29, 0, 0, 0, 0]],
    ['\u0661\u0662\u0663\u0664-01-01', '%Y-%m-%d', [1234, 1, 1, 0, 0, 0, 0]],
    ['2024-09-01 10:30:05', '%Y-%m-%d %H:%M:%S', [2024, 9, 1, 10, 30, 5, 0]],
  ])('should parse %j with %s', (text, format, expected) => {
    expect(pyStrptime(text, format)).toEqual(expected);
  });

  it.each<[PyValue, TradingBotTimeFormat, string]>([
    [
      ' 1:30 PM',
      '%I:%M %p',
      "ValueError: time data ' 1:30 PM' does not match format '%I:%M %p'",
    ],
    ['1:30 PMx', '%I:%M %p', 'ValueError: unconverted data remains: x'],
    [
      '10:30 \uff21\uff2d',
      '%I:%M %p',
      "ValueError: time data '10:30 \uff21\uff2d' does not match format '%I:%M %p'",
    ],
    [
      '10:30\ufeffAM',
      '%I:%M %p',
      "ValueError: time data '10:30\\ufeffAM' does not match format '%I:%M %p'",
    ],
    ['0000-01-01', '%Y-%m-%d', 'ValueError: year 0 is out of range'],
    ['2023-02-29', '%Y-%m-%d', 'ValueError: day is out of range for month'],
    [
      '2024-09-01 10:30:60',
      '%Y-%m-%d %H:%M:%S',
      'ValueError: second must be in 0..59',
    ],
    [
      '2024-09-01 24:00:00',
      '%Y-%m-%d %H:%M:%S',
      "ValueError: time data '2024-09-01 24:00:00' does not match format '%Y-%m-%d %H:%M:%S'",
    ],
    [
      "it's",
      '%Y-%m-%d',
      "ValueError: time data \"it's\" does not match format '%Y-%m-%d'",
    ],
    [
      null,
      '%Y-%m-%d',
      'TypeError: strptime() argument 1 must be str, not None',
    ],
    [
      2.5,
      '%Y-%m-%d',
      'TypeError: strptime() argument 1 must be str, not float',
    ],
    [
      ['x'],
      '%Y-%m-%d',
      'TypeError: strptime() argument 1 must be str, not list',
    ],
  ])('should reject %j with %s as Python does', (value, format, expected) => {
    expect(message(() => pyStrptime(value, format))).toBe(expected);
  });
});

describe('compareDateTimes', () => {
  it('should order field by field between datetime.min and datetime.max', () => {
    const value = pyStrptime('2024-09-01 10:30:05', '%Y-%m-%d %H:%M:%S');
    expect(compareDateTimes(datetimeMin, value)).toBeLessThan(0);
    expect(compareDateTimes(value, datetimeMax)).toBeLessThan(0);
    expect(
      compareDateTimes(value, pyStrptime('2024-09-01', '%Y-%m-%d')),
    ).toBeGreaterThan(0);
    expect(compareDateTimes(value, value)).toBe(0);
  });
});

describe('transactionTimestamp', () => {
  it('should add the drawn seconds to 2024-09-01 10:30 and roll over midnight', () => {
    expect(transactionTimestamp(0n)).toBe('2024-09-01 10:30:00');
    expect(transactionTimestamp(7_054n)).toBe('2024-09-01 12:27:34');
    expect(transactionTimestamp(86_400n)).toBe('2024-09-02 10:30:00');
  });
});

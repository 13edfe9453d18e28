import { describe, expect, it } from 'vitest';
import { isArgumentError } from './argument-error';

describe('isArgumentError', () => {
  describe('argument errors', () => {
    it.each([
      [
        "GorillaFileSystem.sort() missing 1 required positional argument: 'file_name'",
      ],
      ["GorillaFileSystem.cd() got an unexpected keyword argument 'path'"],
      ['GorillaFileSystem.pwd() takes 1 positional argument but 2 were given'],
      [
        'TravelAPI.book_flight() takes from 6 to 8 positional arguments but 9 were given',
      ],
      ["MathAPI.add() got multiple values for argument 'a'"],
      ["unsupported operand type(s) for +: 'int' and 'str'"],
      ["'<' not supported between instances of 'str' and 'int'"],
      ["'int' object is not subscriptable"],
      ['must be str, not int'],
      ["invalid literal for int() with base 10: 'abc'"],
      ["time data '2024/01/01' does not match format '%Y-%m-%d'"],
      ['Invalid date format. Use YYYY-MM-DD.'],
      ['Error during execution: Invalid option'],
      ['Fan speed must be between 0 and 100.'],
      ['Expected a list of numbers, got str'],
    ])('should count %s', (text) => {
      expect(isArgumentError(text)).toBe(true);
    });
  });

  describe('state errors', () => {
    it.each([
      ['cd: work: No such directory. You cannot use path to change directory.'],
      ['cat: missing.txt: No such file or directory'],
      ['User not authenticated. Please log in to make a transaction.'],
      ['Order with ID 1 not found.'],
      ['Insufficient funds for withdrawal.'],
      ['Brake pedal needs to be pressed when starting the engine.'],
      ['Market is closed. Transactions are not allowed.'],
    ])('should not count %s', (text) => {
      expect(isArgumentError(text)).toBe(false);
    });
  });
});

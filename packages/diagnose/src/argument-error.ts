/** One rule of {@link argumentErrorPatterns}. */
export type ArgumentErrorPattern = {
  /** What the rule recognises. */
  readonly name: string;
  /** Tested against the error text. */
  readonly pattern: RegExp;
};

/**
 * The error texts that make a tool error an `argument_mismatch`: the call
 * reached a valid tool, but an argument's presence, name, type or value was
 * wrong. Three groups:
 * 1. Python's argument binding (a `TypeError` before the tool body runs):
 *    missing required arguments, unexpected keyword arguments, too many
 *    positional arguments, a value given twice.
 * 2. Type errors from an argument of the wrong type used in the tool body
 *    (`unsupported operand type(s)`, `'<' not supported between instances`,
 *    `object is not subscriptable/iterable`, `has no len()`, `must be str,
 *    not int`, an attribute missing on the passed object, ...), and SEAL's
 *    φ_err rule 7: a text naming both `expected` and `got`.
 * 3. Value errors: Python conversions (`invalid literal for int()`,
 *    `could not convert`, `time data ... does not match format`) and BFCL's
 *    own argument checks, which all begin with `Invalid ` (`Invalid option`,
 *    `Invalid date format. Use YYYY-MM-DD.`, `Invalid access token`, ...) or
 *    state a range or kind (`must be between`, `must be positive`,
 *    `must be a number`, `must be one of`, `cannot be negative`).
 * Everything else is a state error, not an argument error: a missing file or
 * id (`No such file or directory`, `... not found`), authentication, funds,
 * market hours, preconditions (`Brake pedal needs to be pressed`).
 */
export const argumentErrorPatterns: readonly ArgumentErrorPattern[] = [
  {
    name: 'missing-argument',
    pattern: /missing \d+ required (?:positional|keyword-only) arguments?/,
  },
  { name: 'unexpected-keyword', pattern: /got an unexpected keyword argument/ },
  {
    name: 'too-many-positional',
    pattern:
      /takes (?:from \d+ to )?\d+ positional arguments? but \d+ (?:was|were) given|takes no arguments/,
  },
  {
    name: 'duplicate-argument',
    pattern: /got multiple values for (?:keyword )?argument/,
  },
  {
    name: 'positional-only',
    pattern: /got some positional-only arguments passed as keyword arguments/,
  },
  {
    name: 'wrong-type',
    pattern:
      /unsupported operand type\(s\)|not supported between instances of|object is not (?:subscriptable|iterable|callable)|has no len\(\)|can only concatenate|must be (?:a )?[\w.]+(?: or [\w.]+)?, not |indices must be integers|cannot be interpreted as an integer|object has no attribute|bad operand type/,
  },
  {
    name: 'expected-got',
    pattern: /\bexpected\b[\s\S]*\bgot\b|\bgot\b[\s\S]*\bexpected\b/i,
  },
  {
    name: 'conversion',
    pattern:
      /invalid literal for|could not convert|time data .* does not match format|unconverted data remains/,
  },
  {
    name: 'invalid-value',
    pattern: /^(?:Error during execution: )?(?:[\w-]+: )?Invalid\b/,
  },
  {
    name: 'out-of-range',
    pattern:
      /must be (?:between|positive|non-negative|a number|an integer|one of)|cannot be negative/i,
  },
];

/** True when `error` matches one of {@link argumentErrorPatterns}. */
export function isArgumentError(error: string): boolean {
  return argumentErrorPatterns.some(({ pattern }) => pattern.test(error));
}

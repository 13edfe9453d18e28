/**
 * Strict flag parsing for the benchmarks that take a few `--name value`
 * options: an unknown option, a missing value or a stray positional is
 * refused (`bench/run.ts` prints it in one line) instead of being ignored, so
 * a typo never runs a long benchmark with its defaults.
 */
import { parseArgs } from 'node:util';

/** The parsed flags: `value(name)` for the string options, `has(name)` for the switches. */
export interface BenchFlags<S extends string, B extends string> {
  value(name: S): string | undefined;
  has(name: B): boolean;
}

export function benchFlags<S extends string, B extends string = never>(
  strings: readonly S[],
  switches: readonly B[] = [],
  args: string[] = process.argv.slice(2),
): BenchFlags<S, B> {
  const options: Record<string, { type: 'string' | 'boolean' }> = {};
  for (const name of strings) options[name] = { type: 'string' };
  for (const name of switches) options[name] = { type: 'boolean' };
  const { values } = parseArgs({
    args,
    options,
    strict: true,
    allowPositionals: false,
  });
  const record = values as Record<string, string | boolean | undefined>;
  return {
    value: (name) => record[name] as string | undefined,
    has: (name) => record[name] === true,
  };
}

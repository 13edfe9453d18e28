import { parseArgs, type ParseArgsConfig } from 'node:util';
import { SealError, parseWithSchema } from '@seal/spec';
import type * as z from 'zod';

/**
 * Parses a command's flags with `node:util` and validates them with a zod
 * schema; unknown flags and bad values become INVALID_ARGUMENT SealErrors.
 */
export function parseFlags<T>({
  argv,
  options,
  schema,
  allowPositionals = false,
}: {
  argv: string[];
  options: NonNullable<ParseArgsConfig['options']>;
  schema: z.ZodType<T>;
  allowPositionals?: boolean;
}): { flags: T; positionals: string[] } {
  let parsed: { values: Record<string, unknown>; positionals: string[] };
  try {
    parsed = parseArgs({
      args: argv,
      options,
      allowPositionals,
      strict: true,
    }) as typeof parsed;
  } catch (error) {
    throw new SealError({
      code: 'INVALID_ARGUMENT',
      message: (error as Error).message,
      cause: error,
    });
  }
  try {
    return {
      flags: parseWithSchema({ schema, value: parsed.values, source: 'flags' }),
      positionals: parsed.positionals,
    };
  } catch (error) {
    const message = (error as Error).message.replace(
      /^flags: field '([^']+)'/,
      '--$1',
    );
    throw new SealError({ code: 'INVALID_ARGUMENT', message, cause: error });
  }
}

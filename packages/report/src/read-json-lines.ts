import { readFile } from 'node:fs/promises';
import {
  SealError,
  safeParseJsonLines,
  type JsonLinesResult,
} from '@seal/spec';
import type * as z from 'zod';

export type { JsonLinesResult };

/**
 * Reads a JSON Lines file and parses each line with `schema`, with
 * `@seal/spec`'s reader. A run that is still being written (or crashed) may
 * end in a torn line: it is skipped with a warning, as is any other line
 * that is not valid JSON or does not match. Lines that `accept` rejects
 * (another record type) are skipped silently.
 *
 * Throws a SealError `FILE_NOT_FOUND` when the file cannot be read.
 */
export async function readJsonLines<T>({
  path,
  schema,
  accept,
}: {
  path: string;
  schema: z.ZodType<T>;
  accept?: (value: unknown) => boolean;
}): Promise<JsonLinesResult<T>> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    throw new SealError({
      code: 'FILE_NOT_FOUND',
      message: `cannot read ${path}`,
      cause: error,
      details: { file: path },
    });
  }
  return safeParseJsonLines({
    text,
    source: path,
    schema,
    ...(accept ? { accept } : {}),
  });
}

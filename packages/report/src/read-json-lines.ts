import { readFile } from 'node:fs/promises';
import { SealError, safeParseWithSchema, type SealWarning } from '@seal/spec';
import type * as z from 'zod';

/** What {@link readJsonLines} returns: the parsed values and what was skipped. */
export type JsonLinesResult<T> = {
  values: T[];
  /** One warning per skipped line (a torn last line, a malformed line). */
  warnings: SealWarning[];
};

/**
 * Reads a JSON Lines file and parses each line with `schema`. A run that is
 * still being written (or crashed) may end in a torn line: it is skipped with
 * a warning, as is any other line that is not valid JSON or does not match.
 * Lines that `accept` rejects (another record type) are skipped silently.
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
  return parseJsonLines({
    text,
    source: path,
    schema,
    ...(accept ? { accept } : {}),
  });
}

/** {@link readJsonLines} on text already in memory (`source` names it in warnings). */
export function parseJsonLines<T>({
  text,
  source,
  schema,
  accept,
}: {
  text: string;
  source: string;
  schema: z.ZodType<T>;
  accept?: (value: unknown) => boolean;
}): JsonLinesResult<T> {
  const values: T[] = [];
  const warnings: SealWarning[] = [];
  const lines = text.split('\n');
  // A complete file ends with '\n'; anything after the last one is a line
  // still being written, or torn by a crash.
  const complete = text.endsWith('\n');
  lines.forEach((line, index) => {
    if (line.trim() === '') return;
    const where = `${source}:${index + 1}`;
    const last = index === lines.length - 1 && !complete;
    let value: unknown;
    try {
      value = JSON.parse(line) as unknown;
    } catch {
      warnings.push({
        type: 'other',
        message: last
          ? `${where}: skipped a truncated last line`
          : `${where}: skipped a line that is not JSON`,
      });
      return;
    }
    if (accept && !accept(value)) return;
    const parsed = safeParseWithSchema({ schema, value, source: where });
    if (parsed.success) values.push(parsed.value);
    else
      warnings.push({
        type: 'other',
        message: `skipped: ${parsed.error.message}`,
      });
  });
  return { values, warnings };
}

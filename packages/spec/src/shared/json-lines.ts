import type * as z from 'zod';
import { SealError } from '../errors/seal-error';
import { safeParseWithSchema } from './parse';
import type { SealWarning } from './seal-warning';

/** What {@link safeParseJsonLines} returns. */
export type JsonLinesResult<T> = {
  /** The parsed lines, in file order. */
  values: T[];
  /** For each value, its 1-based line number and its text as written. */
  lines: { lineNumber: number; text: string }[];
  /** One warning per skipped line (a torn last line, a malformed line). */
  warnings: SealWarning[];
};

type JsonLinesOptions<T> = {
  /** JSON Lines text: one JSON value per line, blank lines ignored. */
  text: string;
  /** Names the text in errors and warnings (a file path): `source:line`. */
  source: string;
  schema: z.ZodType<T>;
  /** Lines this rejects (another record type) are skipped silently. */
  accept?: (value: unknown) => boolean;
};

/** Each non-blank line with its 1-based number, and whether the text ends with a newline. */
function splitLines(text: string): {
  lines: { lineNumber: number; text: string; last: boolean }[];
  complete: boolean;
} {
  const all = text.split('\n');
  const lines = all
    .map((line, index) => ({
      lineNumber: index + 1,
      text: line,
      last: index === all.length - 1,
    }))
    .filter((line) => line.text.trim() !== '');
  return { lines, complete: text.endsWith('\n') };
}

/** One parsed line of {@link parseJsonLineEntries}. */
export type JsonLineEntry<T> = {
  value: T;
  /** 1-based. */
  lineNumber: number;
  /** `source:lineNumber`, for messages about the record. */
  source: string;
};

/**
 * Parses JSON Lines text, each line with `schema`. A line that is not JSON
 * or does not match throws a SealError `INVALID_DATA` naming `source` and
 * the line number (`runs/r/events.jsonl:12: field 'step': …`).
 */
export function parseJsonLines<T>(options: JsonLinesOptions<T>): T[] {
  return parseJsonLineEntries(options).map((entry) => entry.value);
}

/** {@link parseJsonLines} with each value's line number and `source:line`. */
export function parseJsonLineEntries<T>({
  text,
  source,
  schema,
  accept,
}: JsonLinesOptions<T>): JsonLineEntry<T>[] {
  const entries: JsonLineEntry<T>[] = [];
  for (const line of splitLines(text).lines) {
    const where = `${source}:${line.lineNumber}`;
    let value: unknown;
    try {
      value = JSON.parse(line.text) as unknown;
    } catch (error) {
      throw new SealError({
        code: 'INVALID_DATA',
        message: `${where}: invalid JSON (${(error as Error).message})`,
        cause: error,
        details: { source: where },
      });
    }
    if (accept && !accept(value)) continue;
    const parsed = safeParseWithSchema({ schema, value, source: where });
    if (!parsed.success) throw parsed.error;
    entries.push({
      value: parsed.value,
      lineNumber: line.lineNumber,
      source: where,
    });
  }
  return entries;
}

/**
 * Like {@link parseJsonLines}, for files that may be still being written or
 * cut by a crash: a line that is not JSON (a torn last line, or one a crash
 * tore before later appends) or does not match is skipped with a warning
 * naming `source` and the line number.
 */
export function safeParseJsonLines<T>({
  text,
  source,
  schema,
  accept,
}: JsonLinesOptions<T>): JsonLinesResult<T> {
  const result: JsonLinesResult<T> = { values: [], lines: [], warnings: [] };
  const { lines, complete } = splitLines(text);
  for (const line of lines) {
    const where = `${source}:${line.lineNumber}`;
    let value: unknown;
    try {
      value = JSON.parse(line.text) as unknown;
    } catch {
      result.warnings.push({
        type: 'other',
        message:
          line.last && !complete
            ? `${where}: skipped a truncated last line`
            : `${where}: skipped a line that is not JSON`,
      });
      continue;
    }
    if (accept && !accept(value)) continue;
    const parsed = safeParseWithSchema({ schema, value, source: where });
    if (parsed.success) {
      result.values.push(parsed.value);
      result.lines.push({ lineNumber: line.lineNumber, text: line.text });
    } else {
      result.warnings.push({
        type: 'other',
        message: `skipped: ${parsed.error.message}`,
      });
    }
  }
  return result;
}

/** JSON Lines text of `values`: one `JSON.stringify` per line, each ended by a newline. */
export function formatJsonLines(values: readonly unknown[]): string {
  return values.map((value) => `${JSON.stringify(value)}\n`).join('');
}

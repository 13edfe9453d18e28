import type * as z from 'zod';
import { SealError } from '../errors/seal-error';

/** The result of a `safeParse*` function. */
export type SafeParseResult<T> =
  { success: true; value: T } | { success: false; error: SealError };

function describeIssues(error: z.ZodError): { path: string; message: string } {
  const issue = error.issues[0];
  const path = issue === undefined ? '' : issue.path.map(String).join('.');
  return { path, message: issue?.message ?? 'invalid value' };
}

/**
 * Validates `value` with `schema`; throws a SealError `INVALID_DATA` naming the
 * dotted path of the first problem (and `source`, e.g. a file and line).
 */
export function parseWithSchema<T>({
  schema,
  value,
  source,
}: {
  schema: z.ZodType<T>;
  value: unknown;
  source?: string;
}): T {
  const result = safeParseWithSchema({ schema, value, source });
  if (!result.success) throw result.error;
  return result.value;
}

/** Like {@link parseWithSchema} but returns `{ success, value | error }`. */
export function safeParseWithSchema<T>({
  schema,
  value,
  source,
}: {
  schema: z.ZodType<T>;
  value: unknown;
  source?: string;
}): SafeParseResult<T> {
  const result = schema.safeParse(value);
  if (result.success) return { success: true, value: result.data };
  const { path, message } = describeIssues(result.error);
  const where = source === undefined ? '' : `${source}: `;
  const field = path === '' ? '' : `field '${path}': `;
  return {
    success: false,
    error: new SealError({
      code: 'INVALID_DATA',
      message: `${where}${field}${message}`,
      cause: result.error,
      details: { ...(source === undefined ? {} : { source }), path },
    }),
  };
}

/** `JSON.parse` that throws a SealError `INVALID_DATA` naming `source`. */
export function parseJsonText({
  text,
  source,
}: {
  text: string;
  source?: string;
}): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    throw new SealError({
      code: 'INVALID_DATA',
      message: `${source === undefined ? '' : `${source}: `}invalid JSON (${(error as Error).message})`,
      cause: error,
      details: source === undefined ? {} : { source },
    });
  }
}

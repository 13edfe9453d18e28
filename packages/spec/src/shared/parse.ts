import type * as z from 'zod';
import { SealError } from '../errors/seal-error';

/** The result of a `safeParse*` function. */
export type SafeParseResult<T> =
  { success: true; value: T } | { success: false; error: SealError };

function describeIssues(
  error: z.ZodError,
  prefix: readonly string[],
): { path: string; message: string } {
  const issue = error.issues[0];
  const path = [...prefix, ...(issue?.path ?? []).map(String)].join('.');
  return { path, message: issue?.message ?? 'invalid value' };
}

/** What {@link parseWithSchema} and {@link safeParseWithSchema} take. */
export type ParseWithSchemaOptions<T> = {
  schema: z.ZodType<T>;
  value: unknown;
  /** Where the value came from (a file, a file and line), named first in the message. */
  source?: string | undefined;
  /** Where the value sits in a larger one (`['params']`): prefixes the dotted path. */
  path?: readonly string[];
  /** The error's code: `INVALID_DATA` (the default) for data, `INVALID_ARGUMENT` for a caller's options or request. */
  code?: 'INVALID_DATA' | 'INVALID_ARGUMENT';
};

/**
 * Validates `value` with `schema`; throws a SealError (`INVALID_DATA` unless
 * `code` says otherwise) naming the dotted path of the first problem (and
 * `source`, e.g. a file and line), with the path in `details.path` and the
 * ZodError as `cause`.
 */
export function parseWithSchema<T>(options: ParseWithSchemaOptions<T>): T {
  const result = safeParseWithSchema(options);
  if (!result.success) throw result.error;
  return result.value;
}

/** Like {@link parseWithSchema} but returns `{ success, value | error }`. */
export function safeParseWithSchema<T>({
  schema,
  value,
  source,
  path: prefix = [],
  code = 'INVALID_DATA',
}: ParseWithSchemaOptions<T>): SafeParseResult<T> {
  const result = schema.safeParse(value);
  if (result.success) return { success: true, value: result.data };
  const { path, message } = describeIssues(result.error, prefix);
  const where = source === undefined ? '' : `${source}: `;
  const field = path === '' ? '' : `field '${path}': `;
  return {
    success: false,
    error: new SealError({
      code,
      message: `${where}${field}${message}`,
      cause: result.error,
      details: { ...(source === undefined ? {} : { source }), path },
    }),
  };
}

/**
 * Parses JSON text and validates it with `schema`: {@link parseJsonText}
 * then {@link parseWithSchema}, both naming `source`.
 */
export function parseJsonWithSchema<T>({
  text,
  schema,
  source,
}: {
  text: string;
  schema: z.ZodType<T>;
  source?: string;
}): T {
  return parseWithSchema({
    schema,
    value: parseJsonText({ text, source }),
    source,
  });
}

/** `JSON.parse` that throws a SealError `INVALID_DATA` naming `source`. */
export function parseJsonText({
  text,
  source,
}: {
  text: string;
  source?: string | undefined;
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

import { SealError } from '@seal/spec';
import type * as z from 'zod';

/**
 * Parses JSON text and validates it with a schema. Throws `INVALID_DATA`
 * with the dotted path of the first problem and the ZodError as `cause`.
 */
export function parseJsonWithSchema<TSchema extends z.ZodType>({
  text,
  schema,
  source,
}: {
  text: string;
  schema: TSchema;
  /** Where the text came from (a file path), for the error message. */
  source: string;
}): z.output<TSchema> {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (cause) {
    throw new SealError({
      code: 'INVALID_DATA',
      message: `${source} is not valid JSON`,
      cause,
      details: { source },
    });
  }
  const result = schema.safeParse(value);
  if (!result.success) {
    const issue = result.error.issues[0];
    const path = issue?.path.map(String).join('.') ?? '';
    throw new SealError({
      code: 'INVALID_DATA',
      message: `${source}${path === '' ? '' : ` at ${path}`}: ${issue?.message ?? 'invalid'}`,
      cause: result.error,
      details: { source, path },
    });
  }
  return result.data;
}

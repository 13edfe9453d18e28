/**
 * JSON text validated with a schema: `@seal/spec`'s helper (a SealError
 * `INVALID_DATA` naming the file and the dotted path of the first problem).
 * Kept as a re-export for `engine/placement.ts`; new code imports it from
 * `@seal/spec`.
 */
export { parseJsonWithSchema } from '@seal/spec';

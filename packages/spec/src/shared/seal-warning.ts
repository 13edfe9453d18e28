import * as z from 'zod';

/**
 * A diagnostic carried as data in results instead of being logged:
 * `unsupported` (a setting or input was ignored), `compatibility` (behaviour
 * differs from the reference), `deprecated`, or `other`.
 */
export const sealWarningSchema = z.discriminatedUnion('type', [
  z.object({
    type: z.literal('unsupported'),
    setting: z.string(),
    details: z.string().optional(),
  }),
  z.object({
    type: z.literal('compatibility'),
    feature: z.string(),
    details: z.string().optional(),
  }),
  z.object({
    type: z.literal('deprecated'),
    setting: z.string(),
    details: z.string().optional(),
  }),
  z.object({ type: z.literal('other'), message: z.string() }),
]);

/** See {@link sealWarningSchema}. */
export type SealWarning = z.infer<typeof sealWarningSchema>;

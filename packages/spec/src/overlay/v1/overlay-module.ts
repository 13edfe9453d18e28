import * as z from 'zod';

/** SEAL's interface modules by their CLI and config names: φ_schema, φ_err, φ_cap. */
export const overlayModuleNames = ['schema', 'err', 'cap'] as const;

/** One of {@link overlayModuleNames}. */
export const overlayModuleSchema = z.enum(overlayModuleNames);

/** See {@link overlayModuleSchema}. */
export type OverlayModule = z.infer<typeof overlayModuleSchema>;

import * as z from 'zod';

/**
 * How tool docs are rendered into prompts: `full`, BFCL's JSON docs (what
 * real models are prompted with, and what BFCL's leaderboard uses), or
 * `compact`, one line per tool with its signature and first sentence (for
 * the project's small models, which are trained with it).
 */
export const promptModeSchema = z.enum(['full', 'compact']);

/** See {@link promptModeSchema}. */
export type PromptMode = z.infer<typeof promptModeSchema>;

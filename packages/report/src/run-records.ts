import * as z from 'zod';

/*
 * The run-directory files written by `@seal/rl`'s training loop are read with
 * their `@seal/spec` schemas (`runEventSchema` and the event schemas,
 * `overlayLineSchema`). `config.json` is `@seal/rl`'s training config, which
 * the report does not depend on: this schema lists only the fields the report
 * shows, so a config with more fields (a newer writer) still parses, and a
 * field an older writer did not record is `null`/absent rather than an error.
 */

/** The fields of `config.json` (the resolved training config) the report shows. */
export const runConfigSchema = z
  .object({
    runId: z.string().nullish(),
    seed: z.number().int().nullish(),
    method: z.string().nullish(),
    steps: z.number().int().nullish(),
    tasksPerStep: z.number().int().nullish(),
    groupSize: z.number().int().nullish(),
    evalEvery: z.number().int().nullish(),
    episode: z
      .object({
        protocol: z.string().nullish(),
        promptMode: z.string().nullish(),
      })
      .nullish(),
  })
  .loose();

/** See {@link runConfigSchema}. */
export type RunConfig = z.infer<typeof runConfigSchema>;

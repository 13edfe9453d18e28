import * as z from 'zod';
import { episodeRecordSchema } from '../../episode/v1/episode-record';

/**
 * An episode record of any environment: v1's `EpisodeRecord` (the
 * conversation, per-turn steps with the calls as the protocol's text,
 * events, stamps) with the environment's own category, an open string.
 * BFCL's records are ones; a v2 environment's rollouts (`seal train --env`)
 * write them with categories such as `save-note`. Readers of run
 * directories (`seal report`, `seal view`) parse episodes with it.
 */
export const environmentEpisodeRecordSchema = episodeRecordSchema.extend({
  category: z.string().min(1),
});

/** See {@link environmentEpisodeRecordSchema}. */
export type EnvironmentEpisodeRecord = z.infer<
  typeof environmentEpisodeRecordSchema
>;

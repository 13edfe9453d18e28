import * as z from 'zod';
import { capabilityStatsSnapshotSchema } from './capability-state-record';

const snapshotMap = z.record(z.string(), capabilityStatsSnapshotSchema);

/**
 * Aggregates over a set of episode diagnoses (what `seal diagnose` prints):
 * tag counts and reward means, per category and tag, accuracy per category.
 * Counting follows the capability state: tags once per turn, each carrying
 * the trajectory's reward; categories once per episode.
 */
export const diagnosisSummarySchema = z.object({
  schemaVersion: z.literal(1),
  /** Episodes diagnosed. */
  episodes: z.number().int().nonnegative(),
  /** Episodes with reward ≥ 1 over all episodes. */
  accuracy: z.number(),
  /** Mean trajectory reward. */
  rewardMean: z.number(),
  /** By task category (`successRate` is the category's accuracy). */
  categories: snapshotMap,
  /** By SEAL tag. */
  tags: snapshotMap,
  /** By `category::tag`. */
  categoryTags: snapshotMap,
  /** By fine tag. */
  fineTags: snapshotMap,
  /** Episodes whose dominant tag is each tag. */
  dominantTags: z.record(z.string(), z.number().int().nonnegative()),
  /** Episodes per trajectory flag. */
  trajectory: z.object({
    clean: z.number().int().nonnegative(),
    hasInvalidToolCall: z.number().int().nonnegative(),
    hasToolError: z.number().int().nonnegative(),
  }),
});

/** See {@link diagnosisSummarySchema}. */
export type DiagnosisSummary = z.infer<typeof diagnosisSummarySchema>;

import * as z from 'zod';

/**
 * One counter of the capability state (SEAL's `CapabilityStats`). Every
 * observation adds 1 to `count`, the trajectory's reward to `rewardSum`, 1 to
 * `success` when the trajectory succeeded (reward ≥ 1), and 1 to
 * `partialCount` when the reward lies strictly between 0 and 1.
 */
export const capabilityStatsSchema = z.object({
  count: z.number().int().nonnegative(),
  success: z.number().int().nonnegative(),
  rewardSum: z.number(),
  /** Observations with 0 < reward < 1 (always 0 under SEAL's binary reward). */
  partialCount: z.number().int().nonnegative(),
});

/** See {@link capabilityStatsSchema}. */
export type CapabilityStats = z.infer<typeof capabilityStatsSchema>;

const statsMap = z.record(z.string(), capabilityStatsSchema);

/**
 * The counters of one copy ("total" or "window") of the capability state,
 * keyed as SEAL keys them.
 */
export const capabilityBucketsSchema = z.object({
  /** By task category; once per trajectory. */
  categories: statsMap,
  /** By SEAL tag; once per turn (occurrence). */
  tags: statsMap,
  /** By `category::tag`; once per turn. */
  categoryTags: statsMap,
  /** By `position::tag` (`early`, `middle`, `late`, `only`); once per turn. */
  turnPositions: statsMap,
  /**
   * By fine tag (`invalid_tool_call`, ...); once per turn carrying it. Kept
   * apart from `tags`, so SEAL's numbers never include them.
   */
  fineTags: statsMap,
});

/** See {@link capabilityBucketsSchema}. */
export type CapabilityBuckets = z.infer<typeof capabilityBucketsSchema>;

/** What the state remembers per task id (SEAL's `tasks[task_id]`). */
export const taskCapabilitySchema = z.object({
  taskId: z.string(),
  category: z.string(),
  /** Trajectories observed. */
  count: z.number().int().nonnegative(),
  /** Successful trajectories. */
  success: z.number().int().nonnegative(),
  rewardSum: z.number(),
  lastReward: z.number(),
  lastSuccess: z.boolean(),
  /** The dominant tag of the last trajectory. */
  lastTag: z.string(),
  /** Tag occurrences (per turn) over all trajectories of the task. */
  tagCounts: z.record(z.string(), z.number().int().nonnegative()),
  /** The training step of the last observation, when given. */
  lastStep: z.number().int().nullable(),
});

/** See {@link taskCapabilitySchema}. */
export type TaskCapability = z.infer<typeof taskCapabilitySchema>;

/**
 * The persisted capability state C_t (SEAL's `capability_state.json`):
 * all-time and per-window counters, per-task memory, and the dynamic tag
 * weights the RL loop updates (§5.4). Written atomically as JSON.
 */
export const capabilityStateRecordSchema = z.object({
  schemaVersion: z.literal(1),
  /** All-time counters. */
  total: capabilityBucketsSchema,
  /** Counters since the last window reset (SEAL: the current epoch). */
  window: capabilityBucketsSchema,
  /** Per task id. */
  tasks: z.record(z.string(), taskCapabilitySchema),
  /** SEAL's `dynamic_tag_weights` (ρ_t per tag), owned by the RL loop. */
  dynamicTagWeights: z.record(z.string(), z.number()),
  /** Error strings (first 200 characters) seen in the window, with counts. */
  windowErrors: z.record(z.string(), z.number().int().nonnegative()),
  /** The epoch of the last observation. */
  lastEpoch: z.union([z.number().int(), z.string()]).nullable(),
  /** The training step of the last observation. */
  lastStep: z.number().int().nullable(),
  /** Trajectories observed in total. */
  observeCount: z.number().int().nonnegative(),
});

/** See {@link capabilityStateRecordSchema}. */
export type CapabilityStateRecord = z.infer<typeof capabilityStateRecordSchema>;

/** A counter with its derived rates, as snapshots and summaries print it. */
export const capabilityStatsSnapshotSchema = z.object({
  count: z.number().int().nonnegative(),
  success: z.number().int().nonnegative(),
  /** `success / count` (0 when empty). */
  successRate: z.number(),
  /** `rewardSum / count` (0 when empty). */
  rewardMean: z.number(),
  partialCount: z.number().int().nonnegative(),
});

/** See {@link capabilityStatsSnapshotSchema}. */
export type CapabilityStatsSnapshot = z.infer<
  typeof capabilityStatsSnapshotSchema
>;

const snapshotMap = z.record(z.string(), capabilityStatsSnapshotSchema);

/**
 * One copy of the state with derived rates: the per-epoch dump
 * (`epoch_<e>.json`, SEAL's `TOCFStats.dump`), with the most common errors.
 */
export const capabilitySnapshotSchema = z.object({
  schemaVersion: z.literal(1),
  /** `window` or `total`. */
  scope: z.enum(['window', 'total']),
  epoch: z.union([z.number().int(), z.string()]).nullable(),
  globalStep: z.number().int().nullable(),
  categories: snapshotMap,
  tags: snapshotMap,
  categoryTags: snapshotMap,
  turnPositions: snapshotMap,
  fineTags: snapshotMap,
  tasks: z.record(z.string(), taskCapabilitySchema),
  dynamicTagWeights: z.record(z.string(), z.number()),
  /** The 20 most common window error strings with counts, most common first. */
  topErrors: z.array(z.tuple([z.string(), z.number().int()])),
});

/** See {@link capabilitySnapshotSchema}. */
export type CapabilitySnapshot = z.infer<typeof capabilitySnapshotSchema>;

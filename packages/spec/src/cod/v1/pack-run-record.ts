import * as z from 'zod';
import { chatMessageSchema } from '../../task/v1/chat-message';

/** How a Connect the Dots pack was formed (see `@seal/cod`'s `buildPacks`). */
export const packStrategySchema = z.enum(['cod', 'ralph_sample', 'ralph_full']);

/** See {@link packStrategySchema}. */
export type PackStrategyName = z.infer<typeof packStrategySchema>;

/** One solve-task episode of a pack run. */
export const packRunSolveSchema = z.object({
  /** Position of the task in the pack, from 0. */
  position: z.number().int().nonnegative(),
  /** The task. */
  taskId: z.string().min(1),
  /** Unique id of this episode. */
  episodeId: z.string().min(1),
  /** The context the task was solved with (`Hints: null` at position 0). */
  hints: z.string(),
  /** The conversation: the system prompt with its hint section, observations and actions. */
  messages: z.array(chatMessageSchema),
  /** The environment outcome in [0, 1]. */
  outcome: z.number().min(0).max(1),
  /** Whether the task was solved. */
  success: z.boolean(),
  /** The task reward r_i (outcome minus the step penalty on success). */
  reward: z.number(),
  /** The short outcome string shown to the update-context episode. */
  feedback: z.string(),
  /** Model calls used. */
  stepsUsed: z.number().int().nonnegative(),
  /** The step budget. */
  maxSteps: z.number().int().positive(),
  /** Tokens the policy generated in this episode. */
  responseTokens: z.number().int().nonnegative(),
  /** `finished`, or `context-limit` when the next prompt no longer fitted the model. */
  endReason: z.enum(['finished', 'context-limit']),
});

/** See {@link packRunSolveSchema}. */
export type PackRunSolve = z.infer<typeof packRunSolveSchema>;

/** One update-context episode of a pack run (after every task but the last). */
export const packRunUpdateSchema = z.object({
  /** The position of the task whose trajectory it read. */
  afterPosition: z.number().int().nonnegative(),
  /** The context before the update. */
  previousHints: z.string(),
  /** The raw response (empty when it was not generated). */
  response: z.string(),
  /** The context after the update: `Hints: <block>` or `Hints: no hint available.` */
  hints: z.string(),
  /** Whether the hint block parsed. */
  parsed: z.boolean(),
  /**
   * Why the block was not used: missing or unterminated delimiters, a blank
   * block, a block over the length limit, or a prompt that did not fit the
   * model (`context-limit`, nothing generated).
   */
  failure: z
    .enum([
      'missing-start',
      'missing-end',
      'empty',
      'too-long',
      'context-limit',
    ])
    .optional(),
  /** Whether text followed the end delimiter (ignored). */
  trailingText: z.boolean(),
  /** The update's reward h_j (≤ 0: 0, or minus the penalty on failure). */
  reward: z.number().max(0),
  /** Tokens the policy generated. */
  responseTokens: z.number().int().nonnegative(),
});

/** See {@link packRunUpdateSchema}. */
export type PackRunUpdate = z.infer<typeof packRunUpdateSchema>;

/** Per-episode advantages of a trained pack run (after RED, when it ran). */
export const packRunAdvantagesSchema = z.object({
  /** One per solve episode. */
  solve: z.array(z.number()),
  /** One per update-context episode. */
  update: z.array(z.number()),
});

/** See {@link packRunAdvantagesSchema}. */
export type PackRunAdvantages = z.infer<typeof packRunAdvantagesSchema>;

/**
 * One pack run of Connect the Dots (a line of `packs/*.jsonl`): the tasks of
 * a pack solved in order, with the update-context episode that rewrote the
 * hints between them, the rewards, and (in training) the advantages.
 */
export const packRunRecordSchema = z.object({
  schemaVersion: z.literal(1),
  type: z.literal('pack-run'),
  /** The run directory's run id, when written by a run. */
  runId: z.string().optional(),
  /** Unique id: `<packId>#<runIndex>`. */
  packRunId: z.string().min(1),
  /** The pack; the runs of one pack share its baselines. */
  packId: z.string().min(1),
  /** Position of the pack in its batch or evaluation. */
  packIndex: z.number().int().nonnegative(),
  /** Seed of the pack's hidden regularity. */
  packSeed: z.number().int(),
  /** The taskset of the pack's tasks. */
  tasksetId: z.string(),
  strategy: packStrategySchema,
  /** The environment, e.g. `frozen-lake-obscure` or `bfcl-aliases`. */
  environmentId: z.string().min(1),
  /** The pack's hidden regularity in words (never shown to the model). */
  regularity: z.string(),
  /** Which of the G repeated runs of the pack this is, from 0. */
  runIndex: z.number().int().nonnegative(),
  /** `train` (rollouts for an update) or `eval`. */
  mode: z.enum(['train', 'eval']),
  /** Optimizer steps applied to the policy before this run (null when unknown). */
  policyStep: z.number().int().nonnegative().nullable(),
  /** The solve episodes, in pack order. */
  solves: z.array(packRunSolveSchema).min(1),
  /** The update-context episodes: one after each solve but the last. */
  updates: z.array(packRunUpdateSchema),
  /** r_1..r_n. */
  taskRewards: z.array(z.number()),
  /** h_1..h_{n−1}. */
  hintRewards: z.array(z.number().max(0)),
  /** Per-episode advantages, when the run was trained on. */
  advantages: packRunAdvantagesSchema.nullable(),
});

/** See {@link packRunRecordSchema}. */
export type PackRunRecord = z.infer<typeof packRunRecordSchema>;

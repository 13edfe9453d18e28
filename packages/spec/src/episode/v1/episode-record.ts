import * as z from 'zod';
import { chatMessageSchema } from '../../task/v1/chat-message';
import { taskCategorySchema } from '../../task/v1/task';
import {
  episodeEndReasonSchema,
  episodeEventSchema,
  turnEndReasonSchema,
} from './episode-event';

/** One model call within a turn, with what the environment made of it. */
export const episodeStepSchema = z.object({
  /** The raw assistant text. */
  text: z.string(),
  /** Accepted call strings (Python form), in order: what BFCL's checker consumes. */
  calls: z.array(z.string()),
  /** The result string of each accepted call. */
  results: z.array(z.string()),
  /** How many calls were refused (parse error, unknown or unavailable tool). */
  rejectedCalls: z.number().int().nonnegative(),
  /** The protocol's parse error, if the text did not parse. */
  parseError: z.string().optional(),
  /** Prompt and completion tokens of this model call, when known. */
  promptTokens: z.number().int().optional(),
  completionTokens: z.number().int().optional(),
});

/** One question turn of an episode. */
export const episodeTurnSchema = z.object({
  turn: z.number().int().nonnegative(),
  steps: z.array(episodeStepSchema),
  /** Why the turn ended; absent if the episode stopped inside it. */
  endReason: turnEndReasonSchema.optional(),
});

/** Provenance stamps for training samples. */
export const episodeStampsSchema = z.object({
  /** The policy's optimizer step when the episode was sampled. */
  policyStep: z.number().int().optional(),
  /** The verifier version that scored it. */
  verifierVersion: z.string().optional(),
  /** The sampling seed. */
  seed: z.number().int().optional(),
  /** The run this episode belongs to. */
  runId: z.string().optional(),
});

/**
 * The full record of one episode: conversation, per-turn accepted calls and
 * results, events, and stamps. Written as JSON Lines; consumed by the
 * verifier, diagnosis, reports and the environment service.
 */
export const episodeRecordSchema = z.object({
  schemaVersion: z.literal(1),
  /** Unique per episode. */
  episodeId: z.string().min(1),
  taskId: z.string().min(1),
  category: taskCategorySchema,
  /** `train` episodes may carry an interface overlay; `eval` never. */
  mode: z.enum(['train', 'eval']),
  /** The tool-call protocol (`qwen-xml`, `bfcl-python`, `openai-tools`, `envtuning`). */
  protocol: z.string(),
  /** Content hash of the interface overlay in force (the empty overlay's hash in eval). */
  overlayHash: z.string(),
  /** The whole conversation, system prompt first. */
  messages: z.array(chatMessageSchema),
  turns: z.array(episodeTurnSchema),
  events: z.array(episodeEventSchema),
  endReason: episodeEndReasonSchema,
  /** Model calls made (the budget counts these). */
  modelCalls: z.number().int().nonnegative(),
  stamps: episodeStampsSchema.optional(),
});

/** See {@link episodeRecordSchema}. */
export type EpisodeRecord = z.infer<typeof episodeRecordSchema>;
/** See {@link episodeTurnSchema}. */
export type EpisodeTurn = z.infer<typeof episodeTurnSchema>;
/** See {@link episodeStepSchema}. */
export type EpisodeStep = z.infer<typeof episodeStepSchema>;
/** See {@link episodeStampsSchema}. */
export type EpisodeStamps = z.infer<typeof episodeStampsSchema>;

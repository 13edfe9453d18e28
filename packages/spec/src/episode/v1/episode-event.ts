import * as z from 'zod';
import { toolCallSchema } from '../../task/v1/tool-call';

/** Why a turn ended. */
export const turnEndReasonSchema = z.enum([
  /** The model replied without tool calls: the normal end of a turn. */
  'reply',
  /** The per-turn step limit (BFCL's official 20) was reached. */
  'step-limit',
  /** The episode's model-call budget ran out. */
  'budget-exhausted',
  /** The context would exceed its limit. */
  'context-limit',
  /** A parse error ended the turn (protocols configured to do so). */
  'parse-error',
]);

/** Why an episode ended. */
export const episodeEndReasonSchema = z.enum([
  /** Every question turn was answered. */
  'completed',
  /** The model-call budget ran out. */
  'budget-exhausted',
  /** The context would exceed its limit. */
  'context-limit',
  /** The per-turn step limit force-quit the episode (BFCL's runner rule). */
  'step-limit',
  /** A parse error terminated the episode (terminate-on-parse-error protocols). */
  'parse-error',
  /** The caller stopped it. */
  'aborted',
]);

/** Why a tool call was refused before execution. */
export const callRejectionReasonSchema = z.enum([
  /** No tool of that name exists in the task. */
  'unknown-tool',
  /** The tool exists but is not available yet (held out) in this turn. */
  'unavailable-tool',
  /** The call is malformed (arguments not an object, bad JSON, ...). */
  'invalid-call',
]);

/**
 * Structured events of an episode, in order. Discriminated on `type`.
 * `turn` is the question-turn index, `step` the model call within the turn.
 */
export const episodeEventSchema = z.discriminatedUnion('type', [
  z.object({
    type: z.literal('episode-start'),
    taskId: z.string(),
    mode: z.enum(['train', 'eval']),
    protocol: z.string(),
    overlayHash: z.string(),
  }),
  z.object({
    type: z.literal('turn-start'),
    turn: z.number().int(),
    /** Tools revealed at this turn (holdout turns). */
    revealedTools: z.array(z.string()),
  }),
  z.object({
    type: z.literal('model-response'),
    turn: z.number().int(),
    step: z.number().int(),
    text: z.string(),
    /** Completion tokens of this response, when the policy reported them. */
    tokens: z.number().int().optional(),
  }),
  z.object({
    type: z.literal('parse-error'),
    turn: z.number().int(),
    step: z.number().int(),
    message: z.string(),
  }),
  z.object({
    type: z.literal('call-rejected'),
    turn: z.number().int(),
    step: z.number().int(),
    reason: callRejectionReasonSchema,
    name: z.string().optional(),
    message: z.string(),
  }),
  z.object({
    type: z.literal('call-executed'),
    turn: z.number().int(),
    step: z.number().int(),
    call: toolCallSchema,
    /** The result string exactly as BFCL renders it. */
    result: z.string(),
    /** `ok`, `raised` (Python error text), or `rejected` (refused unexecuted). */
    status: z.enum(['ok', 'raised', 'rejected']),
    /** The error the result signals (raised text or a tool's error field), if any. */
    error: z.string().optional(),
  }),
  z.object({
    type: z.literal('turn-end'),
    turn: z.number().int(),
    reason: turnEndReasonSchema,
  }),
  z.object({
    type: z.literal('episode-end'),
    reason: episodeEndReasonSchema,
    modelCalls: z.number().int(),
  }),
]);

/** See {@link episodeEventSchema}. */
export type EpisodeEvent = z.infer<typeof episodeEventSchema>;
/** See {@link turnEndReasonSchema}. */
export type TurnEndReason = z.infer<typeof turnEndReasonSchema>;
/** See {@link episodeEndReasonSchema}. */
export type EpisodeEndReason = z.infer<typeof episodeEndReasonSchema>;
/** See {@link callRejectionReasonSchema}. */
export type CallRejectionReason = z.infer<typeof callRejectionReasonSchema>;

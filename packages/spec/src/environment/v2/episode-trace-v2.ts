import * as z from 'zod';
import { toolCallV2Schema, toolOutcomeV2Schema } from './tool-call-v2';

/** One step of the policy within a turn. */
export const traceStepV2Schema = z.discriminatedUnion('type', [
  z.object({
    /** A parsed call and what the environment answered. */
    type: z.literal('call'),
    call: toolCallV2Schema,
    outcome: toolOutcomeV2Schema,
  }),
  z.object({
    /** Output the protocol could not parse into calls (or a reply). */
    type: z.literal('invalid'),
    /** The raw output, trimmed by the caller if long. */
    text: z.string(),
    /** Why it did not parse. */
    error: z.string(),
  }),
]);

/** See {@link traceStepV2Schema}. */
export type TraceStepV2 = z.infer<typeof traceStepV2Schema>;

/** What the policy did in one user turn. */
export const turnTraceV2Schema = z.object({
  /** Calls and unparsable outputs, in order. */
  steps: z.array(traceStepV2Schema),
  /** The final text reply that ended the turn, if any. */
  reply: z.string().optional(),
  /**
   * The policy session's `snapshot()` after the turn, when the environment
   * has one (compared with the ground-truth session's).
   */
  snapshot: z.unknown().optional(),
  /** Set when the turn ended without a reply (step limit, context limit). */
  endReason: z.string().optional(),
});

/** See {@link turnTraceV2Schema}. */
export type TurnTraceV2 = z.infer<typeof turnTraceV2Schema>;

/** The policy's whole episode on one task: one trace per user turn. */
export const episodeTraceV2Schema = z.object({
  taskId: z.string(),
  /** One per turn the episode reached (may be fewer than the task's turns). */
  turns: z.array(turnTraceV2Schema),
});

/** See {@link episodeTraceV2Schema}. */
export type EpisodeTraceV2 = z.infer<typeof episodeTraceV2Schema>;

import * as z from 'zod';
import { sealWarningSchema } from '../../shared/seal-warning';
import { failureTagSchema, fineTagSchema } from '../../verifier/v1/failure-tag';
import { trajectoryDiagnosticsSchema } from './trajectory-diagnostics';

/**
 * A tag as the capability state counts it: one of SEAL's
 * {@link failureTagSchema} tags, or `unknown` for a trajectory that carried
 * no tags (SEAL's `UNKNOWN_TAG`).
 */
export const capabilityTagSchema = z.union([
  failureTagSchema,
  z.literal('unknown'),
]);

/** See {@link capabilityTagSchema}. */
export type CapabilityTag = z.infer<typeof capabilityTagSchema>;

/** One executed call of a turn whose result signalled an error. */
export const toolErrorEvidenceSchema = z.object({
  /** The model call (step) within the turn. */
  step: z.number().int().nonnegative(),
  /** The tool that was called. */
  name: z.string(),
  /** The error text (raised text, a tool's error field, or the result). */
  error: z.string(),
  /** The error is an argument or type/value error (see `argument_mismatch`). */
  argumentError: z.boolean(),
  /** A later call of the same tool in the same turn ran without error. */
  recovered: z.boolean(),
});

/** See {@link toolErrorEvidenceSchema}. */
export type ToolErrorEvidence = z.infer<typeof toolErrorEvidenceSchema>;

/** The diagnosis of one ground-truth turn. */
export const turnDiagnosisSchema = z.object({
  /** The ground-truth turn index. */
  turn: z.number().int().nonnegative(),
  /** SEAL's tag, copied unchanged from the verifier's per-turn verdict. */
  tag: failureTagSchema,
  /**
   * Finer tags from the episode's event stream, in {@link fineTagSchema}
   * order, each at most once. They never change SEAL's tag or numbers.
   */
  fineTags: z.array(fineTagSchema),
  /** The episode reached this turn (false for turns padded after an early end). */
  reached: z.boolean(),
  /** Steps of this turn whose text did not parse. */
  parseErrors: z.number().int().nonnegative(),
  /** Calls refused before execution (unknown or held-out tools, unparsable call text). */
  refusedCalls: z.number().int().nonnegative(),
  /** Calls executed in this turn. */
  executedCalls: z.number().int().nonnegative(),
  /** The executed calls whose results signalled an error, in order. */
  toolErrors: z.array(toolErrorEvidenceSchema),
});

/** See {@link turnDiagnosisSchema}. */
export type TurnDiagnosis = z.infer<typeof turnDiagnosisSchema>;

/**
 * The diagnosis of one episode: SEAL's per-turn tags (from the verifier,
 * unchanged), the finer tags from the event stream, and SEAL's trajectory
 * diagnostics. What the capability state observes.
 */
export const episodeDiagnosisSchema = z.object({
  schemaVersion: z.literal(1),
  episodeId: z.string().min(1),
  taskId: z.string().min(1),
  /** The task category (`multi_turn_base`, ...). */
  category: z.string(),
  /** The verifier that produced the SEAL tags. */
  verifierId: z.string(),
  /** The trajectory's reward (SEAL: the binary official verdict). */
  reward: z.number(),
  /** `reward >= 1`, as SEAL counts success. */
  success: z.boolean(),
  /** SEAL's dominant tag: most frequent non-`pass` tag, else `pass`, else `unknown`. */
  dominantTag: capabilityTagSchema,
  /** One entry per ground-truth turn. */
  turns: z.array(turnDiagnosisSchema),
  trajectory: trajectoryDiagnosticsSchema,
  /** Error strings seen in the episode (parse errors, refusals, tool errors), for top-error dumps. */
  errors: z.array(z.string()),
  warnings: z.array(sealWarningSchema),
});

/** See {@link episodeDiagnosisSchema}. */
export type EpisodeDiagnosis = z.infer<typeof episodeDiagnosisSchema>;

import * as z from 'zod';
import { toolCallV2Schema } from './tool-call-v2';

/** A message of a task turn (what the user, or a system note, says). */
export const taskMessageV2Schema = z.object({
  /** `user` for a question; `system` for a note; `assistant` for a scripted reply. */
  role: z.enum(['system', 'user', 'assistant']),
  /** The text. */
  content: z.string(),
});

/** See {@link taskMessageV2Schema}. */
export type TaskMessageV2 = z.infer<typeof taskMessageV2Schema>;

/** A ground-truth call: the structured call, without protocol ids. */
export const groundTruthCallV2Schema = toolCallV2Schema.pick({
  name: true,
  arguments: true,
  callText: true,
});

/** See {@link groundTruthCallV2Schema}. */
export type GroundTruthCallV2 = z.infer<typeof groundTruthCallV2Schema>;

/**
 * Tools withheld from the start of the episode and revealed at `turn` (BFCL's
 * miss_func holdouts). The caller that runs the policy hides them from the
 * tool list and answers calls to them `unknown_tool` before that turn;
 * sessions themselves always list every tool.
 */
export const holdoutV2Schema = z.object({
  /** The turn from which the tools are available. */
  turn: z.number().int().nonnegative(),
  /** The withheld tool names. */
  toolNames: z.array(z.string().min(1)).min(1),
});

/** See {@link holdoutV2Schema}. */
export type HoldoutV2 = z.infer<typeof holdoutV2Schema>;

/**
 * Which comparisons against the ground-truth replay decide a turn:
 * - `calls`: every ground-truth call made (same name, equal arguments), no
 *   extra successful call;
 * - `state`: the policy session's `snapshot()` equals the ground-truth
 *   session's after the turn (skipped where the environment has no snapshot);
 * - `results`: every ground-truth result text appears among the policy's
 *   results of the turn (BFCL's response check, as a multiset).
 */
export const groundTruthChecksV2Schema = z.object({
  calls: z.boolean().default(true),
  state: z.boolean().default(true),
  results: z.boolean().default(true),
});

/** See {@link groundTruthChecksV2Schema}. */
export type GroundTruthChecksV2 = z.output<typeof groundTruthChecksV2Schema>;

/**
 * A multi-turn task for any v2 environment, one JSONL line in a tasks file.
 * Either `groundTruth` (one list of calls per turn; `[]` where the right
 * move is to make no call, e.g. to ask a question back) or the environment's
 * checker decides each turn.
 */
export const taskV2Schema = z
  .object({
    /** Optional; `2` when written. */
    schemaVersion: z.literal(2).default(2),
    /** Unique id within the tasks file. */
    id: z.string().min(1),
    /** The environment's own category (open string); scores group by it. */
    category: z.string().min(1).optional(),
    /** The user turns; each a list of messages. */
    turns: z.array(z.array(taskMessageV2Schema)).min(1),
    /** Tools withheld until a turn. */
    holdouts: z.array(holdoutV2Schema).optional(),
    /** Ground-truth calls per turn, as many lists as `turns`. */
    groundTruth: z.array(z.array(groundTruthCallV2Schema)).optional(),
    /** Which checks apply to the ground truth (all three by default). */
    checks: groundTruthChecksV2Schema.optional(),
    /** Free-form provenance (generator, template, seed). */
    meta: z.record(z.string(), z.unknown()).optional(),
  })
  .strict()
  .superRefine((task, context) => {
    if (
      task.groundTruth !== undefined &&
      task.groundTruth.length !== task.turns.length
    ) {
      context.addIssue({
        code: 'custom',
        path: ['groundTruth'],
        message: `has ${task.groundTruth.length} turns but turns has ${task.turns.length}`,
      });
    }
    for (const [index, holdout] of (task.holdouts ?? []).entries()) {
      if (holdout.turn >= task.turns.length) {
        context.addIssue({
          code: 'custom',
          path: ['holdouts', index, 'turn'],
          message: `turn ${holdout.turn} is past the last turn (${task.turns.length - 1})`,
        });
      }
    }
  });

/** See {@link taskV2Schema} (normalised: `schemaVersion` filled in). */
export type TaskV2 = z.output<typeof taskV2Schema>;

/** A task as written (`schemaVersion` and `checks` fields optional). */
export type TaskV2Input = z.input<typeof taskV2Schema>;

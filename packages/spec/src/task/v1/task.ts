import * as z from 'zod';
import { chatMessageSchema } from './chat-message';
import { toolDocSchema } from './tool-doc';

/** BFCL v3 multi-turn categories (generated tasks use the same four variants). */
export const taskCategorySchema = z.enum([
  'multi_turn_base',
  'multi_turn_miss_func',
  'multi_turn_miss_param',
  'multi_turn_long_context',
]);

/** See {@link taskCategorySchema}. */
export type TaskCategory = z.infer<typeof taskCategorySchema>;

/** The executable backend of a task: BFCL's API classes and their scenario. */
export const bfclBackendSchema = z.object({
  kind: z.literal('bfcl'),
  /** `involved_classes`, in order (also the order of the tool docs). */
  involvedClasses: z.array(z.string()).min(1),
  /**
   * `initial_config` as Python-flavoured JSON text: floats keep their `.0`
   * (`10000.0`), which plain JSON numbers would lose.
   */
  initialConfig: z.string(),
  /** Load the classes with BFCL's long-context padding. */
  longContext: z.boolean(),
});

/** A tool withheld at the start and revealed at a later (holdout) turn. */
export const holdoutSchema = z.object({
  /** The turn whose (empty) question reveals the tools. */
  turn: z.number().int().nonnegative(),
  /** The tool names revealed then. */
  toolNames: z.array(z.string()).min(1),
});

/**
 * A multi-turn tool-use task: the user turns, the tools, the executable
 * scenario and the ground truth per turn. Read from BFCL or generated.
 */
export const taskSchema = z.object({
  schemaVersion: z.literal(1),
  /** Unique id (`multi_turn_base_12` for BFCL). */
  id: z.string().min(1),
  category: taskCategorySchema,
  /** Where the task comes from. */
  source: z.enum(['bfcl', 'generated']),
  /** The question turns; each a list of messages. A holdout turn is `[]`. */
  turns: z.array(z.array(chatMessageSchema)),
  /** Every tool doc, held-out ones included, in involved-class order. */
  tools: z.array(toolDocSchema),
  /** Tools withheld until a turn (miss_func). */
  holdouts: z.array(holdoutSchema),
  backend: bfclBackendSchema,
  /** Ground-truth call strings per turn; `[]` where the model should not act. */
  groundTruth: z.array(z.array(z.string())),
  /** Free-form provenance (generator family, template, seed). */
  meta: z.record(z.string(), z.unknown()).optional(),
});

/** See {@link taskSchema}. */
export type Task = z.infer<typeof taskSchema>;

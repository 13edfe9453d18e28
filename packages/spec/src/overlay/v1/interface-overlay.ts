import * as z from 'zod';

/** Text appended to one tool's description and to its parameters' descriptions (φ_schema). */
export const toolPatchSchema = z.object({
  /** Appended to the tool description. */
  description: z.string().optional(),
  /** Parameter name → text appended to that parameter's description. */
  parameters: z.record(z.string(), z.string()).default({}),
  /** Parameters removed from the rendered doc (SEAL's `hide_optional`). */
  hide: z.array(z.string()).default([]),
});

/** A recovery hint appended to tool errors that match `pattern` (φ_err). */
export const errorHintSchema = z.object({
  /** Stable id of the rule (for logs and ablations). */
  id: z.string(),
  /** JavaScript regular expression source, tested against the error text. */
  pattern: z.string(),
  /** Regular expression flags (e.g. `i`). */
  flags: z.string().default(''),
  /**
   * The hint. Placeholders: `$1`… for capture groups, `{tools}` for the
   * available tool names, `{tools:N}` for the first N of them.
   */
  hint: z.string(),
});

/** An actionable rewrite of an error text (Environment Tuning's augmentation). */
export const errorRewriteSchema = z.object({
  id: z.string(),
  /** JavaScript regular expression source, tested against the error text. */
  pattern: z.string(),
  flags: z.string().default(''),
  /** Replacement text (`$1`… capture groups, `{tools}` placeholders). */
  replacement: z.string(),
});

/** A paragraph added to the system prompt. */
export const systemNoteSchema = z.object({
  /** Which module added it (`schema-note`, `guideline:state_mismatch`, `curriculum`). */
  source: z.string(),
  text: z.string(),
});

/**
 * What the training interface adds to the environment, as pure data: tool
 * doc cues, system-prompt notes and guidelines, error hints and rewrites.
 * The environment applies it in train mode; evaluation refuses any non-empty
 * overlay. Identified by a content hash.
 */
export const interfaceOverlaySchema = z.object({
  schemaVersion: z.literal(1),
  /** Tool name → patch (φ_schema cues). */
  toolPatches: z.record(z.string(), toolPatchSchema).default({}),
  /** Paragraphs appended to the system prompt (schema note, φ_cap guidelines, curriculum hints). */
  systemNotes: z.array(systemNoteSchema).default([]),
  /** Hint lines appended to parse errors (φ_err); placeholders as in {@link errorHintSchema}. */
  parseErrorHints: z.array(z.string()).default([]),
  /** Ordered recovery hints for tool errors; the first match applies (φ_err). */
  errorHints: z.array(errorHintSchema).default([]),
  /** Ordered error rewrites; every match applies (Environment Tuning). */
  errorRewrites: z.array(errorRewriteSchema).default([]),
  /** Categories the overlay applies to; empty means all. */
  categories: z.array(z.string()).default([]),
});

/** See {@link interfaceOverlaySchema} (normalised form). */
export type InterfaceOverlay = z.output<typeof interfaceOverlaySchema>;
/** The written form (defaults may be left out). */
export type InterfaceOverlayInput = z.input<typeof interfaceOverlaySchema>;
/** See {@link toolPatchSchema}. */
export type ToolPatch = z.output<typeof toolPatchSchema>;
/** See {@link errorHintSchema}. */
export type ErrorHint = z.output<typeof errorHintSchema>;
/** See {@link errorRewriteSchema}. */
export type ErrorRewrite = z.output<typeof errorRewriteSchema>;
/** See {@link systemNoteSchema}. */
export type SystemNote = z.output<typeof systemNoteSchema>;

/** The overlay that adds nothing: the only one evaluation accepts. */
export const emptyOverlay: InterfaceOverlay = Object.freeze({
  schemaVersion: 1,
  toolPatches: {},
  systemNotes: [],
  parseErrorHints: [],
  errorHints: [],
  errorRewrites: [],
  categories: [],
}) as InterfaceOverlay;

/** True when the overlay changes nothing. */
export function isEmptyOverlay(overlay: InterfaceOverlay): boolean {
  return (
    Object.keys(overlay.toolPatches).length === 0 &&
    overlay.systemNotes.length === 0 &&
    overlay.parseErrorHints.length === 0 &&
    overlay.errorHints.length === 0 &&
    overlay.errorRewrites.length === 0
  );
}

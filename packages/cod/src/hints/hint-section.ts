import { SealError } from '@seal/spec';

/** The context before the first task of a pack (spec B1). */
export const initialHints = 'Hints: null';

/** The context after an update whose hint block could not be used (spec B2). */
export const fallbackHints = 'Hints: no hint available.';

/**
 * The first line of the hint section of a solve prompt. Everything from this
 * line to the end of the system prompt is the section, so it can be removed
 * again exactly ({@link stripHintSection}).
 */
export const hintSectionHeader = '### Hints that might help';

/**
 * How prompts are worded: `paper` follows the paper's long instructions (for
 * real models); `compact` says the same in a few words, for the embedded
 * models whose 1,024-token context must hold an update prompt and its hints.
 */
export type PromptFormat = 'paper' | 'compact';

/** The prompt formats. */
export const promptFormats = [
  'paper',
  'compact',
] as const satisfies readonly PromptFormat[];

const sectionIntro: Record<PromptFormat, string> = {
  paper:
    'You wrote these notes on earlier tasks in this environment. They may be wrong or may not apply here: combine them with what you observe now.',
  compact: 'Your notes from earlier tasks here (maybe wrong):',
};

/** Turns the text of a parsed hint block into the context `Hints: …`. */
export function hintsContext(content: string): string {
  return `Hints: ${content}`;
}

/**
 * Appends the hint section to a solve task's system prompt (spec B2): the
 * header, a line saying the hints may be wrong, the hint context, then an
 * optional response-length limit. The section is always last, so
 * {@link stripHintSection} restores `systemPrompt` exactly, whatever the
 * hints contain.
 */
export function injectHintSection({
  systemPrompt,
  hints,
  responseLimit,
  format = 'paper',
}: {
  systemPrompt: string;
  /** The context, e.g. `Hints: null` or `Hints: - Direction 2 moves up`. */
  hints: string;
  /** An optional line such as `Answer in at most 40 tokens.` */
  responseLimit?: string;
  /** The wording of the section's intro line. Default `paper`. */
  format?: PromptFormat;
}): string {
  if (systemPrompt.includes(hintSectionHeader)) {
    throw new SealError({
      code: 'INVALID_ARGUMENT',
      message: `a solve system prompt may not contain the hint section header '${hintSectionHeader}' itself (hints are already injected?)`,
      details: {},
    });
  }
  const parts = [hintSectionHeader, sectionIntro[format], hints];
  if (responseLimit !== undefined) parts.push(responseLimit);
  return `${systemPrompt}\n\n${parts.join('\n')}`;
}

/**
 * Removes the hint section from a system prompt written by
 * {@link injectHintSection} (the first header line and everything after it),
 * so an update-context episode never reads its own hints as task rules. A
 * prompt without the section is returned unchanged.
 */
export function stripHintSection(systemPrompt: string): string {
  const at = systemPrompt.indexOf(`\n\n${hintSectionHeader}\n`);
  return at < 0 ? systemPrompt : systemPrompt.slice(0, at);
}

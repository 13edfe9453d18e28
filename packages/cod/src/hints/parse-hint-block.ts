/** The line that opens the hint block of an update-context response. */
export const hintStartDelimiter = '--- Start of updated hints ---';

/** The line that closes the hint block; nothing may follow it. */
export const hintEndDelimiter = '--- End of updated hints ---';

/** Why a hint block could not be used. */
export type HintParseFailure =
  /** No start delimiter line. */
  | 'missing-start'
  /** A start line but no end line after it (often: cut by the token limit). */
  | 'missing-end'
  /** Nothing but whitespace between the delimiters. */
  | 'empty'
  /** More characters than the limit: parsed as empty, and penalised. */
  | 'too-long';

/** The outcome of {@link parseHintBlock}. */
export type HintParseResult =
  | {
      success: true;
      /** The text between the delimiter lines, trimmed. */
      content: string;
      /** Whether non-blank text followed the end line (ignored, but recorded). */
      trailingText: boolean;
    }
  | { success: false; reason: HintParseFailure; length?: number };

/**
 * Reads the hint block of an update-context response (spec B2): the text
 * between a line that is exactly {@link hintStartDelimiter} and the next line
 * that is exactly {@link hintEndDelimiter} (surrounding spaces allowed). The
 * model may reason before the block; when it writes several blocks, the last
 * complete one counts. Text after the end line is ignored and reported. A
 * block that is missing, unterminated, blank or longer than `maxLength`
 * characters fails; the caller then falls back to "no hint available" and
 * penalises the update.
 */
export function parseHintBlock({
  text,
  maxLength = 2000,
}: {
  text: string;
  maxLength?: number;
}): HintParseResult {
  const lines = text.split(/\r?\n/);
  let start = -1;
  let end = -1;
  let openStart = -1;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!.trim();
    if (line === hintStartDelimiter) openStart = i;
    else if (line === hintEndDelimiter && openStart >= 0) {
      start = openStart;
      end = i;
      openStart = -1;
    }
  }
  if (start < 0)
    return {
      success: false,
      reason: openStart >= 0 ? 'missing-end' : 'missing-start',
    };
  const content = lines
    .slice(start + 1, end)
    .join('\n')
    .trim();
  if (content.length === 0) return { success: false, reason: 'empty' };
  if (content.length > maxLength)
    return { success: false, reason: 'too-long', length: content.length };
  const trailingText =
    lines
      .slice(end + 1)
      .join('\n')
      .trim().length > 0;
  return { success: true, content, trailingText };
}

/**
 * Escapes text for HTML element content and quoted attribute values. Every
 * string that reaches the report or the viewer from a run directory passes
 * through here: model output is untrusted and must never become markup.
 */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (character) => htmlEntities[character]!);
}

const htmlEntities: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
};

/**
 * Serialises a value as JSON that is safe inside a `<script>` element: `<`,
 * `>` and `&` become `\u` escapes (so `</script>` in model output cannot end
 * the element), as do U+2028 and U+2029.
 */
export function jsonForScript(value: unknown): string {
  return JSON.stringify(value).replace(
    /[<>&\u2028\u2029]/g,
    (character) =>
      `\\u${character.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
}

/** A tagged template whose interpolations are escaped unless wrapped in {@link rawHtml}. */
export function html(
  strings: TemplateStringsArray,
  ...values: readonly HtmlValue[]
): RawHtml {
  let out = strings[0]!;
  values.forEach((value, index) => {
    out += renderValue(value) + strings[index + 1]!;
  });
  return new RawHtml(out);
}

/** Markup that {@link html} inserts as is. */
export class RawHtml {
  constructor(readonly value: string) {}
  toString(): string {
    return this.value;
  }
}

/** A value {@link html} accepts: text (escaped), numbers, markup, lists of these, or nothing. */
export type HtmlValue =
  string | number | RawHtml | undefined | null | false | readonly HtmlValue[];

/** Marks trusted markup (our own templates, never run data). */
export function rawHtml(markup: string): RawHtml {
  return new RawHtml(markup);
}

function renderValue(value: HtmlValue): string {
  if (value === undefined || value === null || value === false) return '';
  if (value instanceof RawHtml) return value.value;
  if (Array.isArray(value)) return value.map(renderValue).join('');
  if (typeof value === 'number') return String(value);
  return escapeHtml(value as string);
}

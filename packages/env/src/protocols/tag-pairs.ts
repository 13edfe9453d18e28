/** One `<tag>…</tag>` pair found by {@link findTagPairs}. */
export type TagPair = {
  /** The whole pair, tags included. */
  readonly text: string;
  /** What lies between the tags. */
  readonly inner: string;
  /** Offset of `<tag>` in the searched text. */
  readonly start: number;
  /** Offset just past `</tag>`. */
  readonly end: number;
};

/**
 * The `<tag>…</tag>` pairs of `text`, left to right, each closed by the
 * first `</tag>` after it: what `/<tag>([\s\S]*?)<\/tag>/g` matches, found
 * in linear time. (The regex rescans the rest of the text from every
 * unclosed `<tag>`, which a hostile reply of many opening tags turns into
 * seconds of CPU per step.) `open` counts every `<tag>`, paired or not.
 */
export function findTagPairs({ text, tag }: { text: string; tag: string }): {
  open: number;
  pairs: TagPair[];
} {
  const opening = `<${tag}>`;
  const closing = `</${tag}>`;
  const pairs: TagPair[] = [];
  let from = 0;
  for (;;) {
    const start = text.indexOf(opening, from);
    if (start < 0) break;
    const close = text.indexOf(closing, start + opening.length);
    // No closing tag after this opening one, so none after a later one either.
    if (close < 0) break;
    const end = close + closing.length;
    pairs.push({
      text: text.slice(start, end),
      inner: text.slice(start + opening.length, close),
      start,
      end,
    });
    from = end;
  }
  let open = 0;
  for (
    let at = text.indexOf(opening);
    at >= 0;
    at = text.indexOf(opening, at + opening.length)
  )
    open++;
  return { open, pairs };
}

import { fallbackHints, hintsContext } from './hint-section';
import { parseHintBlock, type HintParseResult } from './parse-hint-block';
import { hintReward } from './rewards';

/** The outcome of one update-context response. */
export type HintUpdate = {
  /** The context for the next solve: `Hints: <block>`, or `Hints: no hint available.` */
  hints: string;
  /** How the block parsed. */
  parse: HintParseResult;
  /** The update's reward h_j (≤ 0). */
  reward: number;
};

/**
 * Turns an update-context response into the next context (spec B2/B3): the
 * parsed block becomes `Hints: <block>`; a block that is missing,
 * unterminated, blank or longer than `maxLength` becomes `Hints: no hint
 * available.` and costs `penalty`. Never throws on model output.
 */
export function applyHintUpdate({
  response,
  maxLength,
  penalty,
}: {
  response: string;
  maxLength?: number;
  penalty?: number;
}): HintUpdate {
  const parse = parseHintBlock({
    text: response,
    ...(maxLength === undefined ? {} : { maxLength }),
  });
  return {
    hints: parse.success ? hintsContext(parse.content) : fallbackHints,
    parse,
    reward: hintReward({
      parse,
      ...(penalty === undefined ? {} : { penalty }),
    }),
  };
}

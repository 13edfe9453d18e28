import type { VerifierV1Result } from '@seal/spec';
import * as z from 'zod';

/**
 * One line of BFCL checker verdicts (`shared/bfcl-checker/verdicts.jsonl`,
 * its README): a mutated trajectory and the verdict BFCL's own
 * `multi_turn_checker` gave it. Only the fields we read.
 */
export const bfclCheckerVerdictSchema = z.object({
  case_id: z.string(),
  /** The BFCL entry. */
  id: z.string(),
  model_result_decoded: z.array(z.array(z.array(z.string()))),
  expected: z.object({
    valid: z.boolean(),
    error_type: z.string().nullish(),
    error_message: z.string().nullish(),
    checked_by: z.enum(['runner', 'multi_turn_checker']).nullish(),
    failed_turn: z.number().int().nullish(),
    mismatch_class: z.string().nullish(),
    mismatch_attributes: z.array(z.string()).nullish(),
    missing_items: z.array(z.string()).nullish(),
  }),
  /** The execution result strings BFCL recorded, per turn and step. */
  model_execution_results: z.array(z.array(z.array(z.string()))).nullish(),
  /** Whether the result text holds Python set literals, whose order follows PYTHONHASHSEED. */
  result_text_depends_on_hash_seed: z.boolean().nullish(),
});

/** See {@link bfclCheckerVerdictSchema}. */
export type BfclCheckerVerdict = z.infer<typeof bfclCheckerVerdictSchema>;

/**
 * Sorts the items of Python set literals: their order in a result string
 * follows PYTHONHASHSEED (the fixture marks such cases), the verdict does not.
 */
export function sortSetLiterals(text: string): string {
  return text.replace(
    /\{('[^']*'(?:, '[^']*')+)\}/g,
    (_match, body: string) => `{${body.split(', ').sort().join(', ')}}`,
  );
}

/**
 * How our official verdict differs from BFCL's on one checker case: valid,
 * error type, failed turn, mismatching class, its attributes (as a set) and
 * the missing items (set literals sorted where the hash seed shows), one
 * line each; empty when they agree.
 */
export function checkerVerdictDifferences({
  verdict,
  result,
}: {
  verdict: BfclCheckerVerdict;
  result: VerifierV1Result;
}): string[] {
  const expected = verdict.expected;
  const actual = result.official;
  const problems: string[] = [];
  const norm = verdict.result_text_depends_on_hash_seed
    ? sortSetLiterals
    : (text: string) => text;
  if (expected.valid !== actual.valid)
    problems.push(`valid: expected ${expected.valid} actual ${actual.valid}`);
  if ((expected.error_type ?? undefined) !== actual.errorType) {
    problems.push(
      `error_type: expected ${expected.error_type ?? 'none'} actual ${actual.errorType ?? 'none'}`,
    );
  }
  if ((expected.failed_turn ?? undefined) !== actual.failedTurn) {
    problems.push(
      `failed_turn: expected ${expected.failed_turn ?? 'none'} actual ${actual.failedTurn ?? 'none'}`,
    );
  }
  if ((expected.mismatch_class ?? undefined) !== actual.mismatchClass) {
    problems.push(
      `mismatch_class: expected ${expected.mismatch_class ?? 'none'} actual ${actual.mismatchClass ?? 'none'}`,
    );
  }
  // The fixtures list attributes sorted (their JSON was written with sorted
  // keys); compare as sets, and keep vars() order in our own output.
  const attributes = (list: string[] | null | undefined) =>
    JSON.stringify([...(list ?? [])].sort());
  if (
    attributes(expected.mismatch_attributes) !==
    attributes(actual.mismatchAttributes)
  ) {
    problems.push(
      `mismatch_attributes: expected ${attributes(expected.mismatch_attributes)} actual ${attributes(actual.mismatchAttributes)}`,
    );
  }
  const items = (list: string[] | null | undefined) =>
    JSON.stringify((list ?? []).map(norm));
  if (items(expected.missing_items) !== items(actual.missingItems)) {
    problems.push(
      `missing_items: expected ${items(expected.missing_items)} actual ${items(actual.missingItems)}`,
    );
  }
  return problems;
}

/**
 * How many execution result strings differ from those BFCL recorded for the
 * case (0 when none were recorded or their text depends on the hash seed).
 */
export function checkerResultDifferences({
  verdict,
  result,
}: {
  verdict: BfclCheckerVerdict;
  result: VerifierV1Result;
}): number {
  const recorded = verdict.model_execution_results;
  if (!recorded || verdict.result_text_depends_on_hash_seed) return 0;
  let differences = 0;
  recorded.forEach((turn, index) => {
    const ours = result.turns[index]?.modelResults ?? [];
    turn.flat().forEach((text, i) => {
      if (ours[i] !== text) differences++;
    });
  });
  return differences;
}

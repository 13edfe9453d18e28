import { readFile } from 'node:fs/promises';
import { bfclEntryToTask, loadBfclData, resolveBfclDataDir } from '@seal/bfcl';
import { SealError, parseJsonLines, type VerifierV1Result } from '@seal/spec';
import { verifyTrajectory } from '@seal/verifier';
import * as z from 'zod';
import { parseFlags } from '../args';
import type { CommandContext } from '../command';
import { exitCodes } from '../exit-codes';

const flagsSchema = z.object({
  verdicts: z.string({ error: 'is required (a checker verdicts .jsonl file)' }),
  data: z.string().optional(),
  json: z.boolean().optional(),
});

/** One line of BFCL checker verdicts (`../shared/bfcl-checker/README.md`); fields we read. */
const verdictCaseSchema = z.object({
  case_id: z.string(),
  id: z.string(),
  model_result_decoded: z.array(z.array(z.array(z.string()))),
  expected: z.object({
    valid: z.boolean(),
    error_type: z.string().nullish(),
    failed_turn: z.number().int().nullish(),
    mismatch_class: z.string().nullish(),
    mismatch_attributes: z.array(z.string()).nullish(),
    missing_items: z.array(z.string()).nullish(),
  }),
  model_execution_results: z.array(z.array(z.array(z.string()))).nullish(),
  result_text_depends_on_hash_seed: z.boolean().nullish(),
});
type VerdictCase = z.infer<typeof verdictCaseSchema>;

export const bfclCheckHelp = `usage: seal bfcl check --verdicts FILE [--data DIR] [--json]

Runs the verifier on each case's model_result_decoded and compares valid,
error_type, failed_turn, the mismatching class and attributes, and the missing
items with BFCL's own verdict. Prints every disagreement and ends with
"checker agreement: A/N"; exits 0 only when all agree.`;

/** Sorts the items of Python set literals, whose order depends on the hash seed. */
function normaliseSets(text: string): string {
  return text.replace(
    /\{('[^']*'(?:, '[^']*')+)\}/g,
    (_m, body: string) => `{${body.split(', ').sort().join(', ')}}`,
  );
}

function compare(testCase: VerdictCase, result: VerifierV1Result): string[] {
  const expected = testCase.expected;
  const actual = result.official;
  const problems: string[] = [];
  const norm = testCase.result_text_depends_on_hash_seed
    ? normaliseSets
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

/** Counts result strings that differ from BFCL's recorded execution results (informational). */
function resultDifferences(
  testCase: VerdictCase,
  result: VerifierV1Result,
): number {
  const recorded = testCase.model_execution_results;
  if (!recorded || testCase.result_text_depends_on_hash_seed) return 0;
  let differences = 0;
  recorded.forEach((turn, index) => {
    const ours = result.turns[index]?.modelResults ?? [];
    const theirs = turn.flat();
    theirs.forEach((text, i) => {
      if (ours[i] !== text) differences++;
    });
  });
  return differences;
}

/** `seal bfcl check`. */
export async function runBfclCheck({
  argv,
  output,
}: CommandContext): Promise<number> {
  const { flags } = parseFlags({
    argv,
    options: {
      verdicts: { type: 'string' },
      data: { type: 'string' },
      json: { type: 'boolean' },
    },
    schema: flagsSchema,
  });
  const dir = resolveBfclDataDir({ flag: flags.data });
  let text: string;
  try {
    text = await readFile(flags.verdicts, 'utf8');
  } catch (error) {
    throw new SealError({
      code: 'FILE_NOT_FOUND',
      message: `verdicts file not found: ${flags.verdicts}`,
      cause: error,
    });
  }
  const cases = parseJsonLines({
    text,
    source: flags.verdicts,
    schema: verdictCaseSchema,
  });
  const dataset = await loadBfclData({ dir });
  const progress = output.progress('check', cases.length);
  let agreed = 0;
  let differingResults = 0;
  const disagreements: { caseId: string; id: string; problems: string[] }[] =
    [];
  for (const testCase of cases) {
    const entry = dataset.byId.get(testCase.id);
    if (!entry) {
      throw new SealError({
        code: 'NOT_FOUND',
        message: `${testCase.case_id}: no BFCL entry ${testCase.id} in ${dir}`,
      });
    }
    const result = verifyTrajectory({
      task: bfclEntryToTask({ entry, dataset }),
      trajectory: testCase.model_result_decoded,
      runtime: dataset.runtime,
    });
    const problems = compare(testCase, result);
    differingResults += resultDifferences(testCase, result);
    if (problems.length === 0) agreed++;
    else {
      disagreements.push({
        caseId: testCase.case_id,
        id: testCase.id,
        problems,
      });
      output.line(
        `${testCase.case_id} (${testCase.id}): ${problems.join('; ')}`,
      );
    }
    progress.tick();
  }
  progress.done();
  if (differingResults > 0)
    output.line(
      `note: ${differingResults} model result strings differ from BFCL's recorded ones`,
    );
  output.line(`checker agreement: ${agreed}/${cases.length}`);
  output.result({
    agreed,
    total: cases.length,
    disagreements,
    differingResults,
  });
  return agreed === cases.length ? exitCodes.success : exitCodes.checkFailed;
}

import { readFile } from 'node:fs/promises';
import { bfclEntryToTask, loadBfclData, resolveBfclDataDir } from '@seal/bfcl';
import { SealError, parseJsonLines } from '@seal/spec';
import {
  bfclCheckerVerdictSchema,
  checkerResultDifferences,
  checkerVerdictDifferences,
  verifyTrajectory,
} from '@seal/verifier';
import * as z from 'zod';
import { parseFlags } from '../args';
import type { CommandContext } from '../command';
import { exitCodes } from '../exit-codes';

const flagsSchema = z.object({
  verdicts: z.string({ error: 'is required (a checker verdicts .jsonl file)' }),
  data: z.string().optional(),
  json: z.boolean().optional(),
});

export const bfclCheckHelp = `usage: seal bfcl check --verdicts FILE [--data DIR] [--json]

Runs the verifier on each case's model_result_decoded and compares valid,
error_type, failed_turn, the mismatching class and attributes, and the missing
items with BFCL's own verdict. Prints every disagreement and ends with
"checker agreement: A/N"; exits 0 only when all agree.`;

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
    schema: bfclCheckerVerdictSchema,
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
    const problems = checkerVerdictDifferences({ verdict: testCase, result });
    differingResults += checkerResultDifferences({ verdict: testCase, result });
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

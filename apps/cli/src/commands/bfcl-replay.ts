import { readFile } from 'node:fs/promises';
import {
  describeDifference,
  loadBfclData,
  parseGoldenLines,
  replayGoldenLine,
  resolveBfclDataDir,
  type ReplayEntryResult,
} from '@seal/bfcl';
import { SealError } from '@seal/spec';
import * as z from 'zod';
import { parseFlags } from '../args';
import { exitCodes } from '../exit-codes';
import type { CommandContext } from '../command';

const flagsSchema = z.object({
  golden: z.string({ error: 'is required (a golden replay .jsonl file)' }),
  data: z.string().optional(),
  json: z.boolean().optional(),
  'golden-calls': z.boolean().optional(),
});

export const bfclReplayHelp = `usage: seal bfcl replay --golden FILE [--data DIR] [--json]

Replays every entry's ground truth on fresh API instances and compares the
initial state, each call's result string and each turn's state with a golden
line made by BFCL's own Python. Prints one line per mismatching entry and ends
with "replay: M/N entries match"; exits 0 only when all match.

  --golden FILE  golden replay file (JSON Lines)
  --data DIR     BFCL data directory (default: $SEAL_BFCL_DATA)
  --golden-calls run the calls each golden line records instead of the entry's
                 ground truth (differential tests on mutated call sequences)
  --json         print the results as JSON`;

/** `seal bfcl replay`. */
export async function runBfclReplay({
  argv,
  output,
}: CommandContext): Promise<number> {
  const { flags } = parseFlags({
    argv,
    options: {
      golden: { type: 'string' },
      data: { type: 'string' },
      json: { type: 'boolean' },
      'golden-calls': { type: 'boolean' },
    },
    schema: flagsSchema,
  });
  const dir = resolveBfclDataDir({ flag: flags.data });
  let text: string;
  try {
    text = await readFile(flags.golden, 'utf8');
  } catch (error) {
    throw new SealError({
      code: 'FILE_NOT_FOUND',
      message: `golden file not found: ${flags.golden}`,
      cause: error,
      details: { file: flags.golden },
    });
  }
  const lines = parseGoldenLines({ text, source: flags.golden });
  const dataset = await loadBfclData({ dir });
  const progress = output.progress('replay', lines.length);
  const results: ReplayEntryResult[] = [];
  for (const line of lines) {
    const result = replayGoldenLine({
      dataset,
      line,
      callsFrom: flags['golden-calls'] ? 'line' : 'entry',
    });
    results.push(result);
    progress.tick();
    if (!result.match) output.line(describeDifference(result));
  }
  progress.done();
  const matched = results.filter((result) => result.match).length;
  output.line(`replay: ${matched}/${results.length} entries match`);
  output.result({
    matched,
    total: results.length,
    mismatches: results
      .filter((r) => !r.match)
      .map((r) => ({ id: r.id, ...r.difference })),
  });
  return matched === results.length ? exitCodes.success : exitCodes.checkFailed;
}

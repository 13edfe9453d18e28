import { mkdir, rm } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import {
  evalPackSize,
  promptFormats,
  runPacks,
  summarizePackPositions,
  type PackPositionSummary,
} from '@seal/cod';
import {
  codEmbeddedSampling,
  codEnvironments,
  createCodPackSource,
} from '@seal/embedded';
import { createOrtPolicy } from '@seal/engine-ort';
import { SealError, type PackRunRecord } from '@seal/spec';
import * as z from 'zod';
import { parseFlags } from '../args';
import type { CommandContext } from '../command';
import { exitCodes } from '../exit-codes';

const flagsSchema = z.object({
  packs: z.coerce.number().int().positive(),
  'pack-size': z.coerce.number().int().default(evalPackSize),
  ralph: z.boolean().default(false),
  runs: z.coerce.number().int().positive().default(1),
  model: z.string().optional(),
  env: z.enum(codEnvironments).default('frozen-lake'),
  split: z.enum(['eval', 'harder']).default('eval'),
  seed: z.coerce.number().int().nonnegative().default(0),
  temperature: z.coerce.number().nonnegative().default(1),
  'max-tokens': z.coerce.number().int().positive().optional(),
  'update-max-tokens': z.coerce.number().int().positive().optional(),
  out: z.string().optional(),
  format: z.enum(promptFormats).default('paper'),
  fresh: z.boolean().default(false),
  json: z.boolean().optional(),
});

/** Help of `seal eval --packs`. */
export const evalPacksHelp = `usage: seal eval --packs N --model DIR [--pack-size 8] [--ralph] [--runs 1] [--env frozen-lake|bfcl]
                 [--split eval|harder] [--format paper|compact] [--seed N] [--temperature T]
                 [--out FILE] [--fresh] [--json]

Connect the Dots evaluation: N packs of related tasks (pack size 8, longer
than training's 4), each solved in order by the model at --model, which
rewrites its own hints between the tasks. Prints success per pack position:
a curve that rises with the position is the CoD signature. --ralph repeats
each pack's first task instead (the Ralph loop). --runs R samples R runs of
each pack together. Pack runs are written to
--out (JSON Lines) as they finish; a killed evaluation resumes at the last
complete pack unless --fresh is given. --format compact words the prompts
briefly (the embedded CoD model of seal train --method cod --preset embedded)
and samples as that preset does (--max-tokens 32, --update-max-tokens 240;
otherwise 16 and 128).`;

/** Formats the position curve, one line per position. */
export function positionLines(
  summary: readonly PackPositionSummary[],
): string[] {
  return summary.map(
    (entry) =>
      `  position ${String(entry.position + 1).padStart(2)}: success ${(entry.successRate * 100).toFixed(1).padStart(5)}%  reward ${entry.rewardMean.toFixed(3)}  (${entry.runs} runs)`,
  );
}

/** The fraction of update-context responses whose hint block parsed, as `k/n`. */
export function parsedFraction(records: readonly PackRunRecord[]): string {
  const updates = records.flatMap((record) => record.updates);
  return `${updates.filter((update) => update.parsed).length}/${updates.length}`;
}

/** One line on the hint blocks of pack runs: how many parsed, and why the others did not. */
export function hintParseLine(records: readonly PackRunRecord[]): string {
  const failures = new Map<string, number>();
  for (const update of records.flatMap((record) => record.updates)) {
    if (!update.parsed)
      failures.set(
        update.failure ?? 'unknown',
        (failures.get(update.failure ?? 'unknown') ?? 0) + 1,
      );
  }
  const reasons = [...failures]
    .map(([reason, count]) => `${reason} ${count}`)
    .join(', ');
  return `  hint blocks parsed: ${parsedFraction(records)}${reasons.length > 0 ? ` (failed: ${reasons})` : ''}`;
}

/** `seal eval --packs N`. */
export async function runEvalPacks({
  argv,
  output,
}: CommandContext): Promise<number> {
  const { flags } = parseFlags({
    argv,
    options: {
      packs: { type: 'string' },
      'pack-size': { type: 'string' },
      ralph: { type: 'boolean' },
      runs: { type: 'string' },
      model: { type: 'string' },
      env: { type: 'string' },
      split: { type: 'string' },
      seed: { type: 'string' },
      temperature: { type: 'string' },
      'max-tokens': { type: 'string' },
      'update-max-tokens': { type: 'string' },
      out: { type: 'string' },
      format: { type: 'string' },
      fresh: { type: 'boolean' },
      json: { type: 'boolean' },
    },
    schema: flagsSchema,
  });
  if (flags.model === undefined) {
    throw new SealError({
      code: 'INVALID_ARGUMENT',
      message: `--packs needs --model DIR (a checkpoint)\n\n${evalPacksHelp}`,
    });
  }
  const strategy = flags.ralph ? 'ralph_sample' : 'cod';
  // The compact format's replies reason first (the embedded CoD model): the embedded preset's budgets.
  const budget =
    flags.format === 'compact'
      ? codEmbeddedSampling
      : { maxTokens: 16, updateMaxTokens: 128 };
  const sampling = {
    maxTokens: flags['max-tokens'] ?? budget.maxTokens,
    updateMaxTokens: flags['update-max-tokens'] ?? budget.updateMaxTokens,
  };
  const source = createCodPackSource({
    name: flags.env,
    seed: flags.seed,
    split: flags.split,
    format: flags.format,
  });
  // Bad pack sizes and tasksets too small for a pack fail here, before the model loads.
  const packs = source.packs({
    count: flags.packs,
    packSize: flags['pack-size'],
    strategy,
    round: 0,
  });
  const file = resolve(
    flags.out ??
      join('runs', `eval-packs-${flags.env}-${strategy}-s${flags.seed}.jsonl`),
  );
  if (flags.fresh) await rm(file, { force: true });
  await mkdir(dirname(file), { recursive: true });
  const policy = await createOrtPolicy({
    model: { directory: resolve(flags.model) },
  });
  try {
    const bar = output.progress('packs', packs.length);
    const { records, resumedPacks } = await runPacks({
      policy,
      environment: source.environment,
      packs,
      groupSize: flags.runs,
      sampling: {
        ...sampling,
        temperature: flags.temperature,
        seed: flags.seed,
      },
      hints: { format: flags.format },
      mode: 'eval',
      file,
      onPack: () => bar.tick(1),
    });
    bar.done();
    const summary = summarizePackPositions(records);
    output.result({
      environment: source.environment.environmentId,
      strategy,
      packs: packs.length,
      packSize: flags['pack-size'],
      resumedPacks,
      file,
      positions: summary,
    });
    output.line(
      `seal eval: ${packs.length} ${strategy} packs of ${flags['pack-size']} on ${source.environment.environmentId}${resumedPacks > 0 ? ` (${resumedPacks} resumed)` : ''}, pack runs in ${file}`,
    );
    for (const line of positionLines(summary)) output.line(line);
    output.line(hintParseLine(records));
  } finally {
    await policy.close();
  }
  return exitCodes.success;
}

/** Whether `seal eval` arguments ask for a pack evaluation (`--packs N`). */
export function requestsPacks(argv: readonly string[]): boolean {
  return argv.some((arg) => arg === '--packs' || arg.startsWith('--packs='));
}

import { readRunDirectory, writeReport } from '@seal/report';
import { SealError } from '@seal/spec';
import * as z from 'zod';
import { parseFlags } from '../args';
import type { CommandContext } from '../command';
import { exitCodes } from '../exit-codes';
import { createRunDiagnoser } from '../run-diagnoser';

const flagsSchema = z.object({
  out: z.string().min(1).optional(),
  data: z.string().optional(),
  tasks: z.string().optional(),
  'no-verify': z.boolean().optional(),
  json: z.boolean().optional(),
});

export const reportHelp = `usage: seal report RUN_DIR [--out FILE] [--data DIR] [--tasks FILE] [--no-verify] [--json]

Writes a self-contained report.html for a training run directory (no network:
Chart.js and all data are inline): training reward and success per step,
evaluation accuracy per split, accuracy by BFCL category, SEAL failure-tag
counts over steps and in total, the interface-overlay timeline with what each
overlay contained, and the history of the A-Patch tag weights ρ. For a
Connect the Dots run (seal train --method cod): success and reward against
the position in the pack per evaluation, and what became of the hint blocks.

Runs do not record per-episode verdicts, so the per-category training charts
re-verify the training episodes: generated tasks are re-drawn from the run's
seed, BFCL tasks come from the data directory.

  --out FILE    where to write (default: RUN_DIR/report.html)
  --data DIR    BFCL data directory for runs on BFCL (default: $SEAL_BFCL_DATA)
  --tasks FILE  read the tasks from Task JSON Lines instead
  --no-verify   do not re-verify episodes (no per-category training chart)
  --json        print the report's data as JSON

Exit codes: 0 written, 2 bad flags, 3 not a run directory.`;

/** `seal report`. */
export async function runReport({
  argv,
  output,
}: CommandContext): Promise<number> {
  const { flags, positionals } = parseFlags({
    argv,
    options: {
      out: { type: 'string' },
      data: { type: 'string' },
      tasks: { type: 'string' },
      'no-verify': { type: 'boolean' },
      json: { type: 'boolean' },
    },
    schema: flagsSchema,
    allowPositionals: true,
  });
  if (positionals.length !== 1) {
    throw new SealError({
      code: 'INVALID_ARGUMENT',
      message: `${positionals.length === 0 ? 'no run directory given' : 'give one run directory'}\n\n${reportHelp}`,
    });
  }
  const runDirectory = positionals[0]!;
  const run = await readRunDirectory({ runDirectory });
  const diagnose = flags['no-verify']
    ? undefined
    : await createRunDiagnoser({
        runDirectory,
        seed: run.config?.seed ?? undefined,
        ...(flags.data === undefined ? {} : { dataDirectory: flags.data }),
        ...(flags.tasks === undefined ? {} : { tasksFile: flags.tasks }),
      });
  const result = await writeReport({
    runDirectory,
    ...(flags.out === undefined ? {} : { out: flags.out }),
    ...(diagnose ? { diagnose } : {}),
  });
  const { data } = result;
  output.line(
    `seal report: wrote ${result.path} (${(result.bytes / 1024).toFixed(0)} KiB)`,
  );
  output.line(
    `  ${data.run.completedSteps} training steps, ${data.evaluation.sets.length} evaluation sets, ${data.overlays.overlays.length} overlays, ${data.episodes.diagnosed} training episodes re-verified`,
  );
  for (const set of data.evaluation.sets) {
    const pct = (value: number | null | undefined) =>
      value === null || value === undefined
        ? '—'
        : `${(value * 100).toFixed(1)}%`;
    output.line(
      `  ${set.name}: ${pct(set.accuracy[0])} at step ${set.steps[0]} → ${pct(set.accuracy.at(-1))} at step ${set.steps.at(-1)}`,
    );
  }
  // Connect the Dots: success at each pack position, per evaluation.
  for (const evaluation of data.packs?.evaluations ?? []) {
    const curve = evaluation.positions
      .map((entry) => `${(entry.successRate * 100).toFixed(0)}%`)
      .join(' ');
    output.line(
      `  packs ${evaluation.step === 0 ? 'before training' : `after step ${evaluation.step}`}: success by position ${curve} (${evaluation.packRuns} pack runs)`,
    );
  }
  if (data.packs)
    output.line(
      `  hint blocks: ${data.packs.hints.parsed} of ${data.packs.hints.updates} usable`,
    );
  if (data.episodes.unavailable > 0) {
    output.line(
      `  ${data.episodes.unavailable} training episodes not re-verified: ${data.episodes.unavailableReasons.join('; ')}`,
    );
  }
  for (const warning of data.warnings) output.line(`  warning: ${warning}`);
  output.result({ path: result.path, bytes: result.bytes, data });
  return exitCodes.success;
}

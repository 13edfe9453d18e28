import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { readRunDirectory } from '@seal/report';
import { formatPoints } from '@seal/rl';
import { SealError } from '@seal/spec';
import * as z from 'zod';
import { parseFlags } from '../args';
import type { CommandContext } from '../command';
import { exitCodes } from '../exit-codes';
import { table } from '../ui/table';
import { compareCategories, compareRuns, type ComparedMeasure, type ComparedRun } from './compare-runs';

const stepSchema = z.coerce.number().int().nonnegative().optional();

const flagsSchema = z.object({
  against: z.array(z.string().min(1)).optional(),
  step: stepSchema,
  'against-step': stepSchema,
  set: z.array(z.string().min(1)).optional(),
  category: z.enum(compareCategories).optional(),
  json: z.boolean().optional(),
});

export const compareHelp = `usage: seal compare RUN_DIR... [--against RUN_DIR[,RUN_DIR...]] [--step N] [--against-step N]
                    [--set test-id] [--category base|miss_param|miss_func|long_context] [--json]

Paired gains of training runs on their held-out evaluations, pooled over the
runs with a two-stage bootstrap 95% interval (the runs, then the tasks within
a run), so the interval covers the variation between RL runs as well as
between tasks. Both measures a run records: sampled pass@1 and greedy.

Without --against: each run at --step (default: its last evaluation) against
its own step 0, on the same tasks: what RL added to the warm start. One run
gives the figures its \`seal train\` summary printed.

With --against: each run against the control run of the same seed (or, if the
seeds do not tell them apart, the control in the same position) at
--against-step (default: the control's last evaluation): what one change did,
e.g. \`seal compare probe-s1 probe-s2 --against ctl-s1,ctl-s2\`.

The minimum detectable effect is the smallest true gain the design finds with
probability 0.8 (two-sided α = 0.05): over the runs' gains from two runs on,
over the one run's tasks otherwise.

  --against DIRS    control runs (a comma list, or the flag repeated)
  --step N          the runs' step (default: each run's last evaluation)
  --against-step N  the controls' step (default: each control's last evaluation)
  --set NAME        an evaluation set (repeatable; default: every set the first run has)
  --category C      only the tasks of one BFCL category
  --json            print the comparison as JSON

Exit codes: 0 compared, 2 bad flags or runs that cannot be paired, 3 not a run directory.`;

async function readRun(directory: string): Promise<ComparedRun> {
  if (!existsSync(join(directory, 'events.jsonl'))) {
    throw new SealError({ code: 'NOT_FOUND', message: `${directory}: not a run directory (no events.jsonl)` });
  }
  const run = await readRunDirectory({ runDirectory: directory });
  return { name: directory, seed: run.config?.seed ?? undefined, evaluations: run.evaluations };
}

const percent = (value: number) => `${(100 * value).toFixed(1)}%`;
const points = (value: number) => `${value >= 0 ? '+' : ''}${(100 * value).toFixed(1)}`;

function describe(measure: ComparedMeasure, controlled: boolean): string[] {
  const title = `${measure.set}${measure.category ? ` (${measure.category})` : ''}, ${measure.measure === 'sampled' ? 'sampled pass@1' : 'greedy'}`;
  const rows = measure.pairs.map((pair) => [
    `${pair.run}${pair.control ? ` − ${pair.control}` : ''}`,
    pair.seed === undefined ? '—' : String(pair.seed),
    controlled ? `${pair.after} / ${pair.before}` : `${pair.before} → ${pair.after}`,
    String(pair.tasks),
    `${percent(pair.meanBefore)} → ${percent(pair.meanAfter)}`,
    points(pair.gain),
  ]);
  const mde = measure.minimumDetectableEffect;
  return [
    title,
    ...table(['run', 'seed', controlled ? 'steps (run / control)' : 'steps', 'tasks', controlled ? 'control → run' : 'before → after', 'gain'], rows).map((line) => `  ${line}`),
    `  pooled over ${measure.pooled.clusters} run${measure.pooled.clusters === 1 ? '' : 's'} and ${measure.pooled.n} cells: ${formatPoints(measure.pooled)} points (${percent(measure.meanBefore)} → ${percent(measure.meanAfter)}), 95% CI ${
      measure.pooled.low > 0 ? 'above 0' : measure.pooled.high < 0 ? 'below 0' : 'includes 0'
    }${mde ? `; minimum detectable effect ${(100 * mde.value).toFixed(1)} points (over ${mde.over})` : ''}`,
  ];
}

/** `seal compare`. */
export async function runCompare({ argv, output }: CommandContext): Promise<number> {
  const { flags, positionals } = parseFlags({
    argv,
    options: {
      against: { type: 'string', multiple: true },
      step: { type: 'string' },
      'against-step': { type: 'string' },
      set: { type: 'string', multiple: true },
      category: { type: 'string' },
      json: { type: 'boolean' },
    },
    schema: flagsSchema,
    allowPositionals: true,
  });
  if (positionals.length === 0) {
    throw new SealError({ code: 'INVALID_ARGUMENT', message: `no run directory given\n\n${compareHelp}` });
  }
  const controlDirectories = flags.against?.flatMap((value) => value.split(',')).filter((value) => value.length > 0);
  if (flags['against-step'] !== undefined && !controlDirectories) {
    throw new SealError({ code: 'INVALID_ARGUMENT', message: '--against-step needs --against' });
  }
  const runs = await Promise.all(positionals.map(readRun));
  const controls = controlDirectories ? await Promise.all(controlDirectories.map(readRun)) : undefined;
  const measures = compareRuns({
    runs,
    ...(controls ? { controls } : {}),
    ...(flags.step === undefined ? {} : { step: flags.step }),
    ...(flags['against-step'] === undefined ? {} : { controlStep: flags['against-step'] }),
    ...(flags.set ? { sets: flags.set } : {}),
    ...(flags.category ? { category: flags.category } : {}),
  });
  if (measures.length === 0) {
    throw new SealError({ code: 'INVALID_ARGUMENT', message: 'nothing to compare: the runs share no evaluated tasks' + (flags.category ? ` in ${flags.category}` : '') });
  }
  output.line(
    controls
      ? `seal compare: ${runs.length} run${runs.length === 1 ? '' : 's'} against ${controls.length} control${controls.length === 1 ? '' : 's'}, paired over the same tasks (two-stage bootstrap, 95%)`
      : `seal compare: ${runs.length} run${runs.length === 1 ? '' : 's'}, each against its own step 0 on the same tasks (two-stage bootstrap, 95%)`,
  );
  for (const measure of measures) {
    output.line();
    for (const line of describe(measure, controls !== undefined)) output.line(line);
  }
  output.result({ measures });
  return exitCodes.success;
}

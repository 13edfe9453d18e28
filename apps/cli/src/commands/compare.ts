import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { readRunDirectory } from '@seal/report';
import {
  compareCategories,
  compareRuns,
  compareTraining,
  formatPoints,
  readTrainingCells,
  trainingMeasures,
  type ComparedMeasure,
  type ComparedRun,
  type TrainingCell,
} from '@seal/rl';
import { SealError, runDirectoryLayout } from '@seal/spec';
import * as z from 'zod';
import { parseFlags } from '../args';
import type { CommandContext } from '../command';
import { exitCodes } from '../exit-codes';
import { table } from '../ui/table';
import { createRunDiagnoser } from '../run-diagnoser';

const stepSchema = z.coerce.number().int().nonnegative().optional();

const flagsSchema = z.object({
  against: z.array(z.string().min(1)).optional(),
  step: stepSchema,
  'against-step': stepSchema,
  set: z.array(z.string().min(1)).optional(),
  category: z.enum(compareCategories).optional(),
  training: z.boolean().optional(),
  'from-step': z.coerce.number().int().positive().optional(),
  data: z.string().optional(),
  json: z.boolean().optional(),
});

export const compareHelp = `usage: seal compare RUN_DIR... [--against RUN_DIR[,RUN_DIR...]] [--step N] [--against-step N]
                    [--set test-id] [--category base|miss_param|miss_func|long_context] [--json]
       seal compare --training RUN_DIR... [--from-step N] [--data DIR] [--json]

Paired gains of training runs on their held-out evaluations, pooled over the
runs with a crossed two-way bootstrap 95% interval (runs and tasks resampled
independently: every run is scored on the same tasks), so the interval
covers the variation between RL runs as well as between tasks; beside it the
95% t-interval over the runs' gains (the run as the unit; n/a with one run).
Runs scored on different tasks fall back to the nested two-stage bootstrap
(runs, then tasks within a run). The measures, greedy first: greedy pass@1
(the primary measure), sampled pass@1, and sampled pass@k (k the samples per
task: whether any succeeds), which falls where RL narrows what the policy
reaches while pass@1 rises. A sampled gain compares the run at its sampling
temperature with the warm start (or control) at its own; no run records the
warm start's best temperature on validation data, so the line says when the
two are not temperature-matched (a learned logit scale alone moves it).

Without --against: each run at --step (default: its last evaluation) against
its own step 0, on the same tasks: what RL added to the warm start. One run
gives the figures its \`seal train\` summary printed.

With --against: each run against the control run of the same seed (or, if the
seeds do not tell them apart, the control in the same position) at
--against-step (default: the control's last evaluation): what one change did,
e.g. \`seal compare probe-s1 probe-s2 --against ctl-s1,ctl-s2\`.

The minimum detectable effect (MDE) is the smallest true gain the design finds
with probability 0.8 (two-sided α = 0.05): (1.960 + 0.842) × the crossed
bootstrap's standard error (for the nested fallback: over the runs' gains
from two runs on, over the one run's tasks otherwise).

  --against DIRS    control runs (a comma list, or the flag repeated)
  --step N          the runs' step (default: each run's last evaluation)
  --against-step N  the controls' step (default: each control's last evaluation)
  --set NAME        an evaluation set (repeatable; default: every set the first run has)
  --category C      only the tasks of one BFCL category
  --json            print the comparison as JSON

With --training: what the policy learned on its training tasks, for runs made
with the frozen baseline (--baseline on; the extended preset). Each step's
episodes are paired with the frozen warm start's on the same tasks and
sampling seeds, re-verified, and compared by category: success, the share of
episodes with a spurious call (a tool called in a turn that should ask), and
empty turns (a call was due and none came). Intervals: two-stage bootstrap
over the runs, then the (step, task) cells.

  --from-step N     only steps N and later
  --data DIR        BFCL data directory for runs on BFCL (default: $SEAL_BFCL_DATA)

Exit codes: 0 compared, 2 bad flags or runs that cannot be paired, 3 not a run directory.`;

async function readRun(directory: string): Promise<ComparedRun> {
  if (!existsSync(join(directory, runDirectoryLayout.events))) {
    throw new SealError({
      code: 'NOT_FOUND',
      message: `${directory}: not a run directory (no events.jsonl)`,
    });
  }
  const run = await readRunDirectory({ runDirectory: directory });
  return {
    name: directory,
    seed: run.config?.seed ?? undefined,
    evaluations: run.evaluations,
  };
}

const percent = (value: number) => `${(100 * value).toFixed(1)}%`;
const signed = (value: number) => `${value >= 0 ? '+' : ''}${value.toFixed(3)}`;
const points = (value: number) =>
  `${value >= 0 ? '+' : ''}${(100 * value).toFixed(1)}`;

/** What a sampled measure compares, in words: the temperatures of both sides and whether they were matched. */
export function samplingLabel(
  measure: ComparedMeasure,
  controlled: boolean,
): string | undefined {
  const temperatures = measure.temperatures;
  if (!temperatures) return undefined;
  const baseline = controlled ? 'control' : 'warm start';
  return `sampled at T=${temperatures.runs} vs ${baseline} at T=${temperatures.baseline}${temperatures.matched ? ` (${baseline}'s temperature chosen on validation)` : ' (not temperature-matched)'}`;
}

/** The pooled line of a measure: two-way interval, t-interval over runs, MDE. */
export function pooledLine(measure: ComparedMeasure): string {
  const pooled = measure.pooled;
  const runs = `${pooled.runs} run${pooled.runs === 1 ? '' : 's'}`;
  const verdict =
    pooled.low > 0 ? 'above 0' : pooled.high < 0 ? 'below 0' : 'includes 0';
  const design =
    pooled.design === 'crossed'
      ? 'two-way bootstrap (runs × tasks, crossed)'
      : 'nested bootstrap (runs, then tasks: the runs cover different tasks)';
  const t = measure.tInterval
    ? `t over ${measure.tInterval.n} runs' gains ${formatPoints(measure.tInterval)}`
    : 't over runs n/a (one run)';
  const mde = measure.minimumDetectableEffect;
  const detectable = mde
    ? `minimum detectable effect ${(100 * mde.value).toFixed(1)} points (${mde.over === 'design' ? '2.8 × the two-way SE' : `over ${mde.over}`})`
    : 'minimum detectable effect n/a';
  return `pooled over ${runs} and ${pooled.n} cells: ${formatPoints(pooled)} points (${percent(measure.meanBefore)} → ${percent(measure.meanAfter)}), 95% ${design} ${verdict}; ${t}; ${detectable}`;
}

function describe(measure: ComparedMeasure, controlled: boolean): string[] {
  const name =
    measure.measure === 'greedy'
      ? 'greedy pass@1'
      : measure.measure === 'sampled'
        ? 'sampled pass@1'
        : `sampled pass@${measure.samples ?? 'k'} (any of the samples succeeds)`;
  const label = samplingLabel(measure, controlled);
  const title = `${measure.set}${measure.category ? ` (${measure.category})` : ''}, ${name}${label ? `, ${label}` : ''}`;
  const rows = measure.pairs.map((pair) => [
    `${pair.run}${pair.control ? ` − ${pair.control}` : ''}`,
    pair.seed === undefined ? '—' : String(pair.seed),
    controlled
      ? `${pair.after} / ${pair.before}`
      : `${pair.before} → ${pair.after}`,
    String(pair.tasks),
    `${percent(pair.meanBefore)} → ${percent(pair.meanAfter)}`,
    points(pair.gain),
  ]);
  return [
    title,
    ...table(
      [
        'run',
        'seed',
        controlled ? 'steps (run / control)' : 'steps',
        'tasks',
        controlled ? 'control → run' : 'before → after',
        'gain',
      ],
      rows,
    ).map((line) => `  ${line}`),
    `  ${pooledLine(measure)}`,
  ];
}

/** `seal compare`. */
export async function runCompare({
  argv,
  output,
}: CommandContext): Promise<number> {
  const { flags, positionals } = parseFlags({
    argv,
    options: {
      against: { type: 'string', multiple: true },
      step: { type: 'string' },
      'against-step': { type: 'string' },
      set: { type: 'string', multiple: true },
      category: { type: 'string' },
      training: { type: 'boolean' },
      'from-step': { type: 'string' },
      data: { type: 'string' },
      json: { type: 'boolean' },
    },
    schema: flagsSchema,
    allowPositionals: true,
  });
  if (positionals.length === 0) {
    throw new SealError({
      code: 'INVALID_ARGUMENT',
      message: `no run directory given\n\n${compareHelp}`,
    });
  }
  if (flags.training)
    return compareTrainingRuns({ directories: positionals, flags, output });
  if (flags['from-step'] !== undefined) {
    throw new SealError({
      code: 'INVALID_ARGUMENT',
      message: '--from-step needs --training',
    });
  }
  const controlDirectories = flags.against
    ?.flatMap((value) => value.split(','))
    .filter((value) => value.length > 0);
  if (flags['against-step'] !== undefined && !controlDirectories) {
    throw new SealError({
      code: 'INVALID_ARGUMENT',
      message: '--against-step needs --against',
    });
  }
  const runs = await Promise.all(positionals.map(readRun));
  const controls = controlDirectories
    ? await Promise.all(controlDirectories.map(readRun))
    : undefined;
  const measures = compareRuns({
    runs,
    ...(controls ? { controls } : {}),
    ...(flags.step === undefined ? {} : { step: flags.step }),
    ...(flags['against-step'] === undefined
      ? {}
      : { controlStep: flags['against-step'] }),
    ...(flags.set ? { sets: flags.set } : {}),
    ...(flags.category ? { category: flags.category } : {}),
  });
  if (measures.length === 0) {
    throw new SealError({
      code: 'INVALID_ARGUMENT',
      message:
        'nothing to compare: the runs share no evaluated tasks' +
        (flags.category ? ` in ${flags.category}` : ''),
    });
  }
  output.line(
    controls
      ? `seal compare: ${runs.length} run${runs.length === 1 ? '' : 's'} against ${controls.length} control${controls.length === 1 ? '' : 's'}, paired over the same tasks (greedy first; 95% intervals)`
      : `seal compare: ${runs.length} run${runs.length === 1 ? '' : 's'}, each against its own step 0 on the same tasks (greedy first; 95% intervals)`,
  );
  for (const measure of measures) {
    output.line();
    for (const line of describe(measure, controls !== undefined))
      output.line(line);
  }
  output.result({ measures });
  return exitCodes.success;
}

async function compareTrainingRuns({
  directories,
  flags,
  output,
}: {
  directories: string[];
  flags: z.infer<typeof flagsSchema>;
  output: CommandContext['output'];
}): Promise<number> {
  const unsupported = (
    ['against', 'step', 'against-step', 'set', 'category'] as const
  ).filter((name) => flags[name] !== undefined);
  if (unsupported.length > 0) {
    throw new SealError({
      code: 'INVALID_ARGUMENT',
      message: `--training compares training episodes; ${unsupported.map((name) => `--${name}`).join(', ')} apply to evaluations`,
    });
  }
  const cells: TrainingCell[] = [];
  for (const directory of directories) {
    const run = await readRun(directory);
    const diagnose = await createRunDiagnoser({
      runDirectory: directory,
      seed: run.seed,
      ...(flags.data === undefined ? {} : { dataDirectory: flags.data }),
    });
    const read = await readTrainingCells({
      runDirectory: directory,
      diagnose,
      ...(flags['from-step'] === undefined
        ? {}
        : { fromStep: flags['from-step'] }),
    });
    if (read.cells.length === 0) {
      throw new SealError({
        code: 'INVALID_ARGUMENT',
        message: `${directory}: no training step with the frozen baseline's episodes beside the policy's${read.unavailable.length > 0 ? ` (${read.unavailable.join('; ')})` : ' (train with --baseline on)'}`,
      });
    }
    if (read.unpaired > 0)
      output.line(
        `  ${directory}: ${read.unpaired} episodes left out (no partner, or not re-verified${read.unavailable.length > 0 ? `: ${read.unavailable.join('; ')}` : ''})`,
      );
    cells.push(...read.cells);
  }
  const comparisons = compareTraining({ cells });
  const runs = new Set(cells.map((cell) => cell.run)).size;
  output.line(
    `seal compare --training: ${runs} run${runs === 1 ? '' : 's'}, the policy against the frozen warm start on the same training tasks and sampling seeds (two-stage bootstrap, 95%)`,
  );
  for (const key of Object.keys(
    trainingMeasures,
  ) as (keyof typeof trainingMeasures)[]) {
    output.line();
    output.line(trainingMeasures[key]);
    const rate = key !== 'emptyTurns';
    const value = (x: number) => (rate ? percent(x) : x.toFixed(3));
    const rows = comparisons
      .filter((comparison) => comparison.measure === key)
      .map((comparison) => [
        comparison.category,
        String(comparison.cells),
        String(comparison.episodes),
        value(comparison.frozen),
        value(comparison.policy),
        rate
          ? formatPoints(comparison.difference)
          : `${signed(comparison.difference.mean)} [${signed(comparison.difference.low)}, ${signed(comparison.difference.high)}]`,
      ]);
    for (const line of table(
      [
        'category',
        'cells',
        'episodes',
        'frozen',
        'policy',
        rate ? 'policy − frozen (points)' : 'policy − frozen',
      ],
      rows,
    ))
      output.line(`  ${line}`);
  }
  output.result({ training: comparisons });
  return exitCodes.success;
}

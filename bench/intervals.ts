/**
 * `pnpm bench intervals [--archive DIR] [--resamples N]`
 * `pnpm bench intervals --gains=11.3,1.2,8.2,14.8,0.4` (the `=` form lets a gain be negative)
 *
 * Recomputes a finished learning study's pooled differences from its
 * archive (`pnpm bench learning --archive DIR`: each run's result and each
 * seed's step-0 evaluation, gzipped), with no training and no model: every
 * arm − frozen (the warm start: each run's own step-0 evaluation, the same
 * for every arm of a seed under common random numbers) and every arm − GRPO,
 * on each held-out set, greedy pass@1 first and sampled pass@1 beside it,
 * at the runs' final evaluation. Each difference is printed three ways
 * (issue 44): the nested two-stage bootstrap the study printed (seeds, then
 * tasks within each seed), the crossed two-way bootstrap (seeds and tasks
 * resampled independently: every seed is scored on the same tasks), and the
 * t-interval over the per-seed gains, with the minimum detectable effect of
 * the crossed design (power 0.8, two-sided α = 0.05, 2.8 × its standard
 * error) and the per-seed gains. All bootstraps use seed 17, as the study's
 * table did.
 *
 * With `--gains`: the 95% t-interval over per-seed gains given in points
 * (for studies whose per-task results were not archived).
 */
import { existsSync } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { gunzipSync } from 'node:zlib';
import {
  clusteredPairedBootstrap,
  compareCrossed,
  formatPoints,
  seedTInterval,
  type SeedRow,
} from '@seal/rl';
import { SealError, type EvalEvent } from '@seal/spec';
import { benchFlags } from './_args';

const flags = benchFlags(['archive', 'resamples', 'gains']);
const resamples = Number(flags.value('resamples') ?? '10000');
if (!Number.isInteger(resamples) || resamples < 1)
  throw new SealError({
    code: 'INVALID_ARGUMENT',
    message: `--resamples must be a positive integer, got ${flags.value('resamples')}`,
  });

const points = (value: number): string =>
  `${value >= 0 ? '+' : ''}${(100 * value).toFixed(1)}`;

const gainsText = flags.value('gains');
if (gainsText !== undefined) {
  const gains = gainsText.split(',').map((part) => Number(part) / 100);
  const interval = seedTInterval({ gains });
  console.log(
    `t-interval over ${gains.length} per-seed gains (${gains.map(points).join(', ')}): ${formatPoints(interval)} points (95%, t with ${gains.length - 1} degrees of freedom)`,
  );
  process.exit(0);
}

const archive = resolve(
  flags.value('archive') ?? 'bench/learning/study/results',
);
if (!existsSync(archive))
  throw new SealError({
    code: 'NOT_FOUND',
    message: `${archive}: no such archive (a folder of <arm>-s<seed>.json.gz files)`,
  });

type ArchivedRun = { arm: string; seed: number; evaluations: EvalEvent[] };
const runs: ArchivedRun[] = [];
for (const name of (await readdir(archive)).sort()) {
  const match = /^(.+)-s(\d+)\.json\.gz$/.exec(name);
  if (!match || match[1] === 'warmstart') continue;
  try {
    const value = JSON.parse(
      gunzipSync(await readFile(join(archive, name))).toString('utf8'),
    ) as ArchivedRun;
    runs.push({
      arm: value.arm,
      seed: value.seed,
      evaluations: value.evaluations,
    });
  } catch (error) {
    throw new SealError({
      code: 'INVALID_DATA',
      message: `${join(archive, name)} is not a gzipped JSON run result (${(error as Error).message})`,
      cause: error,
    });
  }
}
if (runs.length === 0)
  throw new SealError({
    code: 'NOT_FOUND',
    message: `${archive}: no archived runs`,
  });

type Measure = 'greedy' | 'sampled';
const arms = [...new Set(runs.map((run) => run.arm))];
const seeds = [...new Set(runs.map((run) => run.seed))].sort((a, b) => a - b);
const sets = [
  ...new Set(runs.flatMap((run) => run.evaluations.map((e) => e.set))),
];

/** Per task, a run's success at `step` (default: its last evaluation of the set). */
function success(
  run: ArchivedRun,
  set: string,
  measure: Measure,
  step?: number,
): Record<string, number> | undefined {
  const events = run.evaluations.filter((e) => e.set === set);
  const event =
    step === undefined ? events.at(-1) : events.find((e) => e.step === step);
  return measure === 'greedy'
    ? event?.taskSuccess
    : event?.sampled?.taskSuccess;
}

/** One row per seed both sides have: `after` the arm's final, `before` the baseline's, over the tasks both scored (sorted). */
function rowsOf(
  arm: string,
  baseline: string,
  set: string,
  measure: Measure,
): (SeedRow & { tasks: string[] })[] {
  const rows: (SeedRow & { tasks: string[] })[] = [];
  for (const seed of seeds) {
    const mine = runs.find((run) => run.arm === arm && run.seed === seed);
    if (!mine) continue;
    const theirs =
      baseline === 'frozen'
        ? success(mine, set, measure, 0)
        : (() => {
            const other = runs.find(
              (run) => run.arm === baseline && run.seed === seed,
            );
            return other ? success(other, set, measure) : undefined;
          })();
    const after = success(mine, set, measure);
    if (!theirs || !after) continue;
    const tasks = Object.keys(after)
      .filter((id) => id in theirs)
      .sort();
    rows.push({
      tasks,
      before: tasks.map((id) => theirs[id]!),
      after: tasks.map((id) => after[id]!),
    });
  }
  return rows;
}

const comparisons: [string, string][] = [
  ...arms.map((arm): [string, string] => [arm, 'frozen']),
  ...arms
    .filter((arm) => arm !== 'grpo' && arms.includes('grpo'))
    .map((arm): [string, string] => [arm, 'grpo']),
];
const lines: string[] = [
  `archive ${archive}: ${runs.length} runs, arms ${arms.join(', ')}, seeds ${seeds.join(', ')}; ${resamples} resamples, bootstrap seed 17`,
];
for (const set of sets) {
  for (const measure of ['greedy', 'sampled'] as const) {
    lines.push(
      '',
      `**${set}, ${measure === 'greedy' ? 'greedy pass@1' : 'sampled pass@1 (T = 1 on both sides: not temperature-matched)'}** — final evaluation, points, 95% intervals`,
      '',
      '| difference | seeds × tasks | nested (seeds, then tasks) | crossed two-way | t over per-seed gains | MDE (2.8 × two-way SE) | per-seed gains |',
      '| --- | ---: | ---: | ---: | ---: | ---: | --- |',
    );
    for (const [arm, baseline] of comparisons) {
      const rows = rowsOf(arm, baseline, set, measure);
      if (rows.length === 0) continue;
      const first = rows[0]!.tasks.join('\n');
      if (!rows.every((row) => row.tasks.join('\n') === first))
        throw new SealError({
          code: 'INVALID_DATA',
          message: `${arm} − ${baseline} on ${set}: the seeds are not scored on the same tasks, so the design is not crossed`,
        });
      const nested = clusteredPairedBootstrap({
        clusters: rows,
        seed: 17,
        resamples,
      });
      const comparison = compareCrossed({ rows, seed: 17, resamples });
      lines.push(
        `| ${arm} − ${baseline} | ${rows.length} × ${rows[0]!.tasks.length} | ${formatPoints(nested)} | ${formatPoints(comparison.crossed)} | ${comparison.tInterval ? formatPoints(comparison.tInterval) : 'n/a (one seed)'} | ${comparison.minimumDetectableEffect === undefined ? 'n/a' : (100 * comparison.minimumDetectableEffect).toFixed(1)} | ${comparison.seedGains.map(points).join(', ')} |`,
      );
    }
  }
}
console.log(lines.join('\n'));

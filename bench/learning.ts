/**
 * `pnpm bench learning [--preset default|smoke|study] [--steps N] [--seeds 1,2,3] [--only seal,grpo] [--out DIR] [--report-only]`
 *
 * The learning study of the loop issue: SEAL and vanilla GRPO with three RL
 * seeds each, every single-sided ablation (no-env, no-reweight, no-loop) and
 * Environment Tuning with one seed, and a frozen control (GRPO's loop at
 * learning rate 0, seed 1), all from the same cached warm start, on the same
 * generated tasks, at equal budget (steps × tasks × group size). `--only`
 * takes method names and `frozen`.
 *
 * Each run is a real `runTraining` run directory under `--out`
 * (default bench/out/learning); a finished run made with the same setup
 * (warm start, tasks, RL settings) is skipped on a rerun, so the study
 * resumes after an interruption, and one made with another setup runs again.
 * At the end it prints a markdown table of in-distribution and
 * out-of-distribution success per category (mean over seeds ± standard error;
 * for one seed, the binomial standard error over tasks) and writes learning
 * curves as SVG beside the runs.
 */
import { existsSync } from 'node:fs';
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { createBfclBackend, createGeneratorRuntime } from '@seal/bfcl';
import { embeddedPresets, embeddedTrainConfig, prepareEmbedded, warmStartKey } from '@seal/cli';
import { createOrtPolicy } from '@seal/engine-ort';
import { runTraining, type EvalEvent, type TrainMethod, type TrainStepEvent } from '@seal/rl';
import { createBfclVerifier } from '@seal/verifier';

const { values } = parseArgs({
  options: {
    preset: { type: 'string', default: 'default' },
    steps: { type: 'string' },
    seeds: { type: 'string', default: '1,2,3' },
    only: { type: 'string' },
    out: { type: 'string', default: 'bench/out/learning' },
    cache: { type: 'string', default: '.seal-cache' },
    /** Print the table and curves from the finished runs only; run nothing. */
    'report-only': { type: 'boolean', default: false },
  },
});
const presetName = values.preset === 'smoke' || values.preset === 'study' ? values.preset : 'default';
const preset = embeddedPresets[presetName];
const seeds = values.seeds.split(',').map(Number);
const outDirectory = resolve(values.out);
const steps = values.steps === undefined ? preset.rl.steps : Number(values.steps);

/**
 * A run of the study. `frozen` is the control: GRPO's loop at learning rate 0,
 * so its rollouts, verdicts and evaluations are those of the warm start on the
 * same task stream; the other runs' per-step success is read against it.
 */
type Run = { method: TrainMethod; seed: number; frozen?: boolean };
const label = (run: { method: TrainMethod; frozen?: boolean }): string => (run.frozen ? 'frozen' : run.method);
const plan: Run[] = [
  // First one run of every method (a study cut short still covers them all),
  // then the remaining SEAL and GRPO seeds, interleaved.
  ...(['seal', 'envtuning', 'grpo'] as const).map((method): Run => ({ method, seed: seeds[0]! })),
  ...(['no-env', 'no-reweight', 'no-loop'] as const).map((method): Run => ({ method, seed: seeds[0]! })),
  { method: 'grpo', seed: seeds[0]!, frozen: true } satisfies Run,
  ...seeds.slice(1).flatMap((seed) => (['seal', 'grpo'] as const).map((method): Run => ({ method, seed }))),
].filter((run) => values.only === undefined || values.only.split(',').includes(label(run)));

/**
 * What a finished run was made with: the warm start's cache key, the preset's
 * tasks and RL settings and the step count. A run made with another setup is
 * not mixed into the table; it is run again.
 */
const setup = `${warmStartKey(preset)}:${JSON.stringify({ tasks: preset.tasks, rl: preset.rl, steps })}`;

type RunResult = { method: TrainMethod; frozen?: boolean; seed: number; steps: TrainStepEvent[]; evaluations: EvalEvent[]; seconds: number; setup?: string };

const assets = await prepareEmbedded({
  preset,
  cacheDirectory: resolve(values.cache),
  onProgress: (progress) => {
    if (progress.type === 'phase') console.error(`  ${progress.phase}…`);
    else if (progress.step % 50 === 0) console.error(`  warm start ${progress.step}/${progress.steps} loss ${progress.loss.toFixed(3)}`);
  },
});
const runtime = createGeneratorRuntime();
const results: RunResult[] = [];
const studyStarted = Date.now();
for (const [index, run] of plan.entries()) {
  const { method, seed } = run;
  const name = `${label(run)}-s${seed}`;
  const runDirectory = join(outDirectory, name);
  const resultFile = join(runDirectory, 'result.json');
  if (existsSync(resultFile)) {
    const earlier = JSON.parse(await readFile(resultFile, 'utf8')) as RunResult;
    if (earlier.setup !== setup) {
      // A result made with another warm start or preset, or one that predates
      // recorded setups (so it cannot be checked), is not mixed into the table.
      const why = earlier.setup === undefined ? 'no recorded setup' : 'made with another warm start or preset';
      console.error(`[${index + 1}/${plan.length}] ${name}: ${why}; running it again`);
      await rm(runDirectory, { recursive: true, force: true });
    } else {
      results.push(earlier);
      console.error(`[${index + 1}/${plan.length}] ${name}: done earlier`);
      continue;
    }
  }
  if (values['report-only']) {
    console.error(`[${index + 1}/${plan.length}] ${name}: not run (--report-only)`);
    continue;
  }
  const started = Date.now();
  const policy = await createOrtPolicy({ model: { directory: assets.warmStartDirectory } });
  const referencePolicy = preset.rl.klCoef > 0 ? await createOrtPolicy({ model: { directory: assets.warmStartDirectory } }) : undefined;
  try {
    const config = embeddedTrainConfig({ preset, method, steps });
    const summary = await runTraining({
      // Same tasks and warm start for every run; the RL seed drives sampling and batch order.
      config: {
        ...config,
        ...(run.frozen ? { ppo: { ...config.ppo, learningRate: 0 } } : {}),
        seed,
        runId: `learning-${name}`,
        checkpointEvery: 4,
      },
      policy,
      ...(referencePolicy ? { referencePolicy } : {}),
      trainTasks: assets.trainTasks,
      evalSets: assets.evalSets,
      backend: createBfclBackend({ runtime }),
      verifier: createBfclVerifier({ runtime }),
      runDirectory,
      onProgress: (progress) => {
        if (progress.type === 'step-end') {
          const e = progress.event;
          console.error(`[${index + 1}/${plan.length}] ${name} step ${e.step}/${steps}: success ${(100 * e.successRate).toFixed(1)}% reward ${e.rewardMean.toFixed(3)} (${(e.timing.total / 1000).toFixed(1)} s)`);
        } else if (progress.type === 'eval-end') {
          console.error(`[${index + 1}/${plan.length}] ${name} eval step ${progress.step} ${progress.set}: ${(100 * progress.evaluation.accuracy).toFixed(1)}%`);
        }
      },
    });
    const result: RunResult = { method, ...(run.frozen ? { frozen: true } : {}), seed, steps: summary.steps, evaluations: summary.evaluations, seconds: (Date.now() - started) / 1000, setup };
    await writeFile(resultFile, `${JSON.stringify(result)}\n`);
    results.push(result);
  } finally {
    await Promise.all([policy.close(), referencePolicy?.close()]);
  }
}

// ---- The table -------------------------------------------------------------

const categories = ['multi_turn_base', 'multi_turn_miss_param', 'multi_turn_miss_func', 'multi_turn_long_context'];
const short = (category: string) => category.replace('multi_turn_', '');
const methods = [...new Set(results.map(label))];

function finalEval(result: RunResult, set: string): EvalEvent | undefined {
  return result.evaluations.filter((e) => e.set === set).at(-1);
}
function initialEval(result: RunResult, set: string): EvalEvent | undefined {
  return result.evaluations.find((e) => e.set === set && e.step === 0);
}
function meanAndError(values: number[], binomialN?: number): string {
  if (values.length === 0) return '–';
  const mean = values.reduce((a, b) => a + b, 0) / values.length;
  let error: number;
  if (values.length > 1) {
    const variance = values.reduce((sum, v) => sum + (v - mean) ** 2, 0) / (values.length - 1);
    error = Math.sqrt(variance / values.length);
  } else {
    error = binomialN ? Math.sqrt((mean * (1 - mean)) / binomialN) : 0;
  }
  return `${(100 * mean).toFixed(1)} ± ${(100 * error).toFixed(1)}`;
}

/** Share of evaluated turns the model got right (SEAL tags `pass` and `correct_abstention`). */
function turnPass(e: EvalEvent | undefined): number | undefined {
  if (!e) return undefined;
  const total = Object.values(e.tagCounts).reduce((a, b) => a + b, 0);
  return total === 0 ? undefined : ((e.tagCounts['pass'] ?? 0) + (e.tagCounts['correct_abstention'] ?? 0)) / total;
}
function turnTotal(e: EvalEvent | undefined): number | undefined {
  return e ? Object.values(e.tagCounts).reduce((a, b) => a + b, 0) : undefined;
}

const lines: string[] = [];
const header = ['method', 'seeds', ...['test-id', 'test-ood'].flatMap((set) => [...categories.map((c) => `${set === 'test-id' ? 'ID' : 'OOD'} ${short(c)}`), `${set === 'test-id' ? 'ID' : 'OOD'} overall`, `${set === 'test-id' ? 'ID' : 'OOD'} turns ok`])];
lines.push(`| ${header.join(' | ')} |`);
lines.push(`| ${header.map((_, i) => (i < 2 ? '---' : '---:')).join(' | ')} |`);
const reference = results[0];
if (reference) {
  const cells = ['warm start (step 0)', '–'];
  for (const set of ['test-id', 'test-ood']) {
    const e = initialEval(reference, set);
    for (const c of categories) cells.push(meanAndError(e?.categories[c] ? [e.categories[c].accuracy] : [], e?.categories[c]?.totalCount));
    cells.push(meanAndError(e ? [e.accuracy] : [], e ? Object.values(e.categories).reduce((a, b) => a + b.totalCount, 0) : undefined));
    const pass = turnPass(e);
    cells.push(meanAndError(pass === undefined ? [] : [pass], turnTotal(e)));
  }
  lines.push(`| ${cells.join(' | ')} |`);
}
for (const method of methods) {
  const runs = results.filter((r) => label(r) === method);
  const cells = [method, String(runs.length)];
  for (const set of ['test-id', 'test-ood']) {
    const finals = runs.map((r) => finalEval(r, set)).filter((e): e is EvalEvent => e !== undefined);
    for (const c of categories) {
      const values = finals.flatMap((e) => (e.categories[c] ? [e.categories[c].accuracy] : []));
      cells.push(meanAndError(values, finals[0]?.categories[c]?.totalCount));
    }
    cells.push(meanAndError(finals.map((e) => e.accuracy), finals[0] ? Object.values(finals[0].categories).reduce((a, b) => a + b.totalCount, 0) : undefined));
    cells.push(meanAndError(finals.flatMap((e) => { const p = turnPass(e); return p === undefined ? [] : [p]; }), turnTotal(finals[0])));
  }
  lines.push(`| ${cells.join(' | ')} |`);
}
const budget = `${steps} steps × ${preset.rl.tasksPerStep} tasks × ${preset.rl.groupSize} rollouts`;
const evalSizes = assets.evalSets.map((set) => `${set.name} ${set.tasks.length}`).join(', ');
console.log(`\nbench learning: preset ${preset.name}, budget ${budget} per run, eval sets ${evalSizes}, ${((Date.now() - studyStarted) / 60000).toFixed(1)} min this invocation`);
console.log('Task success (%) on the untouched interface after the last step, per category and overall, and the share of turns done right (SEAL tags pass + correct_abstention); mean ± standard error over seeds (one seed: binomial over tasks or turns).\n');
console.log(lines.join('\n'));

// ---- Curves (SVG) ---------------------------------------------------------

const palette: Record<string, string> = {
  seal: '#1b6ac9',
  grpo: '#d1495b',
  'no-env': '#66a182',
  'no-reweight': '#edae49',
  'no-loop': '#8d6a9f',
  envtuning: '#444444',
};

function curveSvg({ title, series }: { title: string; series: { name: string; points: [number, number][] }[] }): string {
  const width = 640;
  const height = 360;
  const m = { left: 56, right: 150, top: 36, bottom: 44 };
  const maxX = Math.max(1, ...series.flatMap((s) => s.points.map(([x]) => x)));
  const maxY = Math.max(0.05, ...series.flatMap((s) => s.points.map(([, y]) => y)));
  const top = Math.min(1, Math.ceil(maxY * 10) / 10);
  const x = (v: number) => m.left + (v / maxX) * (width - m.left - m.right);
  const y = (v: number) => height - m.bottom - (v / top) * (height - m.top - m.bottom);
  const parts: string[] = [];
  parts.push(`<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" font-family="sans-serif" font-size="12">`);
  parts.push(`<rect width="${width}" height="${height}" fill="white"/>`);
  parts.push(`<text x="${m.left}" y="20" font-size="14" font-weight="bold">${title}</text>`);
  for (let i = 0; i <= 5; i++) {
    const v = (top * i) / 5;
    parts.push(`<line x1="${m.left}" x2="${width - m.right}" y1="${y(v)}" y2="${y(v)}" stroke="#e5e5e5"/>`);
    parts.push(`<text x="${m.left - 6}" y="${y(v) + 4}" text-anchor="end">${(100 * v).toFixed(0)}%</text>`);
  }
  for (let i = 0; i <= 4; i++) {
    const v = Math.round((maxX * i) / 4);
    parts.push(`<text x="${x(v)}" y="${height - m.bottom + 16}" text-anchor="middle">${v}</text>`);
  }
  parts.push(`<text x="${(m.left + width - m.right) / 2}" y="${height - 8}" text-anchor="middle">RL step</text>`);
  parts.push(`<line x1="${m.left}" x2="${m.left}" y1="${m.top}" y2="${height - m.bottom}" stroke="#888"/>`);
  parts.push(`<line x1="${m.left}" x2="${width - m.right}" y1="${height - m.bottom}" y2="${height - m.bottom}" stroke="#888"/>`);
  series.forEach((s, i) => {
    const color = palette[s.name] ?? '#999';
    const d = s.points.map(([px, py], k) => `${k === 0 ? 'M' : 'L'}${x(px).toFixed(1)},${y(py).toFixed(1)}`).join(' ');
    parts.push(`<path d="${d}" fill="none" stroke="${color}" stroke-width="2"/>`);
    for (const [px, py] of s.points) parts.push(`<circle cx="${x(px).toFixed(1)}" cy="${y(py).toFixed(1)}" r="2.5" fill="${color}"/>`);
    parts.push(`<rect x="${width - m.right + 12}" y="${m.top + i * 18 - 9}" width="12" height="3" fill="${color}"/>`);
    parts.push(`<text x="${width - m.right + 30}" y="${m.top + i * 18 - 4}">${s.name}</text>`);
  });
  parts.push('</svg>');
  return `${parts.join('\n')}\n`;
}

function meanSeries(method: string, pick: (result: RunResult) => [number, number][]): [number, number][] {
  const runs = results.filter((r) => label(r) === method).map(pick);
  const byX = new Map<number, number[]>();
  for (const points of runs) for (const [px, py] of points) byX.set(px, [...(byX.get(px) ?? []), py]);
  return [...byX.entries()].sort((a, b) => a[0] - b[0]).map(([px, ys]) => [px, ys.reduce((a, b) => a + b, 0) / ys.length]);
}

await mkdir(outDirectory, { recursive: true });
const svgFiles: string[] = [];
for (const set of ['test-id', 'test-ood']) {
  const file = join(outDirectory, `curve-${set}.svg`);
  await writeFile(
    file,
    curveSvg({
      title: `Evaluation success, ${set} (mean over seeds)`,
      series: methods.map((method) => ({ name: method, points: meanSeries(method, (r) => r.evaluations.filter((e) => e.set === set).map((e) => [e.step, e.accuracy])) })),
    }),
  );
  svgFiles.push(file);
}
const window = 4;
const trainFile = join(outDirectory, 'curve-train.svg');
await writeFile(
  trainFile,
  curveSvg({
    title: `Training success (moving mean of ${window} steps, mean over seeds)`,
    series: methods.map((method) => ({
      name: method,
      points: meanSeries(method, (r) =>
        r.steps.map((e, i) => {
          const slice = r.steps.slice(Math.max(0, i - window + 1), i + 1);
          return [e.step, slice.reduce((a, b) => a + b.successRate, 0) / slice.length];
        }),
      ),
    })),
  }),
);
svgFiles.push(trainFile);
const rewardFile = join(outDirectory, 'curve-train-reward.svg');
await writeFile(
  rewardFile,
  curveSvg({
    title: `Training reward (each method's own; moving mean of ${window} steps)`,
    series: methods.map((method) => ({
      name: method,
      points: meanSeries(method, (r) =>
        r.steps.map((e, i) => {
          const slice = r.steps.slice(Math.max(0, i - window + 1), i + 1);
          return [e.step, slice.reduce((a, b) => a + b.rewardMean, 0) / slice.length];
        }),
      ),
    })),
  }),
);
svgFiles.push(rewardFile);
console.log(`\ncurves: ${svgFiles.join(', ')}`);

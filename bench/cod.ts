/**
 * `pnpm bench cod [--seeds 1,2,3] [--steps N] [--eval-packs N] [--eval-pack-size 8] [--eval-runs 4] [--ralph-packs N] [--out DIR] [--report-only]`
 *
 * The Connect the Dots measurement of issue 18 (item 5) on the embedded
 * FrozenLake-Obscure packs: from the embedded CoD warm start (`seal train
 * --method cod --preset embedded`, compact prompts), per seed one CoD run and
 * one control run that trains GRPO on the same tasks one by one
 * (`--one-by-one`), one training process at a time. Every evaluation runs the
 * CoD loop on the same evaluation packs (pack size 8, temperature 1, each
 * pack run --eval-runs times, sampled together): before training (the warm start, shared by both arms of a seed),
 * after CoD, after the control. Then the Ralph loop (`seal eval --ralph`: each
 * pack's first task repeated) for the three models.
 *
 * The statistic of a pack is success at position 4 minus success at
 * position 1, averaged over its runs (Δ4−1 ∈ [−1, 1]). The table gives its mean per model, and the
 * paired differences CoD − before, CoD − control and control − before with
 * two-stage paired bootstrap 95% intervals (seeds, then the packs each seed
 * drew: `clusteredPairedBootstrap` of @seal/rl) and the t-interval over the
 * per-seed gains beside them; the same for the Ralph loop. Run directories live under
 * --out and resume after a kill; a finished one is reused.
 */
import { copyFileSync, existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { runCli } from '@seal/cli';
import {
  clusteredPairedBootstrap,
  formatPoints,
  seedTInterval,
} from '@seal/rl';
import {
  SealError,
  codRunConfigSchema,
  packRunRecordSchema,
  parseJsonLines,
  parseJsonWithSchema,
  runDirectoryLayout,
  type PackRunRecord,
} from '@seal/spec';

const { values } = parseArgs({
  options: {
    seeds: { type: 'string', default: '1,2,3' },
    steps: { type: 'string', default: '10' },
    'eval-packs': { type: 'string', default: '24' },
    'eval-pack-size': { type: 'string', default: '8' },
    /** Runs of each evaluation pack, sampled together (Δ is averaged over them: the cell stays the pack). */
    'eval-runs': { type: 'string', default: '4' },
    'ralph-packs': { type: 'string', default: '16' },
    out: { type: 'string', default: 'bench/out/cod' },
    cache: { type: 'string', default: '.seal-cache' },
    /** Print the table from the finished runs only; run nothing. */
    'report-only': { type: 'boolean', default: false },
  },
});
const seeds = values.seeds.split(',').map(Number);
const count = (name: string, value: string, min: number) => {
  const number = Number(value);
  if (!Number.isInteger(number) || number < min)
    throw new SealError({
      code: 'INVALID_ARGUMENT',
      message: `--${name} must be a whole number ≥ ${min}, got ${value}`,
    });
  return number;
};
if (seeds.some((seed) => !Number.isInteger(seed) || seed < 0))
  throw new SealError({
    code: 'INVALID_ARGUMENT',
    message: `--seeds must list whole numbers ≥ 0, got ${values.seeds}`,
  });
const steps = count('steps', values.steps, 1);
const evalPacks = count('eval-packs', values['eval-packs'], 1);
const evalPackSize = count('eval-pack-size', values['eval-pack-size'], 4);
const evalRuns = count('eval-runs', values['eval-runs'], 1);
const ralphPacks = count('ralph-packs', values['ralph-packs'], 0);
const out = resolve(values.out);
const stepName = (step: number) => String(step).padStart(6, '0');
const arms = ['cod', 'one-by-one'] as const;
type Model = 'before' | (typeof arms)[number];
const models: readonly Model[] = ['before', ...arms];

async function cli(argv: string[]): Promise<void> {
  console.log(`\n$ seal ${argv.join(' ')}`);
  const code = await runCli(argv);
  if (code !== 0)
    throw new SealError({
      code: 'INTERNAL',
      message: `seal ${argv.join(' ')} exited with ${code}`,
    });
}

function readRecords(file: string): PackRunRecord[] {
  if (!existsSync(file)) return [];
  return parseJsonLines({
    text: readFileSync(file, 'utf8'),
    source: file,
    schema: packRunRecordSchema,
  });
}

const runDirectory = (seed: number, arm: (typeof arms)[number]) =>
  join(out, `s${seed}-${arm}`);
const evalFile = (seed: number, model: Model) =>
  model === 'before'
    ? join(
        runDirectory(seed, 'cod'),
        runDirectoryLayout.packs,
        'eval-000000.jsonl',
      )
    : join(
        runDirectory(seed, model),
        runDirectoryLayout.packs,
        `eval-${stepName(steps)}.jsonl`,
      );
const ralphFile = (seed: number, model: Model) =>
  join(out, `s${seed}-${model}-ralph.jsonl`);

if (!values['report-only']) {
  mkdirSync(out, { recursive: true });
  for (const seed of seeds) {
    for (const arm of arms) {
      const directory = runDirectory(seed, arm);
      if (existsSync(evalFile(seed, arm))) {
        const done = readRecords(evalFile(seed, arm));
        if (done.length === evalPacks * evalRuns) continue;
      }
      // Both arms start from the same warm start and evaluate it on the same packs with the same seed: the control reuses the CoD arm's evaluation before training.
      if (arm !== 'cod' && existsSync(evalFile(seed, 'before'))) {
        mkdirSync(join(directory, runDirectoryLayout.packs), {
          recursive: true,
        });
        const target = join(
          directory,
          runDirectoryLayout.packs,
          'eval-000000.jsonl',
        );
        if (!existsSync(target)) copyFileSync(evalFile(seed, 'before'), target);
      }
      await cli([
        'train',
        '--method',
        'cod',
        '--preset',
        'embedded',
        '--seed',
        String(seed),
        '--steps',
        String(steps),
        '--eval-packs',
        String(evalPacks),
        '--eval-pack-size',
        String(evalPackSize),
        '--eval-runs',
        String(evalRuns),
        '--run-dir',
        directory,
        '--cache',
        values.cache,
        ...(arm === 'one-by-one' ? ['--one-by-one'] : []),
      ]);
    }
    if (ralphPacks > 0) {
      const configPath = join(
        runDirectory(seed, 'cod'),
        runDirectoryLayout.config,
      );
      const warmStart = parseJsonWithSchema({
        text: readFileSync(configPath, 'utf8'),
        schema: codRunConfigSchema,
        source: configPath,
      }).initialModel;
      for (const model of models) {
        const modelDirectory =
          model === 'before'
            ? warmStart
            : join(
                runDirectory(seed, model),
                'checkpoints',
                `step-${stepName(steps)}`,
              );
        await cli([
          'eval',
          '--packs',
          String(ralphPacks),
          '--pack-size',
          String(evalPackSize),
          '--runs',
          String(evalRuns),
          '--ralph',
          '--format',
          'compact',
          '--model',
          modelDirectory,
          // The compact format's token budgets (32 per move, 240 per update) are `seal eval`'s defaults.
          '--seed',
          String(seed),
          '--out',
          ralphFile(seed, model),
        ]);
      }
    }
  }
}

/** Δ4−1 per pack, averaged over the pack's runs, keyed `seed/packId`. */
function deltas(
  records: readonly PackRunRecord[],
  seed: number,
): Map<string, number> {
  const sums = new Map<string, [number, number]>();
  for (const record of records) {
    const at = (position: number) => (record.solves[position]?.success ? 1 : 0);
    const entry = sums.get(`${seed}/${record.packId}`) ?? [0, 0];
    entry[0] += at(3) - at(0);
    entry[1] += 1;
    sums.set(`${seed}/${record.packId}`, entry);
  }
  return new Map([...sums].map(([key, [sum, runs]]) => [key, sum / runs]));
}

function table(
  label: string,
  file: (seed: number, model: Model) => string,
): void {
  const perModel = new Map<Model, Map<string, number>>();
  const positions = new Map<Model, number[][]>();
  const parsed = new Map<Model, [number, number]>();
  const facts = new Map<Model, [number, number]>();
  /** Solves after the first, by how many directions their hints state rightly (0–1, 2–4): [successes, solves]. */
  const byRight = new Map<Model, [[number, number], [number, number]]>();
  for (const model of models) {
    const all = new Map<string, number>();
    const curve: number[][] = [];
    let ok = 0;
    let updates = 0;
    let right = 0;
    let stated = 0;
    const strata: [[number, number], [number, number]] = [
      [0, 0],
      [0, 0],
    ];
    for (const seed of seeds) {
      const records = readRecords(file(seed, model));
      for (const [key, value] of deltas(records, seed)) all.set(key, value);
      for (const record of records) {
        for (const solve of record.solves)
          (curve[solve.position] ??= []).push(solve.success ? 1 : 0);
        // The pack's mapping as the record states it ('Direction 1 = left, …'), against what the hints claim.
        const truth = new Map(
          [...record.regularity.matchAll(/Direction ([1-4]) = (\w+)/g)].map(
            (match) => [match[1], match[2]],
          ),
        );
        for (const solve of record.solves.slice(1)) {
          const correct = [
            ...solve.hints.matchAll(/Direction ([1-4]) = (\w+)/g),
          ].filter((match) => truth.get(match[1]) === match[2]).length;
          const stratum = strata[correct >= 2 ? 1 : 0];
          stratum[0] += solve.success ? 1 : 0;
          stratum[1] += 1;
        }
        for (const update of record.updates) {
          updates++;
          if (update.parsed) ok++;
          for (const match of update.hints.matchAll(
            /Direction ([1-4]) = (\w+)/g,
          )) {
            stated++;
            if (truth.get(match[1]) === match[2]) right++;
          }
        }
      }
    }
    perModel.set(model, all);
    positions.set(model, curve);
    parsed.set(model, [ok, updates]);
    facts.set(model, [right, stated]);
    byRight.set(model, strata);
  }
  const mean = (list: readonly number[]) =>
    list.length === 0
      ? Number.NaN
      : list.reduce((a, b) => a + b, 0) / list.length;
  console.log(
    `\n${label}: success by pack position (mean over seeds ${seeds.join(',')}; pack runs per position in brackets)`,
  );
  for (const model of models) {
    const curve = positions.get(model)!;
    const [ok, updates] = parsed.get(model)!;
    const [right, stated] = facts.get(model)!;
    const [few, many] = byRight.get(model)!;
    console.log(
      `  ${model.padEnd(10)} ${curve.map((list) => mean(list).toFixed(2)).join(' ')}  [${curve[0]?.length ?? 0}]  Δ4−1 ${mean([...perModel.get(model)!.values()]).toFixed(3)}  hints parsed ${ok}/${updates}, stated directions right ${right}/${stated}; success at positions 2+ with 0–1 right ${few[0]}/${few[1]}, with 2–4 right ${many[0]}/${many[1]}`,
    );
  }
  const compare = (after: Model, before: Model) => {
    const a = perModel.get(after)!;
    const b = perModel.get(before)!;
    const keys = [...a.keys()].filter((key) => b.has(key)).sort();
    if (keys.length === 0) return;
    // Each seed draws its own packs (train --seed), so the design is nested:
    // resample the seeds, then the packs within each (the cells of one seed
    // share its training run and are not independent).
    const bySeed = new Map<string, { before: number[]; after: number[] }>();
    for (const key of keys) {
      const seed = key.slice(0, key.indexOf('/'));
      const cluster = bySeed.get(seed) ?? { before: [], after: [] };
      cluster.before.push(b.get(key)!);
      cluster.after.push(a.get(key)!);
      bySeed.set(seed, cluster);
    }
    const clusters = [...bySeed.values()];
    const estimate = clusteredPairedBootstrap({ clusters, seed: 18 });
    const gains = clusters.map(
      (cluster) =>
        cluster.after.reduce((sum, x, i) => sum + x - cluster.before[i]!, 0) /
        cluster.after.length,
    );
    const t =
      gains.length < 2
        ? 't over seeds n/a (one seed)'
        : `t over ${gains.length} seeds ${formatPoints(seedTInterval({ gains }))}`;
    console.log(
      `  Δ4−1 ${after} − ${before}: ${formatPoints(estimate)} points (95% two-stage bootstrap, seeds then packs, ${estimate.n} cells; ${t})`,
    );
  };
  compare('cod', 'before');
  compare('cod', 'one-by-one');
  compare('one-by-one', 'before');
}

table(
  `CoD packs (pack size ${evalPackSize}, ${evalPacks} packs per seed)`,
  evalFile,
);
if (ralphPacks > 0)
  table(
    `Ralph loop (each pack's first task ${evalPackSize} times, ${ralphPacks} packs per seed)`,
    ralphFile,
  );

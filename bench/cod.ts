/**
 * `pnpm bench cod [--preset literal|embedded] [--seeds 1,2,3] [--steps 5]
 *   [--eval-packs 16] [--eval-pack-size 4] [--eval-runs 4] [--eval-seed 1]
 *   [--ralph-packs 8] [--out DIR] [--cache DIR] [--report-only]`
 *
 * The Connect the Dots measurement (issues 18 and 47): from the preset's warm
 * start (`literal` by default: FrozenLake-Obscure whose observations name the
 * real move, the setting that passes `seal cod readiness`, decision 0041;
 * `embedded`: the positions-only setting of decision 0024), per seed one CoD
 * run and one control run that trains GRPO on the same tasks one by one
 * (`--one-by-one`) at the same budget (steps, packs per step, group size,
 * learning rate), one training process at a time, without in-training
 * evaluations. Then every model is evaluated with `seal eval --packs` on the
 * same evaluation packs (drawn from --eval-seed, the same for every seed: a
 * crossed seeds × packs design) with the same sampling seed, each pack run
 * --eval-runs times: the warm start once (it is the same model for every
 * seed), and the two arms of every seed. Then the Ralph loop (`--ralph`:
 * each pack's first task repeated) likewise on --ralph-packs packs.
 *
 * The statistic of a pack is success at position 4 minus success at position
 * 1, averaged over its runs (Δ4−1 ∈ [−1, 1]). Printed: each model's success
 * by position with crossed two-way bootstrap 95% intervals (seeds and packs
 * resampled independently, `crossedPairedBootstrap` of @seal/rl); each
 * model's Δ4−1 and the paired differences CoD − before, CoD − one-by-one and
 * one-by-one − before, each with the two-way interval, the t-interval over
 * per-seed gains and the minimum detectable effect (power 0.8, α 0.05) from
 * the two-way standard error (`compareCrossed`); the readiness of each
 * model's update responses; the same for the Ralph loop. `summary.json` in
 * --out holds the figures, and `cod-arms.json` in each seed's CoD run
 * directory the curves with their intervals, which `seal report` draws
 * (`packages/report`, `cod-arms.ts`). Run directories and evaluation files live
 * under --out and resume after a kill; finished ones are reused.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { runCli } from '@seal/cli';
import {
  codPresets,
  prepareCodEmbeddedModel,
  type CodEnvironmentName,
} from '@seal/embedded';
import { codArmsFileName, codArmsSchema } from '@seal/report';
import {
  compareCrossed,
  crossedPairedBootstrap,
  formatCrossedComparison,
  type CrossedComparison,
  type SeedRow,
} from '@seal/rl';
import {
  SealError,
  packRunRecordSchema,
  parseJsonLines,
  parseJsonWithSchema,
  type PackRunRecord,
} from '@seal/spec';
import * as z from 'zod';
import { benchFlags } from './_args';

const flags = benchFlags(
  [
    'preset',
    'seeds',
    'steps',
    'eval-packs',
    'eval-pack-size',
    'eval-runs',
    'eval-seed',
    'ralph-packs',
    'out',
    'cache',
  ],
  ['report-only'],
);
const preset = flags.value('preset') ?? 'literal';
if (preset !== 'literal' && preset !== 'embedded')
  throw new SealError({
    code: 'INVALID_ARGUMENT',
    message: `--preset must be literal or embedded, got ${preset}`,
  });
const env: CodEnvironmentName =
  preset === 'literal' ? 'frozen-lake-literal' : 'frozen-lake';
type NumberFlag =
  | 'steps'
  | 'eval-packs'
  | 'eval-pack-size'
  | 'eval-runs'
  | 'eval-seed'
  | 'ralph-packs';
const count = (name: NumberFlag, fallback: string, min: number) => {
  const value = flags.value(name) ?? fallback;
  const number = Number(value);
  if (!Number.isInteger(number) || number < min)
    throw new SealError({
      code: 'INVALID_ARGUMENT',
      message: `--${name} must be a whole number ≥ ${min}, got ${value}`,
    });
  return number;
};
const seedsText = flags.value('seeds') ?? '1,2,3';
const seeds = seedsText.split(',').map(Number);
if (
  seeds.length === 0 ||
  seeds.some((seed) => !Number.isInteger(seed) || seed < 0) ||
  new Set(seeds).size !== seeds.length
)
  throw new SealError({
    code: 'INVALID_ARGUMENT',
    message: `--seeds must list distinct whole numbers ≥ 0, got ${seedsText}`,
  });
const steps = count('steps', '5', 1);
const evalPacks = count('eval-packs', '16', 2);
const evalPackSize = count('eval-pack-size', '4', 4);
const evalRuns = count('eval-runs', '4', 1);
const evalSeed = count('eval-seed', '1', 0);
const ralphPacks = count('ralph-packs', '8', 0);
const out = resolve(flags.value('out') ?? `bench/out/cod-${preset}`);
const cache = resolve(flags.value('cache') ?? '.seal-cache');
const budget = codPresets[preset];
const stepName = (step: number) => String(step).padStart(6, '0');

const arms = ['cod', 'one-by-one'] as const;
type Arm = (typeof arms)[number];
type Model = 'before' | Arm;
const models: readonly Model[] = ['before', ...arms];
type Loop = 'cod' | 'ralph';

async function cli(argv: string[]): Promise<void> {
  console.log(`\n$ seal ${argv.join(' ')}`);
  const code = await runCli(argv);
  if (code !== 0)
    throw new SealError({
      code: 'INTERNAL',
      message: `seal ${argv.join(' ')} exited with ${code}`,
    });
}

/** Readiness counts of some pack-run files, pooled (`seal cod readiness --records`, one file at a time). */
type Readiness = {
  restated: number;
  claims: number;
  chanceRestated: number;
  chanceClaims: number;
};

const readinessResultSchema = z.object({
  readiness: z.object({
    measured: z.object({ restated: z.number(), claims: z.number() }),
    chance: z.object({ restated: z.number(), claims: z.number() }).nullable(),
  }),
});

async function readinessOf(files: readonly string[]): Promise<Readiness> {
  const total: Readiness = {
    restated: 0,
    claims: 0,
    chanceRestated: 0,
    chanceClaims: 0,
  };
  for (const file of files) {
    // The command's --json result is its one stdout write: caught here, not printed.
    const chunks: string[] = [];
    const write = process.stdout.write.bind(process.stdout);
    process.stdout.write = ((chunk: string | Uint8Array) => {
      chunks.push(String(chunk));
      return true;
    }) as typeof process.stdout.write;
    try {
      await runCli([
        'cod',
        'readiness',
        '--records',
        file,
        '--format',
        'compact',
        '--seed',
        String(evalSeed),
        '--json',
      ]);
    } finally {
      process.stdout.write = write;
    }
    const { readiness } = parseJsonWithSchema({
      text: chunks.join(''),
      schema: readinessResultSchema,
      source: `seal cod readiness --records ${file}`,
    });
    total.restated += readiness.measured.restated;
    total.claims += readiness.measured.claims;
    total.chanceRestated += readiness.chance?.restated ?? 0;
    total.chanceClaims += readiness.chance?.claims ?? 0;
  }
  return total;
}

function readRecords(file: string): PackRunRecord[] {
  if (!existsSync(file)) return [];
  return parseJsonLines({
    text: readFileSync(file, 'utf8'),
    source: file,
    schema: packRunRecordSchema,
  });
}

const runDirectory = (seed: number, arm: Arm) => join(out, `s${seed}-${arm}`);
const checkpoint = (seed: number, arm: Arm) =>
  join(runDirectory(seed, arm), 'checkpoints', `step-${stepName(steps)}`);
/** The evaluation file of a model; the warm start has one (`seed` undefined), shared by every seed's row. */
const evalFile = (loop: Loop, model: Model, seed?: number) =>
  join(
    out,
    model === 'before'
      ? `${loop}-before.jsonl`
      : `${loop}-s${seed}-${model}.jsonl`,
  );

async function evaluate(
  loop: Loop,
  modelDirectory: string,
  file: string,
): Promise<void> {
  const packs = loop === 'cod' ? evalPacks : ralphPacks;
  if (readRecords(file).length === packs * evalRuns) return;
  await cli([
    'eval',
    '--packs',
    String(packs),
    '--pack-size',
    String(evalPackSize),
    '--runs',
    String(evalRuns),
    ...(loop === 'ralph' ? ['--ralph'] : []),
    '--env',
    env,
    '--format',
    'compact',
    '--max-tokens',
    String(budget.maxTokens),
    '--update-max-tokens',
    String(budget.updateMaxTokens),
    '--model',
    modelDirectory,
    '--seed',
    String(evalSeed),
    '--out',
    file,
  ]);
}

const started = performance.now();
if (!flags.has('report-only')) {
  mkdirSync(out, { recursive: true });
  const warmStart = (
    await prepareCodEmbeddedModel({
      cacheDirectory: cache,
      setting: preset === 'literal' ? 'literal' : 'positions',
      onProgress: (line) => console.log(line),
    })
  ).directory;
  await evaluate('cod', warmStart, evalFile('cod', 'before'));
  if (ralphPacks > 0)
    await evaluate('ralph', warmStart, evalFile('ralph', 'before'));
  for (const seed of seeds) {
    for (const arm of arms) {
      if (!existsSync(join(checkpoint(seed, arm), 'model.safetensors')))
        await cli([
          'train',
          '--method',
          'cod',
          '--preset',
          preset,
          '--seed',
          String(seed),
          '--steps',
          String(steps),
          '--eval-packs',
          '0',
          '--run-dir',
          runDirectory(seed, arm),
          '--cache',
          cache,
          ...(arm === 'one-by-one' ? ['--one-by-one'] : []),
        ]);
      await evaluate('cod', checkpoint(seed, arm), evalFile('cod', arm, seed));
      if (ralphPacks > 0)
        await evaluate(
          'ralph',
          checkpoint(seed, arm),
          evalFile('ralph', arm, seed),
        );
    }
  }
}

/** Per pack (in pack order): the mean success of its runs at each position. */
function packCells(records: readonly PackRunRecord[]): {
  packIds: string[];
  byPosition: number[][];
} {
  const byPack = new Map<string, { index: number; runs: PackRunRecord[] }>();
  for (const record of records) {
    const entry = byPack.get(record.packId) ?? {
      index: record.packIndex,
      runs: [],
    };
    entry.runs.push(record);
    byPack.set(record.packId, entry);
  }
  const packs = [...byPack].sort(([, a], [, b]) => a.index - b.index);
  const positions = Math.max(0, ...records.map((r) => r.solves.length));
  return {
    packIds: packs.map(([id]) => id),
    byPosition: Array.from({ length: positions }, (_, position) =>
      packs.map(
        ([, { runs }]) =>
          runs.reduce(
            (sum, run) => sum + (run.solves[position]?.success ? 1 : 0),
            0,
          ) / runs.length,
      ),
    ),
  };
}

/** An arm's rows: one per seed (the warm start: one row, its single evaluation). */
type ArmData = {
  model: Model;
  /** Per row (seed): per position, per pack. */
  rows: number[][][];
  records: PackRunRecord[];
  files: string[];
};

function readArm(loop: Loop, model: Model): ArmData | undefined {
  const files =
    model === 'before'
      ? [evalFile(loop, model)]
      : seeds.map((seed) => evalFile(loop, model, seed));
  const rows: number[][][] = [];
  const records: PackRunRecord[] = [];
  let packIds: string[] | undefined;
  for (const file of files) {
    const list = readRecords(file);
    if (list.length === 0) return undefined;
    const cells = packCells(list);
    if (packIds !== undefined && packIds.join() !== cells.packIds.join())
      throw new SealError({
        code: 'INVALID_STATE',
        message: `${file} holds other packs than the first evaluation of ${model}: the crossed design needs the same packs in every row`,
      });
    packIds = cells.packIds;
    rows.push(cells.byPosition);
    records.push(...list);
  }
  return { model, rows, records, files };
}

const zeros = (length: number) => Array.from({ length }, () => 0);
const points = (value: number) =>
  `${value >= 0 ? '+' : ''}${(100 * value).toFixed(1)}`;

/** Success at a position: the mean over rows and packs, with the crossed two-way interval. */
function positionInterval(arm: ArmData, position: number) {
  const rows: SeedRow[] = arm.rows.map((row) => ({
    before: zeros(row[position]!.length),
    after: row[position]!,
  }));
  const estimate = crossedPairedBootstrap({ rows, seed: 47 });
  return {
    position: position + 1,
    mean: estimate.mean,
    low: estimate.low,
    high: estimate.high,
  };
}

/** Δ4−1 per pack of one row. */
const deltaRow = (row: number[][]) => row[3]!.map((s4, i) => s4 - row[0]![i]!);

type Comparison = {
  label: string;
  comparison: CrossedComparison;
};

async function summarise(loop: Loop, title: string) {
  const data = models
    .map((model) => readArm(loop, model))
    .filter((arm): arm is ArmData => arm !== undefined);
  if (data.length === 0) return undefined;
  console.log(`\n${title}`);
  const curves: {
    model: Model;
    rows: number;
    packs: number;
    curve: ReturnType<typeof positionInterval>[];
    delta: CrossedComparison;
    readiness: Readiness;
    stated: { right: number; stated: number };
    parsed: { parsed: number; updates: number };
  }[] = [];
  for (const arm of data) {
    const positions = arm.rows[0]!.length;
    const curve = Array.from({ length: positions }, (_, p) =>
      positionInterval(arm, p),
    );
    // Δ4−1 of the model itself: position 4 against position 1, paired within each pack.
    const delta = compareCrossed({
      rows: arm.rows.map((row) => ({ before: row[0]!, after: row[3]! })),
      seed: 41,
    });
    const readiness = await readinessOf(arm.files);
    let right = 0;
    let stated = 0;
    let parsedCount = 0;
    let updates = 0;
    for (const record of arm.records) {
      const truth = new Map(
        [...record.regularity.matchAll(/Direction ([1-4]) = (\w+)/g)].map(
          (m) => [m[1], m[2]],
        ),
      );
      for (const update of record.updates) {
        updates++;
        if (update.parsed) parsedCount++;
        for (const m of update.hints.matchAll(/Direction ([1-4]) = (\w+)/g)) {
          stated++;
          if (truth.get(m[1]) === m[2]) right++;
        }
      }
    }
    curves.push({
      model: arm.model,
      rows: arm.rows.length,
      packs: arm.rows[0]![0]!.length,
      curve,
      delta,
      readiness,
      stated: { right, stated },
      parsed: { parsed: parsedCount, updates },
    });
    const fraction =
      readiness.claims === 0 ? null : readiness.restated / readiness.claims;
    console.log(
      `  ${arm.model.padEnd(10)} success by position ${curve.map((c) => `${(100 * c.mean).toFixed(0)}% [${(100 * c.low).toFixed(0)}, ${(100 * c.high).toFixed(0)}]`).join('  ')}`,
    );
    console.log(
      `  ${''.padEnd(10)} Δ4−1 ${formatCrossedComparison(delta)} (${arm.rows.length} row${arm.rows.length === 1 ? '' : 's'} × ${arm.rows[0]![0]!.length} packs × ${evalRuns} runs); hints parsed ${parsedCount}/${updates}; hint directions right ${right}/${stated}; readiness restated ${readiness.restated}/${readiness.claims}${fraction === null ? '' : ` = ${(100 * fraction).toFixed(1)}%`}, chance ${readiness.chanceRestated}/${readiness.chanceClaims}`,
    );
  }
  const byModel = new Map(data.map((arm) => [arm.model, arm]));
  const comparisons: Comparison[] = [];
  const compare = (after: Model, before: Model) => {
    const a = byModel.get(after);
    const b = byModel.get(before);
    if (a === undefined || b === undefined) return;
    // The warm start's single row stands in every seed's row (the same model on the same packs).
    const rows: SeedRow[] = a.rows.map((row, i) => ({
      before: deltaRow(b.rows[Math.min(i, b.rows.length - 1)]!),
      after: deltaRow(row),
    }));
    const comparison = compareCrossed({ rows, seed: 18 });
    comparisons.push({ label: `${after} − ${before}`, comparison });
    console.log(
      `  Δ4−1 ${after} − ${before}: ${formatCrossedComparison(comparison)} (points; per-seed gains ${comparison.seedGains.map(points).join(', ')})`,
    );
  };
  compare('cod', 'before');
  compare('cod', 'one-by-one');
  compare('one-by-one', 'before');
  return {
    arms: curves.map((arm) => ({
      model: arm.model,
      rows: arm.rows,
      packs: arm.packs,
      curve: arm.curve,
      delta: {
        mean: arm.delta.crossed.mean,
        low: arm.delta.crossed.low,
        high: arm.delta.crossed.high,
        t: arm.delta.tInterval
          ? { low: arm.delta.tInterval.low, high: arm.delta.tInterval.high }
          : null,
        mde: arm.delta.minimumDetectableEffect ?? null,
      },
      readiness: arm.readiness,
      hintDirections: arm.stated,
      hintsParsed: arm.parsed,
    })),
    comparisons: comparisons.map(({ label, comparison }) => ({
      label,
      mean: comparison.crossed.mean,
      low: comparison.crossed.low,
      high: comparison.crossed.high,
      standardError: comparison.crossed.standardError,
      t: comparison.tInterval
        ? { low: comparison.tInterval.low, high: comparison.tInterval.high }
        : null,
      mde: comparison.minimumDetectableEffect ?? null,
      seedGains: comparison.seedGains,
    })),
  };
}

console.log(
  `\npnpm bench cod --preset ${preset} --seeds ${seeds.join(',')} --steps ${steps} --eval-packs ${evalPacks} --eval-pack-size ${evalPackSize} --eval-runs ${evalRuns} --eval-seed ${evalSeed} --ralph-packs ${ralphPacks}`,
);
const cod = await summarise(
  'cod',
  `CoD loop: ${evalPacks} evaluation packs of ${evalPackSize} (eval split, seed ${evalSeed}) × ${evalRuns} runs; rows: seeds ${seeds.join(',')} (the warm start: one evaluation); 95% crossed two-way bootstrap intervals (seeds and packs)`,
);
const ralph =
  ralphPacks > 0
    ? await summarise(
        'ralph',
        `Ralph loop: each pack's first task ${evalPackSize} times, ${ralphPacks} packs × ${evalRuns} runs`,
      )
    : undefined;
if (cod !== undefined) {
  const summary = {
    schemaVersion: 1,
    kind: 'cod-arms',
    date: new Date().toISOString(),
    command: `pnpm bench cod --preset ${preset} --seeds ${seeds.join(',')} --steps ${steps} --eval-packs ${evalPacks} --eval-pack-size ${evalPackSize} --eval-runs ${evalRuns} --eval-seed ${evalSeed} --ralph-packs ${ralphPacks}`,
    preset,
    environment: env,
    seeds,
    steps,
    packsPerStep: budget.packsPerStep,
    groupSize: budget.groupSize,
    learningRate: budget.learningRate,
    evalPacks,
    evalPackSize,
    evalRuns,
    evalSeed,
    ralphPacks,
    seconds: (performance.now() - started) / 1000,
    cod,
    ...(ralph === undefined ? {} : { ralph }),
  };
  writeFileSync(
    join(out, 'summary.json'),
    `${JSON.stringify(summary, null, 2)}\n`,
  );
  // The curves with their intervals, for the report of each CoD run.
  const loopArms = (loop: NonNullable<typeof cod>) => ({
    arms: loop.arms.map((arm) => ({
      model: arm.model,
      rows: arm.rows,
      packs: arm.packs,
      curve: arm.curve,
      delta: {
        mean: arm.delta.mean,
        low: arm.delta.low,
        high: arm.delta.high,
        mde: arm.delta.mde,
      },
    })),
  });
  const codArms = codArmsSchema.parse({
    schemaVersion: 1,
    kind: 'cod-arms',
    command: summary.command,
    date: summary.date,
    seeds,
    intervals:
      '95% crossed two-way bootstrap intervals (seeds and packs resampled independently)',
    cod: loopArms(cod),
    ...(ralph === undefined ? {} : { ralph: loopArms(ralph) }),
  });
  for (const seed of seeds)
    if (existsSync(runDirectory(seed, 'cod')))
      writeFileSync(
        join(runDirectory(seed, 'cod'), codArmsFileName),
        `${JSON.stringify(codArms, null, 2)}\n`,
      );
  console.log(
    `\nsummary: ${join(out, 'summary.json')} (${(summary.seconds / 60).toFixed(1)} min this invocation)`,
  );
}

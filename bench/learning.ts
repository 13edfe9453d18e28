/**
 * `pnpm bench learning [--preset study|default|consolidated|readslist|recovers|smoke] [--seeds 1,2,3,4,5] [--only seal,grpo,frozen] [--steps N] [--zero-advantage-share P] [--task-mix MIX] [--credit episode|turn] [--turn-advantage W] [--dynamic-sampling [--refill-rounds N]] [--overlays schema,err,cap|none] [--schema-note on|off] [--suite development|confirmation] [--confirm [--confirm-scale K]] [--jobs N] [--out DIR] [--archive DIR] [--against DIR] [--report-only] [--restart]`
 *
 * The learning study of issue 17: the arms SEAL, GRPO, no-env, no-reweight,
 * no-loop, Environment Tuning and a frozen control, each with every seed, all
 * from the same warm start, on the same generated tasks, at equal budget
 * (steps × tasks × group size). Every evaluation (before training, every
 * `evalEvery` steps and at the end) is greedy and sampled pass@1 (4 samples
 * at temperature 1) on the held-out in-distribution and out-of-distribution
 * test sets.
 *
 * Every evaluation point draws the sampling streams of step 0 (common random
 * numbers, decision 0030), so the warm start's evaluation depends on the seed
 * only: it runs once per seed (with the seed's first arm, kept in
 * `warmstart-s<seed>.json`) and every other arm of that seed records it as
 * its own step 0. For the same reason the frozen control (GRPO's loop at
 * learning rate 0) is that evaluation at every point; it is not run unless
 * `--only frozen` asks for it (decision 0032).
 *
 * The table gives, greedy pass@1 first and sampled pass@1 beside it, each
 * arm's final success (mean over seeds ± standard error), the paired
 * differences arm − GRPO and arm − frozen with crossed two-way bootstrap
 * 95% intervals (seeds and tasks resampled independently: every seed is
 * scored on the same held-out tasks, issue 44) and the 95% t-interval over
 * the per-seed gains beside them, and the minimum detectable effect of the
 * design (power 0.8, two-sided α = 0.05: 2.8 × the two-way standard error).
 * `--seeds` lists each seed once. Then arm − frozen category by category
 * (base, missing function, missing parameter, long context), where SEAL's
 * tags point.
 * Curves are written as SVG beside the runs.
 *
 * Runs are seed-major (every arm of seed 1, then of seed 2, ...), so a study
 * cut short stays balanced. `--jobs N` runs N at once, each in a worker
 * process pinned to its share of the cores (two single-threaded runs on 2
 * cores do about 1.25× the work of one run on both); workers claim runs from
 * the same plan. Each run is a `runTraining` run directory under
 * `--out` (default bench/out/learning) and resumes from its checkpoint after
 * a kill; a finished run is kept. A run directory recorded under another
 * setup (warm start, tasks, RL settings) is an error naming what differs,
 * unless `--restart` is given.
 *
 * `--archive DIR` keeps the study beyond its output folder, which holds
 * checkpoints and is not committed: each finished run's result and each
 * seed's shared step-0 evaluation are also written there, gzipped (about
 * 60 KB a run), as each finishes. Before anything runs, what the archive
 * holds and `--out` lacks is restored into `--out` (and the other way
 * round), so a study grows across machines and fresh clones: commit the
 * archive, and the same command on another checkout resumes the study
 * where it stood, or (with `--report-only`) prints its table. The study of
 * record keeps its archive in `bench/learning/study/results`. An archived run
 * recorded under another setup is an error naming what differs.
 *
 * `--confirm` adds the closing figures (issue 44): once the runs are done,
 * each finished run's final checkpoint and each seed's warm start (also
 * sampled at its validation-best temperature) are evaluated once on the
 * confirmation suite (the reserved generator seed; none of the development
 * suite's tasks), with the seed's own streams, and a second table gives the
 * same differences there. Training does not depend on the evaluation sets,
 * so these are the figures a `--suite confirmation` study would end with, at
 * one evaluation a run. The flag is not part of the setup: add it to the
 * command of a finished study (its checkpoints must be in `--out`); the
 * evaluations are kept in `--out`/confirmation and archived as
 * `confirm-<arm>-s<seed>.json.gz`, so `--report-only --confirm` prints them
 * on any checkout.
 *
 * A setting is compared the same way: two studies that differ in it alone
 * (say `--zero-advantage-share 0.125` into one directory and the default into
 * another), then `--report-only --out A --against B` prints each arm of A
 * minus the same arm of B, paired by seed and task. Both start from the same
 * warm start and draw the same streams, so their step-0 evaluations must be
 * identical; the report checks that before it compares.
 */
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { gunzipSync, gzipSync } from 'node:zlib';
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { availableParallelism } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { createBfclBackend } from '@seal/bfcl';
import {
  confirmationSuiteSeed,
  createGeneratorRuntime,
  generateConfirmationTasks,
  taskFamilies,
} from '@seal/bfcl-tasks';
import {
  dynamicSamplingConfig,
  parseOverlays,
  parseTaskMix,
  prepareEmbedded,
  turnAdvantageWeightOf,
} from '@seal/cli';
import {
  embeddedEpisode,
  embeddedPresets,
  embeddedTrainConfig,
  warmStartKey,
} from '@seal/embedded';
import { sealSettingsForModules } from '@seal/evolve';
import { createOrtPolicy } from '@seal/engine-ort';
import {
  clusteredPairedBootstrap,
  compareCrossed,
  deriveSeed,
  evaluatePolicy,
  formatPoints,
  minimumDetectableEffectOverRuns,
  parseSeedList,
  RunDirectory,
  runTraining,
  sampleStandardDeviation,
  writeFileAtomic,
  writeJsonAtomic,
  type EvalSet,
  type TrainMethod,
} from '@seal/rl';
import {
  SealError,
  type EvalEvent,
  type Task,
  type TrainStepEvent,
} from '@seal/spec';
import { createBfclVerifier } from '@seal/verifier';

const { values } = parseArgs({
  options: {
    preset: { type: 'string', default: 'study' },
    steps: { type: 'string' },
    seeds: { type: 'string', default: '1,2,3,4,5' },
    only: { type: 'string' },
    out: { type: 'string', default: 'bench/out/learning' },
    cache: { type: 'string', default: '.seal-cache' },
    samples: { type: 'string', default: '4' },
    /** `ppo.zeroAdvantageShare` of every run (default 1: every zero-advantage rollout trains). */
    'zero-advantage-share': { type: 'string', default: '1' },
    /** SEAL's interface modules for the arms with environment-side adaptation (default: φ_schema alone, the headline). */
    overlays: { type: 'string' },
    /** The task mix of every run (`seal train --task-mix`: name[=weight],...; default: the preset's). */
    'task-mix': { type: 'string' },
    /** The credit of every run (`seal train --credit`): `episode` (the preset's, turn-level weight 0) or `turn` (turn-level credit at --turn-advantage, default 1). */
    credit: { type: 'string' },
    /** The turn-level advantage weight with `--credit turn` (`turnAdvantageWeight`). */
    'turn-advantage': { type: 'string' },
    /** DAPO's dynamic sampling in every run (`seal train --dynamic-sampling`): groups without gradient are replaced by fresh ones. */
    'dynamic-sampling': { type: 'boolean', default: false },
    /** Rounds of fresh draws a step with --dynamic-sampling (default 3; 0 drops the groups without replacing them). */
    'refill-rounds': { type: 'string' },
    /** `off`: φ_schema without its system-prompt note (the markers alone), for the arms with an environment side. */
    'schema-note': { type: 'string', default: 'on' },
    /** A folder (to commit) that keeps every finished run's result, gzipped; restored into --out before anything runs. */
    archive: { type: 'string' },
    /** With --report-only: a study of the same plan to compare against, arm by arm. */
    against: { type: 'string' },
    /** Print the table and curves from the finished runs only; run nothing. */
    'report-only': { type: 'boolean', default: false },
    /**
     * `confirmation`: evaluate on the confirmation suite (test-id and test-ood
     * drawn at the reserved generator seed, none of the development suite's
     * tasks) instead of the development suite. For closing figures only.
     */
    suite: { type: 'string', default: 'development' },
    /**
     * The closing figures: after the runs, evaluate each finished run's final
     * checkpoint and each seed's warm start once on the confirmation suite,
     * and print them beside the development suite's. Not part of the setup:
     * add it to a study's command when the study is done being chosen.
     */
    confirm: { type: 'boolean', default: false },
    /**
     * With --confirm: the confirmation suite holds K times the development
     * suite's tasks a set (default 1), for the power that 64 tasks a set do
     * not give (the two-way MDE falls with the tasks). Kept apart from the
     * K = 1 evaluations (`confirm-<arm>-s<seed>-x<K>`).
     */
    'confirm-scale': { type: 'string', default: '1' },
    /**
     * The temperatures at which the warm start is sampled on validation data
     * (every fifth training task) to find the one that is best for it: sampled
     * gains are reported against the warm start at that temperature (issue 44).
     * `none` skips it.
     */
    'baseline-temperatures': {
      type: 'string',
      default: '0.5,0.6,0.7,0.8,0.9,1',
    },
    /** Start over runs recorded under another setup instead of stopping. */
    restart: { type: 'boolean', default: false },
    /** Runs at once, each in its own process on its share of the cores (default 1). */
    jobs: { type: 'string', default: '1' },
    /** Internal: a worker process of `--jobs`. */
    worker: { type: 'boolean', default: false },
    /** Internal: the engine's threads in a worker (default: all cores). */
    threads: { type: 'string' },
  },
});
const jobs = Number(values.jobs);
if (!Number.isInteger(jobs) || jobs < 1)
  throw new SealError({
    code: 'INVALID_ARGUMENT',
    message: `--jobs must be a positive integer, got ${values.jobs}`,
  });
const threads =
  values.threads === undefined ? undefined : Number(values.threads);
// A worker stops when the study that started it is gone (its run resumes later).
if (values.worker) process.once('disconnect', () => process.exit(1));
if (
  values.preset !== 'study' &&
  values.preset !== 'default' &&
  values.preset !== 'smoke' &&
  values.preset !== 'consolidated' &&
  values.preset !== 'readslist' &&
  values.preset !== 'recovers'
) {
  throw new SealError({
    code: 'INVALID_ARGUMENT',
    message: `--preset must be study, default, consolidated, readslist, recovers or smoke, got ${values.preset}`,
  });
}
const chosenPreset = embeddedPresets[values.preset];
if (
  values.credit !== undefined &&
  values.credit !== 'episode' &&
  values.credit !== 'turn'
)
  throw new SealError({
    code: 'INVALID_ARGUMENT',
    message: `--credit: unknown credit mode '${values.credit}' (valid modes: episode, turn)`,
  });
const turnAdvantageText = values['turn-advantage'];
const turnAdvantage =
  turnAdvantageText === undefined ? undefined : Number(turnAdvantageText);
if (
  turnAdvantage !== undefined &&
  (turnAdvantageText?.trim() === '' ||
    !(turnAdvantage >= 0 && turnAdvantage <= 10))
)
  throw new SealError({
    code: 'INVALID_ARGUMENT',
    message: `--turn-advantage must be a number in [0, 10], got ${turnAdvantageText}`,
  });
// The same reading as `seal train`'s: --credit episode with a weight is an error.
const turnAdvantageWeight = turnAdvantageWeightOf({
  credit: values.credit,
  weight: turnAdvantage,
});
// --task-mix and --credit change the preset's RL settings, so they are part of the run's setup.
const preset = {
  ...chosenPreset,
  rl: {
    ...chosenPreset.rl,
    ...(values['task-mix'] === undefined
      ? {}
      : { taskMix: parseTaskMix(values['task-mix']) }),
    ...(turnAdvantageWeight === undefined ||
    turnAdvantageWeight === (chosenPreset.rl.turnAdvantageWeight ?? 0)
      ? {}
      : { turnAdvantageWeight }),
  },
};
const refillText = values['refill-rounds'];
const refillRounds = refillText === undefined ? undefined : Number(refillText);
if (
  refillRounds !== undefined &&
  (refillText?.trim() === '' ||
    !Number.isInteger(refillRounds) ||
    refillRounds < 0 ||
    refillRounds > 16)
)
  throw new SealError({
    code: 'INVALID_ARGUMENT',
    message: `--refill-rounds must be an integer from 0 to 16, got ${refillText}`,
  });
// The same reading as `seal train`'s: --refill-rounds without --dynamic-sampling is an error.
const { dynamicSampling } = dynamicSamplingConfig({
  'dynamic-sampling': values['dynamic-sampling'],
  'refill-rounds': refillRounds,
});
if (values.suite !== 'development' && values.suite !== 'confirmation') {
  throw new SealError({
    code: 'INVALID_ARGUMENT',
    message: `--suite must be development or confirmation, got ${values.suite}`,
  });
}
const confirmation = values.suite === 'confirmation';
const confirmScaleText = values['confirm-scale'];
const confirmScale = Number(confirmScaleText);
if (
  confirmScaleText.trim() === '' ||
  !Number.isInteger(confirmScale) ||
  confirmScale < 1 ||
  confirmScale > 16
)
  throw new SealError({
    code: 'INVALID_ARGUMENT',
    message: `--confirm-scale must be an integer from 1 to 16, got ${confirmScaleText}`,
  });
if (confirmScale !== 1 && !values.confirm)
  throw new SealError({
    code: 'INVALID_ARGUMENT',
    message: '--confirm-scale sizes the suite of --confirm: add --confirm',
  });
if (confirmation && values.confirm)
  throw new SealError({
    code: 'INVALID_ARGUMENT',
    message:
      '--confirm evaluates the finished runs on the confirmation suite; with --suite confirmation they are evaluated there already',
  });
// Distinct seeds: a seed listed twice would count one run twice in the pooled intervals.
const seeds = parseSeedList({ text: values.seeds });
const outDirectory = resolve(values.out);
const steps =
  values.steps === undefined ? preset.rl.steps : Number(values.steps);
const evalSamples = Number(values.samples);
const baselineTemperatures =
  values['baseline-temperatures'] === 'none'
    ? []
    : values['baseline-temperatures'].split(',').map((text) => {
        const value = Number(text);
        if (!(value > 0 && value <= 2))
          throw new SealError({
            code: 'INVALID_ARGUMENT',
            message: `--baseline-temperatures: each must be in (0, 2], got ${text}`,
          });
        return value;
      });
const zeroAdvantageShare = Number(values['zero-advantage-share']);
if (!(zeroAdvantageShare > 0 && zeroAdvantageShare <= 1)) {
  throw new SealError({
    code: 'INVALID_ARGUMENT',
    message: `--zero-advantage-share must be in (0, 1], got ${values['zero-advantage-share']}`,
  });
}
const overlays =
  values.overlays === undefined ? undefined : parseOverlays(values.overlays);
if (values['schema-note'] !== 'on' && values['schema-note'] !== 'off') {
  throw new SealError({
    code: 'INVALID_ARGUMENT',
    message: `--schema-note must be on or off, got ${values['schema-note']}`,
  });
}
const schemaNote = values['schema-note'] === 'on';
if (!schemaNote && overlays !== undefined && !overlays.includes('schema')) {
  throw new SealError({
    code: 'INVALID_ARGUMENT',
    message: '--schema-note off needs φ_schema on: add schema to --overlays',
  });
}
if (values.against !== undefined && !values['report-only']) {
  throw new SealError({
    code: 'INVALID_ARGUMENT',
    message: '--against compares finished studies: use it with --report-only',
  });
}

/**
 * An arm of the study: a method, the frozen control (GRPO's loop at learning
 * rate 0), or temperature-only RL (GRPO's loop where only the final norm's
 * gain learns, as one logit scale: the control any claim of learning must
 * beat on greedy, issue 44).
 */
type Arm = TrainMethod | 'frozen' | 'temperature-only';
const arms: Arm[] = [
  'seal',
  'grpo',
  'no-env',
  'no-reweight',
  'no-loop',
  'envtuning',
  'frozen',
  'temperature-only',
];
const known = new Set<string>(arms);
const only = values.only?.split(',');
const unknownArms = (only ?? []).filter((arm) => !known.has(arm));
if (unknownArms.length > 0)
  throw new SealError({
    code: 'INVALID_ARGUMENT',
    message: `--only: unknown arm ${unknownArms.join(', ')} (arms: ${arms.join(', ')})`,
  });
type Run = { arm: Arm; seed: number };
// The frozen control runs only when asked for: under common random numbers it is the warm start's evaluation.
const plan: Run[] = seeds.flatMap((seed) =>
  arms
    .filter((arm) =>
      only === undefined
        ? arm !== 'frozen' && arm !== 'temperature-only'
        : only.includes(arm),
    )
    .map((arm) => ({ arm, seed })),
);

/**
 * What a run is made with: the warm start, the preset's tasks and RL
 * settings, the steps and the evaluation samples. A run recorded under
 * another setup is never mixed into the table.
 */
const setup = {
  warmStart: warmStartKey(preset),
  tasks: preset.tasks,
  rl: preset.rl,
  steps,
  evalSamples,
  // Only when set, so that studies recorded before the flag existed still match.
  ...(zeroAdvantageShare === 1 ? {} : { zeroAdvantageShare }),
  ...(overlays === undefined ? {} : { overlays }),
  ...(schemaNote ? {} : { schemaNote: false }),
  ...(dynamicSampling === undefined ? {} : { dynamicSampling }),
  // Runs evaluated on the confirmation suite are another study.
  ...(confirmation
    ? { suite: 'confirmation', suiteSeed: confirmationSuiteSeed }
    : {}),
};

type RunResult = {
  arm: Arm;
  seed: number;
  steps: TrainStepEvent[];
  evaluations: EvalEvent[];
  seconds: number;
  setup: typeof setup;
  /** A frozen control read from the warm start's evaluation instead of run. */
  derived?: boolean;
  /** The commit the run was made with, where known (provenance; not part of the setup). */
  commit?: string;
};

/** The checkout's commit (with `+` when it has changes), or undefined outside git. */
function currentCommit(): string | undefined {
  try {
    const head = execFileSync('git', ['rev-parse', '--short', 'HEAD'], {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
    }).trim();
    const dirty =
      execFileSync('git', ['status', '--porcelain', '--untracked-files=no'], {
        encoding: 'utf8',
        stdio: ['ignore', 'pipe', 'ignore'],
      }).trim() !== '';
    return dirty ? `${head}+` : head;
  } catch {
    return undefined;
  }
}
const commit = currentCommit();

const assets = await prepareEmbedded({
  preset,
  cacheDirectory: resolve(values.cache),
  onProgress: (progress) => {
    if (progress.type === 'phase') console.error(`  ${progress.phase}…`);
    else if (progress.step % 50 === 0)
      console.error(
        `  warm start ${progress.step}/${progress.steps} loss ${progress.loss.toFixed(3)}`,
      );
  },
});
/**
 * The held-out sets every run evaluates: the preset's development suite, or
 * with `--suite confirmation` the confirmation suite of the same sizes,
 * families and categories (reserved generator seed; the development suite's
 * tasks left out).
 */
const evalSets: EvalSet[] = confirmation
  ? confirmationSets(assets.evalSets)
  : assets.evalSets;
if (confirmation)
  console.error(
    `bench learning: evaluating on the confirmation suite (generator seed ${confirmationSuiteSeed}), ${evalSets.map((set) => `${set.tasks.length} ${set.name}`).join(', ')} tasks`,
  );
const runtime = createGeneratorRuntime();
const studyStarted = Date.now();
await mkdir(outDirectory, { recursive: true });

/**
 * The warm start's step-0 evaluation of a seed, shared by the seed's arms:
 * recorded by the first arm that evaluates it, under the study's setup.
 */
type WarmStartEvaluation = {
  seed: number;
  setup: typeof setup;
  events: EvalEvent[];
};
const warmStartFile = (seed: number): string =>
  join(outDirectory, `warmstart-s${seed}.json`);
const nameOf = (run: Run): string => `${run.arm}-s${run.seed}`;
const runDirectoryOf = (run: Run): string => join(outDirectory, nameOf(run));
const resultFileOf = (run: Run): string =>
  join(runDirectoryOf(run), 'result.json');
const tag = (run: Run): string =>
  `[${plan.indexOf(run) + 1}/${plan.length}] ${nameOf(run)}`;

async function sharedStepZero(seed: number): Promise<EvalEvent[] | undefined> {
  const file = warmStartFile(seed);
  if (!existsSync(file)) return undefined;
  return (JSON.parse(await readFile(file, 'utf8')) as WarmStartEvaluation)
    .events;
}

/** The keys of two setups whose values differ (a key only one of them has included). */
function setupDifferences(a: typeof setup, b: typeof setup): string[] {
  const keys = [
    ...new Set([...Object.keys(a), ...Object.keys(b)]),
  ] as (keyof typeof setup)[];
  return keys.filter(
    (key) => JSON.stringify(a[key]) !== JSON.stringify(b[key]),
  );
}

// ---- The archive: finished runs kept beyond --out -------------------------

const archiveDirectory =
  values.archive === undefined ? undefined : resolve(values.archive);
const archiveFileOf = (name: string): string =>
  join(archiveDirectory!, `${name}.json.gz`);

/** Writes a finished run's result (or a seed's step-0 evaluation) to the archive, if there is one. */
async function archive(
  name: string,
  value:
    | RunResult
    | WarmStartEvaluation
    | Confirmation
    | TemperatureChoice
    | MatchedBaseline,
): Promise<void> {
  if (archiveDirectory === undefined) return;
  // Compact JSON, gzipped with a fixed header: the same result gives the same bytes.
  await writeFileAtomic(
    archiveFileOf(name),
    gzipSync(`${JSON.stringify(value)}\n`, { level: 9 }),
  );
}

async function readArchived(
  name: string,
): Promise<
  | RunResult
  | WarmStartEvaluation
  | Confirmation
  | TemperatureChoice
  | MatchedBaseline
  | undefined
> {
  if (archiveDirectory === undefined) return undefined;
  const file = archiveFileOf(name);
  if (!existsSync(file)) return undefined;
  try {
    return JSON.parse(gunzipSync(await readFile(file)).toString('utf8')) as
      | RunResult
      | WarmStartEvaluation
      | Confirmation
      | TemperatureChoice
      | MatchedBaseline;
  } catch (error) {
    throw new SealError({
      code: 'INVALID_STATE',
      message: `${file} is not a gzipped JSON result (${(error as Error).message}); remove it and run the study again`,
      cause: error,
    });
  }
}

/**
 * Before anything runs: what the archive holds and `--out` lacks is
 * restored into `--out`, and what `--out` holds and the archive lacks is
 * archived. An archived entry recorded under another setup is an error
 * naming what differs, or, with `--restart`, is left to be replaced.
 */
async function syncArchive(): Promise<void> {
  if (archiveDirectory === undefined) return;
  const entries = [
    ...seeds.map((seed) => ({
      name: `warmstart-s${seed}`,
      file: warmStartFile(seed),
      directory: undefined,
    })),
    ...plan.map((run) => ({
      name: nameOf(run),
      file: resultFileOf(run),
      directory: runDirectoryOf(run),
    })),
  ];
  let restored = 0;
  let archived = 0;
  for (const entry of entries) {
    const kept = await readArchived(entry.name);
    if (kept !== undefined) {
      const differs = setupDifferences(kept.setup, setup);
      if (differs.length > 0) {
        if (values.restart) continue;
        throw new SealError({
          code: 'INVALID_STATE',
          message: `${archiveFileOf(entry.name)} was recorded under another setup (${differs.join(', ')} differ); pass --restart to run it again, or --archive another directory`,
          details: { differs },
        });
      }
      if (existsSync(entry.file)) continue;
      if (entry.directory !== undefined)
        await writeFileAtomic(
          join(entry.directory, 'study-setup.json'),
          `${JSON.stringify(setup)}\n`,
        );
      await writeJsonAtomic(entry.file, kept);
      restored++;
    } else if (existsSync(entry.file)) {
      const value = JSON.parse(await readFile(entry.file, 'utf8')) as
        RunResult | WarmStartEvaluation;
      if (setupDifferences(value.setup, setup).length > 0) continue;
      await archive(entry.name, value);
      archived++;
    }
  }
  if (restored + archived > 0)
    console.error(
      `bench learning: ${restored} restored from and ${archived} written to the archive ${archiveDirectory}`,
    );
}

/**
 * Before anything runs: a run directory or shared evaluation recorded under
 * another setup is an error naming what differs, or, with `--restart`, is
 * removed so that it runs again.
 */
async function checkRecordedSetups(): Promise<void> {
  for (const run of plan) {
    const runDirectory = runDirectoryOf(run);
    const setupFile = join(runDirectory, 'study-setup.json');
    if (!existsSync(setupFile)) continue;
    const recorded = JSON.parse(
      await readFile(setupFile, 'utf8'),
    ) as typeof setup;
    const differs = setupDifferences(recorded, setup);
    if (differs.length === 0) continue;
    if (!values.restart) {
      throw new SealError({
        code: 'INVALID_STATE',
        message: `${runDirectory} was recorded under another setup (${differs.join(', ')} differ); pass --restart to run it again, or --out another directory`,
        details: { differs },
      });
    }
    console.error(
      `${tag(run)}: recorded under another setup (${differs.join(', ')}); starting it over (--restart)`,
    );
    await rm(runDirectory, { recursive: true, force: true });
  }
  for (const seed of seeds) {
    const file = warmStartFile(seed);
    if (!existsSync(file)) continue;
    const recorded = JSON.parse(
      await readFile(file, 'utf8'),
    ) as WarmStartEvaluation;
    if (JSON.stringify(recorded.setup) === JSON.stringify(setup)) continue;
    if (!values.restart) {
      throw new SealError({
        code: 'INVALID_STATE',
        message: `${file} was recorded under another setup; pass --restart to evaluate it again, or --out another directory`,
      });
    }
    await rm(file, { force: true });
  }
}

// ---- Closing figures on the confirmation suite (--confirm) -----------------

// A study's closing figures are re-measured once on the confirmation suite
// (issue 44): tasks drawn at the reserved generator seed, none of the
// development suite's, never used to choose a setting. Training does not
// depend on the evaluation sets, so evaluating each finished run's final
// checkpoint there gives the figures a study run with `--suite confirmation`
// would end with, at the cost of one evaluation a run instead of a study.
// Each model is evaluated with its seed's own streams (those of the
// development evaluations), greedy and sampled, and each seed's warm start
// also sampled at its validation-best temperature, so arms pair by (seed,
// task) as on the development suite.
type ConfirmedSet = {
  greedy: Record<string, number>;
  sampled?: Record<string, number>;
  /** The warm start only: sampled at its validation-best temperature. */
  matched?: { temperature: number; taskSuccess: Record<string, number> };
};
type Confirmation = {
  setup: typeof setup;
  suiteSeed: number;
  /** `--confirm-scale`: the suite's tasks a set over the development suite's (absent: 1). */
  scale?: number;
  /** `frozen`: the seed's warm start. */
  arm: Arm;
  seed: number;
  /** The checkpoint's step (0 for the warm start). */
  step: number;
  sets: Record<string, ConfirmedSet>;
  seconds: number;
  commit?: string;
};
const confirmations: Confirmation[] = [];
const confirmationName = (arm: Arm, seed: number): string =>
  `confirm-${arm}-s${seed}${confirmScale === 1 ? '' : `-x${confirmScale}`}`;
const confirmationFile = (arm: Arm, seed: number): string =>
  join(outDirectory, 'confirmation', `${confirmationName(arm, seed)}.json`);
/** The confirmation suite's sets: `scale` times the sizes, and the families, of the development suite's. */
function confirmationSets(
  development: readonly EvalSet[],
  scale = 1,
): EvalSet[] {
  return development.map((set) => {
    if (set.name !== 'test-id' && set.name !== 'test-ood')
      throw new SealError({
        code: 'INVALID_STATE',
        message: `the confirmation suite has test-id and test-ood, not ${set.name}`,
      });
    return {
      name: set.name,
      tasks: generateConfirmationTasks({
        split: set.name,
        count: set.tasks.length * scale,
        families: taskFamilies
          .filter((family) => preset.difficulties.includes(family.difficulty))
          .map((family) => family.id),
        excluding: set.tasks,
      }),
    };
  });
}
/** A recorded confirmation, from `--out` or else the archive, if made under this setup. */
async function recordedConfirmation(
  arm: Arm,
  seed: number,
): Promise<Confirmation | undefined> {
  const file = confirmationFile(arm, seed);
  const recorded = existsSync(file)
    ? (JSON.parse(await readFile(file, 'utf8')) as Confirmation)
    : ((await readArchived(confirmationName(arm, seed))) as
        Confirmation | undefined);
  if (
    recorded === undefined ||
    JSON.stringify(recorded.setup) !== JSON.stringify(setup) ||
    (recorded.scale ?? 1) !== confirmScale
  )
    return undefined;
  if (!existsSync(file)) await writeJsonAtomic(file, recorded);
  return recorded;
}
/**
 * Evaluates one model (a run's final checkpoint, or the seed's warm start as
 * arm `frozen`) on the confirmation suite, greedy and sampled, and the warm
 * start also at `matchedTemperature`; measures `recorded` already holds are
 * kept. Writes and archives the record; undefined (and says why) when the
 * run has no final checkpoint here.
 */
async function confirmModel({
  model,
  recorded,
  matchedTemperature,
}: {
  model: Run;
  recorded?: Confirmation;
  matchedTemperature?: number;
}): Promise<Confirmation | undefined> {
  const label = `confirmation, ${model.arm === 'frozen' ? 'warm start' : model.arm}, seed ${model.seed}`;
  let directory = assets.warmStartDirectory;
  let step = 0;
  if (model.arm !== 'frozen') {
    const run = new RunDirectory(runDirectoryOf(model));
    step = (await run.latestCheckpoint()) ?? -1;
    if (step !== steps) {
      console.error(
        `${label}: not evaluated: no final checkpoint (step ${steps}) in ${runDirectoryOf(model)}; confirm the study where it ran`,
      );
      return undefined;
    }
    directory = run.checkpointPath(step);
  }
  const started = Date.now();
  const policy = await createOrtPolicy({
    model: { directory },
    ...(threads === undefined ? {} : { threads }),
  });
  try {
    const sets: Record<string, ConfirmedSet> = {};
    for (const set of confirmationSuite()) {
      const evaluate = (temperature: number, seed: number, samples = 1) =>
        evaluateLikeRuns({
          policy,
          tasks: set.tasks,
          temperature,
          samples,
          seed,
        });
      const kept = recorded?.sets[set.name];
      const parts: string[] = [];
      // The streams of the seed's development evaluations (periodic evaluation).
      const greedy =
        kept?.greedy ??
        (await evaluate(0, deriveSeed(model.seed, 0xe7a1, 0))).taskSuccess;
      const entry: ConfirmedSet = { greedy };
      parts.push(`greedy ${percent(greedy)}`);
      if (evalSamples > 0) {
        entry.sampled =
          kept?.sampled ??
          (await evaluate(1, deriveSeed(model.seed, 0xe7a2, 0), evalSamples))
            .taskSuccess;
        parts.push(`sampled ${percent(entry.sampled)}`);
      }
      if (matchedTemperature !== undefined && evalSamples > 0) {
        entry.matched =
          kept?.matched?.temperature === matchedTemperature
            ? kept.matched
            : {
                temperature: matchedTemperature,
                taskSuccess: (
                  await evaluate(
                    matchedTemperature,
                    deriveSeed(model.seed, 0xe7a2, 0),
                    evalSamples,
                  )
                ).taskSuccess,
              };
        parts.push(
          `sampled at T = ${matchedTemperature} ${percent(entry.matched.taskSuccess)}`,
        );
      }
      sets[set.name] = entry;
      console.error(`${label}, ${set.name}: ${parts.join(', ')}`);
    }
    const confirmation: Confirmation = {
      setup,
      suiteSeed: confirmationSuiteSeed,
      ...(confirmScale === 1 ? {} : { scale: confirmScale }),
      arm: model.arm,
      seed: model.seed,
      step,
      sets,
      seconds: (recorded?.seconds ?? 0) + (Date.now() - started) / 1000,
      ...(commit === undefined ? {} : { commit }),
    };
    await writeJsonAtomic(
      confirmationFile(model.arm, model.seed),
      confirmation,
    );
    await archive(confirmationName(model.arm, model.seed), confirmation);
    return confirmation;
  } finally {
    await policy.close();
  }
}

/**
 * `evaluatePolicy` with the episode settings of every run's evaluations
 * (`embeddedTrainConfig`): what the warm start's temperature baseline and
 * the confirmation suite are measured with.
 */
function evaluateLikeRuns(
  options: Pick<
    Parameters<typeof evaluatePolicy>[0],
    'policy' | 'tasks' | 'temperature' | 'samples' | 'seed'
  >,
) {
  return evaluatePolicy({
    ...options,
    backend: createBfclBackend({ runtime }),
    verifier: createBfclVerifier({ runtime }),
    ...embeddedEpisode,
    maxTokens: preset.rl.maxTokens,
    limits: { maxModelCalls: preset.rl.maxModelCalls },
  });
}

/** The confirmation suite of this study's preset, generated once. */
let confirmationSuiteSets: EvalSet[] | undefined;
function confirmationSuite(): EvalSet[] {
  confirmationSuiteSets ??= confirmationSets(assets.evalSets, confirmScale);
  return confirmationSuiteSets;
}

/** The mean of a task-success map, as `42.2%`. */
function percent(success: Record<string, number>): string {
  const values = Object.values(success);
  return `${((100 * values.reduce((a, b) => a + b, 0)) / Math.max(1, values.length)).toFixed(1)}%`;
}

/**
 * A worker's last pass with `--confirm`: every finished run of the plan and
 * every seed's warm start not yet evaluated on the confirmation suite, each
 * claimed like a run, so that `--jobs` workers share them.
 */
async function confirmFinished(): Promise<void> {
  const models: Run[] = [
    ...seeds.map((seed): Run => ({ arm: 'frozen', seed })),
    ...plan.filter(
      (run) => run.arm !== 'frozen' && existsSync(resultFileOf(run)),
    ),
  ];
  for (const model of models) {
    if ((await recordedConfirmation(model.arm, model.seed)) !== undefined)
      continue;
    const claim = confirmationName(model.arm, model.seed);
    if (!(await take(claim))) continue;
    try {
      // Made by another worker between the check and the claim.
      if ((await recordedConfirmation(model.arm, model.seed)) === undefined)
        await confirmModel({ model });
    } finally {
      await release(claim);
    }
  }
}

// ---- Claims: several workers share one plan --------------------------------

// A worker claims a run (and, for a seed's first run, the seed's step-0
// evaluation) by creating a file holding its pid; a claim whose process is
// gone (a killed worker) is taken over.
const claimsDirectory = join(outDirectory, 'claims');
const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
};
async function holder(claim: string): Promise<number | undefined> {
  try {
    const pid = Number(await readFile(join(claimsDirectory, claim), 'utf8'));
    return pid !== process.pid && alive(pid) ? pid : undefined;
  } catch {
    return undefined;
  }
}
async function take(claim: string): Promise<boolean> {
  const file = join(claimsDirectory, claim);
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      await writeFile(file, String(process.pid), { flag: 'wx' });
      return true;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      if ((await holder(claim)) !== undefined) return false;
      await rm(file, { force: true });
    }
  }
  return false;
}
const release = (claim: string): Promise<void> =>
  rm(join(claimsDirectory, claim), { force: true });

/** Trains and evaluates one run of the plan, and writes its result. */
async function executeRun(run: Run): Promise<void> {
  const name = nameOf(run);
  const runDirectory = runDirectoryOf(run);
  await mkdir(runDirectory, { recursive: true });
  await writeFile(
    join(runDirectory, 'study-setup.json'),
    `${JSON.stringify(setup)}\n`,
  );
  const started = Date.now();
  const engine = {
    model: { directory: assets.warmStartDirectory },
    ...(threads === undefined ? {} : { threads }),
  };
  const policy = await createOrtPolicy(engine);
  const referencePolicy =
    preset.rl.klCoef > 0 ? await createOrtPolicy(engine) : undefined;
  const initialEvaluations = await sharedStepZero(run.seed);
  if (initialEvaluations)
    console.error(
      `${tag(run)} step 0: the warm start's evaluation of seed ${run.seed}, shared (${warmStartFile(run.seed)})`,
    );
  const stepZero: EvalEvent[] = [];
  // The write of the shared step-0 evaluation (atomic; awaited after the run).
  let sharing: Promise<void> = Promise.resolve();
  try {
    const method: TrainMethod =
      run.arm === 'frozen' || run.arm === 'temperature-only' ? 'grpo' : run.arm;
    const config = embeddedTrainConfig({ preset, method, steps });
    const summary = await runTraining({
      // Same tasks and warm start for every run; the RL seed drives sampling and batch order.
      config: {
        ...config,
        ppo: {
          ...config.ppo,
          zeroAdvantageShare,
          ...(run.arm === 'frozen' ? { learningRate: 0 } : {}),
          ...(run.arm === 'temperature-only'
            ? {
                matrixLearningRateScale: 0,
                embeddingLearningRateScale: 0,
                vectorLearningRateScale: 0,
                outputNormUniform: true,
                outputNormLearningRateScale:
                  config.ppo?.outputNormLearningRateScale ?? 100,
              }
            : {}),
        },
        // The interface modules apply to the arms with an environment side.
        ...(overlays !== undefined &&
        (run.arm === 'seal' ||
          run.arm === 'no-reweight' ||
          run.arm === 'no-loop')
          ? { overlays }
          : {}),
        ...(dynamicSampling === undefined ? {} : { dynamicSampling }),
        seed: run.seed,
        runId: `learning-${name}`,
        frozenBaseline: false,
        evalSamples,
        checkpointEvery: 2,
      },
      policy,
      ...(referencePolicy ? { referencePolicy } : {}),
      // Without the note: φ_schema's markers, with whichever other modules --overlays names.
      ...(schemaNote
        ? {}
        : {
            interfaceSettings: {
              ...sealSettingsForModules({
                modules: overlays ?? ['schema'],
                protocol: embeddedEpisode.protocol,
              }),
              schema: { note: null },
            },
          }),
      trainTasks: assets.trainTasks,
      evalSets,
      ...(initialEvaluations ? { initialEvaluations } : {}),
      backend: createBfclBackend({ runtime }),
      verifier: createBfclVerifier({ runtime }),
      runDirectory,
      onProgress: (progress) => {
        if (progress.type === 'step-end') {
          const e = progress.event;
          console.error(
            `${tag(run)} step ${e.step}/${steps}: success ${(100 * e.successRate).toFixed(1)}% (${(e.timing.total / 1000).toFixed(1)} s)`,
          );
        } else if (progress.type === 'eval-end') {
          console.error(
            `${tag(run)} eval step ${progress.step} ${progress.set}: greedy ${(100 * progress.evaluation.accuracy).toFixed(1)}%`,
          );
          if (progress.step === 0 && progress.event.type === 'eval') {
            stepZero.push(progress.event);
            // Once every set is evaluated, the seed's other arms reuse it.
            if (stepZero.length === evalSets.length) {
              const shared: WarmStartEvaluation = {
                seed: run.seed,
                setup,
                events: stepZero,
              };
              sharing = writeJsonAtomic(warmStartFile(run.seed), shared).then(
                () => archive(`warmstart-s${run.seed}`, shared),
              );
            }
          }
        }
      },
    });
    await sharing;
    // A run resumed past step 0 reported no step-0 evaluation: share the recorded one.
    const recordedStepZero = summary.evaluations.filter((e) => e.step === 0);
    if (
      !existsSync(warmStartFile(run.seed)) &&
      recordedStepZero.length === evalSets.length
    ) {
      const shared: WarmStartEvaluation = {
        seed: run.seed,
        setup,
        events: recordedStepZero,
      };
      await writeJsonAtomic(warmStartFile(run.seed), shared);
      await archive(`warmstart-s${run.seed}`, shared);
    }
    const result: RunResult = {
      arm: run.arm,
      seed: run.seed,
      steps: summary.steps,
      evaluations: summary.evaluations,
      seconds: (Date.now() - started) / 1000,
      setup,
      ...(commit === undefined ? {} : { commit }),
    };
    await writeJsonAtomic(resultFileOf(run), result);
    await archive(name, result);
    console.error(
      `${tag(run)} finished in ${formatMinutes(result.seconds)}; ${await progressLine()}`,
    );
  } finally {
    await Promise.all([policy.close(), referencePolicy?.close()]);
  }
}

/** `42 min`, or `3 h 05 min` from an hour on. */
function formatMinutes(seconds: number): string {
  const minutes = Math.round(seconds / 60);
  return minutes < 60
    ? `${minutes} min`
    : `${Math.floor(minutes / 60)} h ${String(minutes % 60).padStart(2, '0')} min`;
}

/**
 * How far the study is: runs finished out of the plan, and the time left
 * at the median time of the finished runs, with `--jobs` runs at once.
 */
async function progressLine(): Promise<string> {
  const seconds: number[] = [];
  for (const run of plan) {
    if (!existsSync(resultFileOf(run))) continue;
    const { seconds: taken } = JSON.parse(
      await readFile(resultFileOf(run), 'utf8'),
    ) as RunResult;
    seconds.push(taken);
  }
  const left = plan.length - seconds.length;
  if (left === 0) return `all ${plan.length} runs done`;
  seconds.sort((a, b) => a - b);
  const median = seconds[Math.floor((seconds.length - 1) / 2)]!;
  const estimate = Math.ceil(left / jobs) * median;
  return `${seconds.length} of ${plan.length} runs done, ${left} left: about ${formatMinutes(estimate)} at ${jobs} at once (the finished runs' median, ${formatMinutes(median)} each)`;
}

/**
 * Runs the plan's unfinished runs in plan order (seed-major), skipping those
 * another worker holds. A run whose seed has no step-0 evaluation yet takes
 * the seed's claim and evaluates it; while another worker evaluates it, the
 * seed's other runs wait and this worker moves on to a later seed. With
 * `--confirm`, a worker with no run to start confirms the finished ones.
 */
async function work(): Promise<void> {
  await mkdir(claimsDirectory, { recursive: true });
  for (;;) {
    let started = false;
    let waiting = false;
    for (const run of plan) {
      if (existsSync(resultFileOf(run))) continue;
      if ((await holder(`run-${nameOf(run)}`)) !== undefined) {
        waiting = true;
        continue;
      }
      const shared = existsSync(warmStartFile(run.seed));
      if (!shared && (await holder(`step0-s${run.seed}`)) !== undefined) {
        waiting = true;
        continue;
      }
      if (!(await take(`run-${nameOf(run)}`))) continue;
      const evaluatesStepZero = !shared && (await take(`step0-s${run.seed}`));
      if (!shared && !evaluatesStepZero) {
        await release(`run-${nameOf(run)}`);
        continue;
      }
      try {
        // Finished by another worker between the check and the claim.
        if (!existsSync(resultFileOf(run))) await executeRun(run);
      } finally {
        await release(`run-${nameOf(run)}`);
        if (evaluatesStepZero) await release(`step0-s${run.seed}`);
      }
      started = true;
      break;
    }
    if (started) continue;
    if (!waiting) break;
    // While another worker holds the last runs, confirm the finished ones.
    if (values.confirm) await confirmFinished();
    await new Promise((done) => setTimeout(done, 5000));
  }
  if (values.confirm) await confirmFinished();
}

if (values.worker) {
  await work();
  process.exit(0);
}
await syncArchive();
await checkRecordedSetups();
if (!values['report-only']) {
  // Claims belong to the invocation that made them: a new one (after a kill
  // or a reboot, when a recorded pid may name another process) starts
  // without any. One invocation at a time works on an output directory.
  await rm(claimsDirectory, { recursive: true, force: true });
  if (jobs === 1) {
    await work();
  } else {
    // Worker processes over the same plan, each on its own cores where taskset exists.
    const perJob = Math.max(1, Math.floor(availableParallelism() / jobs));
    // Pinned only when every worker gets cores of its own.
    const pin =
      jobs <= availableParallelism() &&
      spawnSync('taskset', ['--version'], { stdio: 'ignore' }).status === 0;
    const forwarded = process.argv
      .slice(2)
      .filter((argument) => argument !== '--restart');
    const children = Array.from({ length: jobs }, (_, k) => {
      const command = [
        ...process.execArgv,
        process.argv[1]!,
        ...forwarded,
        '--worker',
        '--threads',
        String(perJob),
      ];
      const cores = `${k * perJob}-${k * perJob + perJob - 1}`;
      return spawn(
        pin ? 'taskset' : process.execPath,
        pin ? ['-c', cores, process.execPath, ...command] : command,
        { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] },
      );
    });
    let stopped = false;
    const stop = () => {
      stopped = true;
      for (const child of children) child.kill('SIGTERM');
    };
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
    const codes = await Promise.all(
      children.map(
        (child) =>
          new Promise<number | string | null>((done) =>
            child.once('exit', (code, signal) => done(code ?? signal)),
          ),
      ),
    );
    if (stopped) {
      console.error(
        'bench learning: stopped; finished runs and checkpoints are kept, and the same command resumes the study',
      );
      process.exit(130);
    }
    if (codes.some((code) => code !== 0)) {
      throw new SealError({
        code: 'INTERNAL',
        message: `bench learning: a worker failed (exit codes ${codes.join(', ')}); finished runs are kept, run the command again to resume`,
      });
    }
  }
}

const results: RunResult[] = [];
for (const run of plan) {
  if (existsSync(resultFileOf(run)))
    results.push(
      JSON.parse(await readFile(resultFileOf(run), 'utf8')) as RunResult,
    );
  else
    console.error(
      `${tag(run)}: not run${values['report-only'] ? ' (--report-only)' : ''}`,
    );
}

// ---- The frozen control ----------------------------------------------------

// Unless it was run, the frozen control of a seed is the warm start's step-0
// evaluation at every evaluation point: its weights never change, and every
// point draws the same sampling streams, so running it would give the same
// verdicts again (decision 0032).
if (!plan.some((run) => run.arm === 'frozen')) {
  for (const seed of seeds) {
    const trained = results.filter((r) => r.seed === seed);
    const stepZero = trained[0]?.evaluations.filter((e) => e.step === 0) ?? [];
    if (stepZero.length === 0) continue;
    const points = [
      ...new Set(trained.flatMap((r) => r.evaluations.map((e) => e.step))),
    ].sort((a, b) => a - b);
    results.push({
      arm: 'frozen',
      seed,
      steps: [],
      evaluations: points.flatMap((step) =>
        stepZero.map((e) => ({ ...e, step })),
      ),
      seconds: 0,
      setup,
      derived: true,
    });
  }
}

// ---- The warm start at its own best temperature ----------------------------

// A sampled gain is compared with the warm start sampled at the temperature
// that is best for it (issue 44): RL that learns only a logit scale would
// otherwise look like learning. The temperature is chosen on validation
// data, every fifth training task (the warm start never trained on the
// training split; no test task is used), with the study's samples per task;
// then each seed's warm start is sampled at it on the test sets, with the
// seed's own sampling streams (those of every run's sampled evaluation).
type TemperatureChoice = {
  setup: typeof setup;
  temperatures: number[];
  validationTasks: number;
  samples: number;
  /** Sampled pass@1 on the validation tasks, per temperature. */
  accuracy: Record<string, number>;
  best: number;
};
type MatchedBaseline = {
  setup: typeof setup;
  seed: number;
  temperature: number;
  /** Per set: per task, the share of its samples that succeeded. */
  taskSuccess: Record<string, Record<string, number>>;
};
const temperatureFile = join(outDirectory, 'warmstart-temperature.json');
const matchedFile = (seed: number): string =>
  join(outDirectory, `warmstart-matched-s${seed}.json`);
const sameSetup = (recorded: unknown): boolean =>
  JSON.stringify(recorded) === JSON.stringify(setup);
let temperatureChoice: TemperatureChoice | undefined;
const matchedBaselines = new Map<number, MatchedBaseline>();
if (evalSamples > 0 && baselineTemperatures.length > 0 && !values.worker) {
  // From --out, or else the archive (a fresh checkout's --report-only).
  const recorded = existsSync(temperatureFile)
    ? (JSON.parse(await readFile(temperatureFile, 'utf8')) as TemperatureChoice)
    : ((await readArchived('warmstart-temperature')) as
        TemperatureChoice | undefined);
  temperatureChoice =
    recorded &&
    sameSetup(recorded.setup) &&
    recorded.temperatures.join(',') === baselineTemperatures.join(',')
      ? recorded
      : undefined;
  const pending =
    !values['report-only'] &&
    (temperatureChoice === undefined ||
      seeds.some((seed) => !existsSync(matchedFile(seed))));
  const policy = pending
    ? await createOrtPolicy({
        model: { directory: assets.warmStartDirectory },
        ...(threads === undefined ? {} : { threads }),
      })
    : undefined;
  try {
    const evaluate = (
      tasks: readonly Task[],
      temperature: number,
      seed: number,
    ) =>
      evaluateLikeRuns({
        policy: policy!,
        tasks,
        temperature,
        samples: evalSamples,
        seed,
      });
    if (temperatureChoice === undefined && policy) {
      const validation = assets.trainTasks.filter((_, i) => i % 5 === 0);
      const accuracy: Record<string, number> = {};
      for (const temperature of baselineTemperatures) {
        const evaluation = await evaluate(
          validation,
          temperature,
          deriveSeed(0, 0x7e3, Math.round(temperature * 1000)),
        );
        accuracy[String(temperature)] = evaluation.accuracy;
        console.error(
          `warm start on validation (${validation.length} training tasks × ${evalSamples} samples) at T = ${temperature}: ${(100 * evaluation.accuracy).toFixed(1)}%`,
        );
      }
      // The best; on a tie, the temperature nearest 1 (the plain sampler).
      const best = [...baselineTemperatures].sort(
        (a, b) =>
          accuracy[String(b)]! - accuracy[String(a)]! ||
          Math.abs(a - 1) - Math.abs(b - 1),
      )[0]!;
      temperatureChoice = {
        setup,
        temperatures: baselineTemperatures,
        validationTasks: validation.length,
        samples: evalSamples,
        accuracy,
        best,
      };
      await writeJsonAtomic(temperatureFile, temperatureChoice);
      await archive('warmstart-temperature', temperatureChoice);
    }
    if (temperatureChoice) {
      for (const seed of seeds) {
        const file = matchedFile(seed);
        const recordedBaseline = existsSync(file)
          ? (JSON.parse(await readFile(file, 'utf8')) as MatchedBaseline)
          : ((await readArchived(`warmstart-matched-s${seed}`)) as
              MatchedBaseline | undefined);
        if (
          recordedBaseline &&
          sameSetup(recordedBaseline.setup) &&
          recordedBaseline.temperature === temperatureChoice.best
        ) {
          matchedBaselines.set(seed, recordedBaseline);
          continue;
        }
        if (!policy) continue;
        const taskSuccess: MatchedBaseline['taskSuccess'] = {};
        for (const set of evalSets) {
          // The sampling streams of every run's sampled evaluation of this seed.
          const evaluation = await evaluate(
            set.tasks,
            temperatureChoice.best,
            deriveSeed(seed, 0xe7a2, 0),
          );
          taskSuccess[set.name] = evaluation.taskSuccess;
          console.error(
            `warm start, seed ${seed}, ${set.name}, sampled at T = ${temperatureChoice.best}: ${(100 * evaluation.accuracy).toFixed(1)}%`,
          );
        }
        const baseline: MatchedBaseline = {
          setup,
          seed,
          temperature: temperatureChoice.best,
          taskSuccess,
        };
        await writeJsonAtomic(file, baseline);
        await archive(`warmstart-matched-s${seed}`, baseline);
        matchedBaselines.set(seed, baseline);
      }
    }
  } finally {
    await policy?.close();
  }
}

// Kept with the study's archive, so that `--report-only` on another checkout
// prints the temperature-matched column too (studies recorded before this
// archived only their runs).
if (archiveDirectory !== undefined && !values.worker) {
  if (
    temperatureChoice !== undefined &&
    !existsSync(archiveFileOf('warmstart-temperature'))
  )
    await archive('warmstart-temperature', temperatureChoice);
  for (const [seed, baseline] of matchedBaselines)
    if (!existsSync(archiveFileOf(`warmstart-matched-s${seed}`)))
      await archive(`warmstart-matched-s${seed}`, baseline);
}

/** Per (seed, task) cell of a set, the warm start sampled at its best temperature. */
function matchedCells(set: string): Map<string, number> | undefined {
  if (matchedBaselines.size === 0) return undefined;
  const map = new Map<string, number>();
  for (const [seed, baseline] of matchedBaselines)
    for (const [task, value] of Object.entries(baseline.taskSuccess[set] ?? {}))
      map.set(`${seed}:${task}`, value);
  return map;
}

if (values.confirm && !values.worker) {
  // Workers confirm each run as the study goes (greedy and sampled); what is
  // left (a study with one job, runs finished before --confirm, the warm
  // start at its validation-best temperature, known only now) is done here.
  const models = [
    ...seeds.map((seed): Run => ({ arm: 'frozen', seed })),
    // A frozen run has the warm start's weights: its confirmation is the warm start's.
    ...results
      .filter((r) => !r.derived && r.arm !== 'frozen')
      .map((r): Run => ({ arm: r.arm, seed: r.seed })),
  ];
  let missing = 0;
  for (const model of models) {
    const recorded = await recordedConfirmation(model.arm, model.seed);
    const matchedTemperature =
      model.arm === 'frozen' ? temperatureChoice?.best : undefined;
    if (
      recorded &&
      (matchedTemperature === undefined ||
        Object.values(recorded.sets).every(
          (set) => set.matched?.temperature === matchedTemperature,
        ))
    ) {
      confirmations.push(recorded);
      continue;
    }
    if (values['report-only']) {
      missing++;
      if (recorded) confirmations.push(recorded);
      continue;
    }
    const made = await confirmModel({
      model,
      ...(recorded === undefined ? {} : { recorded }),
      ...(matchedTemperature === undefined ? {} : { matchedTemperature }),
    });
    if (made) confirmations.push(made);
    else missing++;
  }
  if (missing > 0)
    console.error(
      `bench learning: ${missing} model${missing > 1 ? 's' : ''} not (fully) evaluated on the confirmation suite${values['report-only'] ? ' (--report-only; run the study with --confirm)' : ''}`,
    );
}

// ---- The table -------------------------------------------------------------

const sets = evalSets.map((set) => set.name);
type Measure = 'greedy' | 'sampled';
const finalEval = (result: RunResult, set: string): EvalEvent | undefined =>
  result.evaluations.filter((e) => e.set === set).at(-1);
const successOf = (
  event: EvalEvent | undefined,
  measure: Measure,
): Record<string, number> | undefined =>
  measure === 'greedy' ? event?.taskSuccess : event?.sampled?.taskSuccess;
const accuracyOf = (
  event: EvalEvent | undefined,
  measure: Measure,
): number | undefined => {
  const success = successOf(event, measure);
  if (!success) return undefined;
  const values = Object.values(success);
  return values.reduce((a, b) => a + b, 0) / Math.max(1, values.length);
};

/** Per (seed, task) cell, an arm's final success under a measure. */
function cells(
  arm: Arm,
  set: string,
  measure: Measure,
  step?: number,
  from: readonly RunResult[] = results,
): Map<string, number> {
  const map = new Map<string, number>();
  for (const result of from.filter((r) => r.arm === arm)) {
    const event =
      step === undefined
        ? finalEval(result, set)
        : result.evaluations.find((e) => e.set === set && e.step === step);
    for (const [task, value] of Object.entries(successOf(event, measure) ?? {}))
      map.set(`${result.seed}:${task}`, value);
  }
  return map;
}

/** The cells whose task is of `category`. */
const categoryOf = new Map(
  evalSets.flatMap((set) =>
    set.tasks.map((task) => [task.id, task.category] as const),
  ),
);
function ofCategory(
  map: Map<string, number>,
  category: string,
): Map<string, number> {
  return new Map(
    [...map].filter(
      ([key]) => categoryOf.get(key.slice(key.indexOf(':') + 1)) === category,
    ),
  );
}

/** One seed's paired cells of two arms: `after` is the arm's, `before` the baseline's, over `tasks` (sorted). */
type SeedCluster = { before: number[]; after: number[]; tasks: string[] };

/** The paired cells of two arms grouped by seed: one cluster per training run. */
function clustersBySeed(
  a: Map<string, number>,
  b: Map<string, number>,
): SeedCluster[] {
  const bySeed = new Map<string, SeedCluster>();
  for (const key of [...a.keys()].filter((k) => b.has(k)).sort()) {
    const colon = key.indexOf(':');
    const seed = key.slice(0, colon);
    const cluster = bySeed.get(seed) ?? { before: [], after: [], tasks: [] };
    cluster.before.push(b.get(key)!);
    cluster.after.push(a.get(key)!);
    cluster.tasks.push(key.slice(colon + 1));
    bySeed.set(seed, cluster);
  }
  return [...bySeed.values()];
}

const signedPoints = (value: number): string =>
  `${value >= 0 ? '+' : ''}${(100 * value).toFixed(1)}`;

/**
 * A paired difference pooled over seeds × held-out tasks, in points: the
 * crossed two-way bootstrap 95% interval (seeds and tasks resampled
 * independently: every seed is scored on the same tasks) and, after "t",
 * the 95% t-interval over the per-seed gains (n/a with one seed). Seeds
 * scored on different tasks are not crossed: the nested two-stage interval,
 * marked so. '–' when nothing pairs.
 */
function pooledDifference(clusters: readonly SeedCluster[]): string {
  if (clusters.length === 0) return '–';
  const first = clusters[0]!.tasks.join('\n');
  if (!clusters.every((cluster) => cluster.tasks.join('\n') === first))
    return `${formatPoints(clusteredPairedBootstrap({ clusters, seed: 17 }))} (nested)`;
  const { crossed, tInterval } = compareCrossed({ rows: clusters, seed: 17 });
  return `${formatPoints(crossed)}; t ${tInterval ? `[${signedPoints(tInterval.low)}, ${signedPoints(tInterval.high)}]` : 'n/a'}`;
}

function meanAndError(values: number[]): string {
  if (values.length === 0) return '–';
  const mean = values.reduce((a, b) => a + b, 0) / values.length;
  const error =
    values.length > 1
      ? sampleStandardDeviation(values) / Math.sqrt(values.length)
      : 0;
  return `${(100 * mean).toFixed(1)} ± ${(100 * error).toFixed(1)}`;
}

const present = arms.filter((arm) => results.some((r) => r.arm === arm));

/**
 * The cells `arm` is compared with: `other`'s, or, for a frozen control that
 * was not run, each run's own step-0 evaluation (the warm start, same seed
 * and tasks). Undefined when `other` is absent.
 */
function baselineCells({
  arm,
  other,
  set,
  measure,
}: {
  arm: Arm;
  other: Arm;
  set: string;
  measure: Measure;
}): Map<string, number> | undefined {
  if (other === 'frozen' && !present.includes('frozen'))
    return cells(arm, set, measure, 0);
  return present.includes(other) ? cells(other, set, measure) : undefined;
}

/** `arm − other` in points with its crossed two-way interval and t-interval, over the cells `select` keeps. */
function difference({
  arm,
  other,
  set,
  measure,
  select = (map) => map,
}: {
  arm: Arm;
  other: Arm;
  set: string;
  measure: Measure;
  select?: (map: Map<string, number>) => Map<string, number>;
}): string {
  if (other === arm) return '–';
  const baseline = baselineCells({ arm, other, set, measure });
  if (baseline === undefined) return '–';
  const clusters = clustersBySeed(
    select(cells(arm, set, measure)),
    select(baseline),
  );
  return pooledDifference(clusters);
}

const lines: string[] = [];
// Greedy first: it is the primary measure (issue 44); sampled beside it.
const measures: Measure[] = ['greedy', 'sampled'];
/** What a sampled difference against the warm start compares: both at T = 1, not matched. */
const samplingNote =
  temperatureChoice === undefined
    ? `arm − ${present.includes('frozen') ? 'frozen' : 'warm start'} is sampled at T=1 vs warm start at T=1, not temperature-matched: no warm-start temperature was chosen on validation data`
    : `the last column compares with the warm start sampled at T = ${temperatureChoice.best}, its best on validation data (${temperatureChoice.validationTasks} training tasks; ${Object.entries(
        temperatureChoice.accuracy,
      )
        .map(([t, a]) => `T ${t}: ${(100 * a).toFixed(1)}%`)
        .join(', ')})`;
for (const set of sets) {
  for (const measure of measures) {
    lines.push(
      '',
      `**${set}, ${measure === 'sampled' ? `sampled pass@1 (${evalSamples} samples at T = 1; ${samplingNote})` : 'greedy pass@1'}** — final success, mean over seeds ± s.e.; paired differences in points: crossed two-way bootstrap 95% interval (seeds and tasks resampled independently), then "t": the 95% t-interval over the per-seed gains`,
      '',
    );
    const matched =
      measure === 'sampled' && temperatureChoice !== undefined
        ? matchedCells(set)
        : undefined;
    lines.push(
      `| arm | seeds | warm start | final | arm − GRPO | arm − ${present.includes('frozen') ? 'frozen' : 'warm start (its step 0)'} |${matched ? ` arm − warm start at T = ${temperatureChoice!.best} |` : ''}`,
    );
    lines.push(
      `| --- | ---: | ---: | ---: | ---: | ---: |${matched ? ' ---: |' : ''}`,
    );
    for (const arm of present) {
      const runs = results.filter((r) => r.arm === arm);
      const initial = runs
        .map((r) =>
          accuracyOf(
            r.evaluations.find((e) => e.set === set && e.step === 0),
            measure,
          ),
        )
        .filter((v): v is number => v !== undefined);
      const finals = runs
        .map((r) => accuracyOf(finalEval(r, set), measure))
        .filter((v): v is number => v !== undefined);
      const versus = (other: Arm): string =>
        difference({ arm, other, set, measure });
      const versusMatched = matched
        ? ` ${pooledDifference(clustersBySeed(cells(arm, set, measure), matched))} |`
        : '';
      lines.push(
        `| ${arm} | ${runs.length} | ${meanAndError(initial)} | ${meanAndError(finals)} | ${versus('grpo')} | ${versus('frozen')} |${versusMatched}`,
      );
    }
    // The design's minimum detectable effect, from the crossed standard error of
    // two arms' paired (seed, task) differences (GRPO and the frozen control when
    // both ran): 2.8 × SE at power 0.8, two-sided α = 0.05.
    const [a, b] =
      present.includes('grpo') && present.includes('frozen')
        ? (['grpo', 'frozen'] as const)
        : [present[0], present[1]];
    const baseline =
      a && b ? baselineCells({ arm: a, other: b, set, measure }) : undefined;
    if (a && b && baseline) {
      const clusters = clustersBySeed(cells(a, set, measure), baseline);
      const first = clusters[0]?.tasks.join('\n');
      const crossed =
        clusters.length > 0 &&
        clusters.every((cluster) => cluster.tasks.join('\n') === first)
          ? compareCrossed({ rows: clusters, seed: 17 })
          : undefined;
      lines.push(
        '',
        crossed === undefined
          ? `minimum detectable effect: not estimable (the seeds of ${a} − ${b} are not scored on the same tasks)`
          : crossed.minimumDetectableEffect === undefined
            ? `minimum detectable effect: not estimable (the paired ${a} − ${b} differences do not vary over ${crossed.crossed.n} cells)`
            : `minimum detectable effect (power 0.8, two-sided α = 0.05): ${(100 * crossed.minimumDetectableEffect).toFixed(1)} points (2.8 × the two-way standard error ${(100 * crossed.crossed.standardError).toFixed(1)} of ${a} − ${b}, ${crossed.crossed.seeds} seeds × ${crossed.crossed.tasks} tasks)`,
      );
      // The same over runs: each seed's mean difference, t with seeds − 1 degrees of freedom.
      const runDifferences = clusters.map(
        (cluster) =>
          cluster.after.reduce(
            (sum, value, i) => sum + value - cluster.before[i]!,
            0,
          ) / cluster.after.length,
      );
      const overRuns = minimumDetectableEffectOverRuns({ runDifferences });
      lines.push(
        overRuns === undefined
          ? `minimum detectable effect over runs: needs two seeds (${runDifferences.length} so far)`
          : overRuns === 0
            ? `minimum detectable effect over runs: not estimable (the per-seed ${a} − ${b} means do not vary)`
            : `minimum detectable effect over runs (t on the per-seed means, α = 0.05, power 0.8): ${(100 * overRuns).toFixed(1)} points (${runDifferences.length} seeds, sd of the per-seed ${a} − ${b} means ${sampleStandardDeviation(runDifferences).toFixed(3)})`,
      );
    }
  }
}
// Where the gains come from, category by category. SEAL's tags name the
// failures of particular categories (a value to ask for, a function to wait
// for), so an effect of its environment-side cues should show there first.
const trained = present.filter((arm) => arm !== 'frozen');
for (const set of sets) {
  const categories = [
    ...new Set(
      evalSets
        .find((s) => s.name === set)
        ?.tasks.map((task) => task.category) ?? [],
    ),
  ];
  for (const measure of measures) {
    lines.push(
      '',
      `**${set}, ${measure === 'sampled' ? 'sampled pass@1' : 'greedy pass@1'}, by category** — arm − frozen in points, crossed two-way bootstrap 95% intervals; t: over the per-seed gains`,
      '',
    );
    lines.push(
      `| arm | ${categories.join(' | ')} |`,
      `| --- |${categories.map(() => ' ---: |').join('')}`,
    );
    for (const arm of trained) {
      lines.push(
        `| ${arm} | ${categories.map((category) => difference({ arm, other: 'frozen', set, measure, select: (map) => ofCategory(map, category) })).join(' | ')} |`,
      );
    }
  }
}

// Run by run: each seed's mean paired difference. The pooled intervals
// above are as wide as these disagree; this shows where they do.
const studySeeds = [...new Set(results.map((r) => r.seed))].sort(
  (a, b) => a - b,
);
/** The mean of `arm − other` over one seed's paired cells, in points, or '–'. */
function seedDifference({
  arm,
  other,
  set,
  measure,
  seed,
}: {
  arm: Arm;
  other: Arm;
  set: string;
  measure: Measure;
  seed: number;
}): string {
  const baseline = baselineCells({ arm, other, set, measure });
  if (baseline === undefined) return '–';
  const mine = cells(arm, set, measure);
  const keys = [...mine.keys()].filter(
    (key) => key.startsWith(`${seed}:`) && baseline.has(key),
  );
  if (keys.length === 0) return '–';
  const mean =
    keys.reduce((sum, key) => sum + mine.get(key)! - baseline.get(key)!, 0) /
    keys.length;
  return `${mean >= 0 ? '+' : '−'}${Math.abs(100 * mean).toFixed(1)}`;
}
if (studySeeds.length > 1) {
  for (const set of sets) {
    for (const measure of measures) {
      lines.push(
        '',
        `**${set}, ${measure === 'sampled' ? 'sampled pass@1' : 'greedy'}, seed by seed** — mean paired difference in points, arm − frozen (arm − GRPO)`,
        '',
      );
      lines.push(
        `| arm | ${studySeeds.map((seed) => `seed ${seed}`).join(' | ')} |`,
        `| --- |${studySeeds.map(() => ' ---: |').join('')}`,
      );
      for (const arm of trained) {
        const cell = (seed: number): string => {
          const versusFrozen = seedDifference({
            arm,
            other: 'frozen',
            set,
            measure,
            seed,
          });
          const versusGrpo =
            arm === 'grpo'
              ? '–'
              : seedDifference({ arm, other: 'grpo', set, measure, seed });
          return versusGrpo === '–'
            ? versusFrozen
            : `${versusFrozen} (${versusGrpo})`;
        };
        lines.push(`| ${arm} | ${studySeeds.map(cell).join(' | ')} |`);
      }
    }
  }
}

// ---- Training on the same tasks --------------------------------------------

// A seed's arms train on the same tasks at every step (the batch order
// depends on the seed; Environment Tuning's curriculum draws its own), and
// at step 1 from the same policy. Their training success, paired by (seed,
// step, task), shows what the training interface does to the policy before
// any held-out evaluation: an arm whose cues help should succeed more often
// in training, even where that does not carry over to the untouched interface.
const trainingCategoryOf = new Map(
  assets.trainTasks.map((task) => [task.id, task.category] as const),
);
const categoryOfTask = (taskId: string): string =>
  trainingCategoryOf.get(taskId) ?? categoryOf.get(taskId) ?? 'other';
/** Per (seed, step, task) cell, the share of an arm's rollouts of the task that succeeded. */
function trainingCells(
  arm: Arm,
  from: readonly RunResult[] = results,
): Map<string, number> {
  const map = new Map<string, number>();
  for (const result of from.filter((r) => r.arm === arm && !r.derived)) {
    for (const event of result.steps) {
      const byTask = new Map<string, { success: number; count: number }>();
      for (const sample of event.samples ?? []) {
        const entry = byTask.get(sample.taskId) ?? { success: 0, count: 0 };
        entry.success += sample.success ? 1 : 0;
        entry.count += 1;
        byTask.set(sample.taskId, entry);
      }
      for (const [task, { success, count }] of byTask)
        map.set(`${result.seed}:${event.step}:${task}`, success / count);
    }
  }
  return map;
}
const trainingCategory = (key: string): string =>
  categoryOfTask(key.slice(key.lastIndexOf(':') + 1));
/**
 * Training success of `mine` − `theirs` in points over their paired cells
 * (of one category, or all), with its two-stage bootstrap interval and the
 * number of cells; '–' when none pair.
 */
function pairedTrainingCell(
  mine: Map<string, number>,
  theirs: Map<string, number>,
  category?: string,
): string {
  const keep = (map: Map<string, number>) =>
    category === undefined
      ? map
      : new Map([...map].filter(([key]) => trainingCategory(key) === category));
  const clusters = clustersBySeed(keep(mine), keep(theirs));
  const n = clusters.reduce((sum, cluster) => sum + cluster.after.length, 0);
  return n === 0
    ? '–'
    : `${formatPoints(clusteredPairedBootstrap({ clusters, seed: 17 }))} (${n})`;
}
if (present.includes('grpo')) {
  const grpoCells = trainingCells('grpo');
  const trainingCategories = [
    ...new Set([...grpoCells.keys()].map(trainingCategory)),
  ].sort();
  lines.push(
    '',
    '**Training success on the same tasks** — arm − GRPO in points, paired by (seed, step, task), 95% two-stage bootstrap intervals (seeds, then cells); the paired cells in brackets',
    '',
  );
  lines.push(
    `| arm | all | ${trainingCategories.join(' | ')} |`,
    `| --- | ---: |${trainingCategories.map(() => ' ---: |').join('')}`,
  );
  for (const arm of trained.filter((a) => a !== 'grpo')) {
    const mine = trainingCells(arm);
    const cell = (category?: string): string =>
      pairedTrainingCell(mine, grpoCells, category);
    lines.push(
      `| ${arm} | ${cell()} | ${trainingCategories.map(cell).join(' | ')} |`,
    );
  }
  // Which failures the training interface moves: the verifier's tags per training episode.
  for (const category of trainingCategories) {
    const rates = new Map<Arm, Map<string, number>>();
    for (const arm of trained) {
      const counts = new Map<string, number>();
      let episodes = 0;
      for (const result of results.filter((r) => r.arm === arm && !r.derived)) {
        for (const sample of result.steps.flatMap(
          (event) => event.samples ?? [],
        )) {
          if (categoryOfTask(sample.taskId) !== category) continue;
          episodes++;
          for (const tagName of sample.tags)
            counts.set(tagName, (counts.get(tagName) ?? 0) + 1);
        }
      }
      if (episodes > 0)
        rates.set(
          arm,
          new Map(
            [...counts].map(([tagName, count]) => [tagName, count / episodes]),
          ),
        );
    }
    const tags = [
      ...new Set([...rates.values()].flatMap((map) => [...map.keys()])),
    ]
      .filter((tagName) => tagName !== 'pass')
      .sort();
    lines.push(
      '',
      `**Training tags per episode, ${category}** — each arm's rollouts over all its seeds and steps`,
      '',
    );
    lines.push(
      `| arm | ${tags.join(' | ')} |`,
      `| --- |${tags.map(() => ' ---: |').join('')}`,
    );
    for (const [arm, map] of rates)
      lines.push(
        `| ${arm} | ${tags.map((tagName) => (map.get(tagName) ?? 0).toFixed(2)).join(' | ')} |`,
      );
  }
}

const episodes = steps * preset.rl.tasksPerStep * preset.rl.groupSize;
const evalSizes = evalSets
  .map((set) => `${set.name} ${set.tasks.length}`)
  .join(', ');
console.log(
  `\nbench learning: preset ${preset.name}, ${steps} steps × ${preset.rl.tasksPerStep} tasks × ${preset.rl.groupSize} rollouts = ${episodes} RL episodes per run, eval sets ${evalSizes}, ${results.filter((r) => !r.derived).length} runs, ${((Date.now() - studyStarted) / 60000).toFixed(1)} min this invocation`,
);
if (results.some((r) => r.derived))
  lines.push(
    '',
    "frozen: the warm start's step-0 evaluation of each seed at every point (common random numbers; not run, decision 0032)",
  );
const commits = [
  ...new Set(
    results.flatMap((r) => (r.commit === undefined ? [] : [r.commit])),
  ),
];
if (commits.length > 0)
  lines.push(
    '',
    `runs made at commit${commits.length > 1 ? 's' : ''} ${commits.join(', ')}`,
  );

// ---- The confirmation suite's table (--confirm) ----------------------------

if (confirmations.length > 0) {
  type ConfirmedMeasure = 'greedy' | 'sampled' | 'matched';
  /** Per (seed, task) cell, an arm's success on a confirmation set (`frozen`: the warm start). */
  const confirmedCells = (
    arm: Arm,
    set: string,
    measure: ConfirmedMeasure,
  ): Map<string, number> => {
    const map = new Map<string, number>();
    for (const confirmation of confirmations.filter((c) => c.arm === arm)) {
      const entry = confirmation.sets[set];
      const success =
        measure === 'matched' ? entry?.matched?.taskSuccess : entry?.[measure];
      for (const [task, value] of Object.entries(success ?? {}))
        map.set(`${confirmation.seed}:${task}`, value);
    }
    return map;
  };
  const meanOf = (map: Map<string, number>): string => {
    const bySeed = new Map<string, number[]>();
    for (const [key, value] of map) {
      const seed = key.slice(0, key.indexOf(':'));
      bySeed.set(seed, [...(bySeed.get(seed) ?? []), value]);
    }
    return meanAndError(
      [...bySeed.values()].map(
        (values) => values.reduce((a, b) => a + b, 0) / values.length,
      ),
    );
  };
  const confirmedArms = arms.filter(
    (arm) => arm !== 'frozen' && confirmations.some((c) => c.arm === arm),
  );
  const temperature = confirmations.find((c) => c.arm === 'frozen')?.sets[
    sets[0]!
  ]?.matched?.temperature;
  const confirmSizes = Object.keys(confirmations[0]!.sets)
    .map(
      (set) =>
        `${Object.keys(confirmations[0]!.sets[set]!.greedy).length} ${set}`,
    )
    .join(', ');
  lines.push(
    '',
    `**Confirmation suite** (generator seed ${confirmationSuiteSeed}: ${confirmSizes} tasks, none of the development suite's; each run's final checkpoint and each seed's warm start evaluated once with the seed's streams)`,
  );
  for (const set of sets) {
    for (const measure of ['greedy', 'sampled'] as const) {
      const warm = confirmedCells('frozen', set, measure);
      if (warm.size === 0) continue;
      const matched =
        measure === 'sampled'
          ? confirmedCells('frozen', set, 'matched')
          : undefined;
      const withMatched = matched !== undefined && matched.size > 0;
      lines.push(
        '',
        `**confirmation ${set}, ${measure === 'greedy' ? 'greedy pass@1' : `sampled pass@1 (${evalSamples} samples at T = 1)`}** — mean over seeds ± s.e.; paired differences in points: crossed two-way bootstrap 95% interval, then "t": the 95% t-interval over the per-seed gains`,
        '',
        `| arm | seeds | warm start | final | arm − warm start | arm − GRPO | arm − temperature-only |${withMatched ? ` arm − warm start at T = ${temperature} |` : ''}`,
        `| --- | ---: | ---: | ---: | ---: | ---: | ---: |${withMatched ? ' ---: |' : ''}`,
      );
      for (const arm of confirmedArms) {
        const mine = confirmedCells(arm, set, measure);
        const versus = (other: Arm): string => {
          if (other === arm) return '–';
          const theirs =
            other === 'frozen' ? warm : confirmedCells(other, set, measure);
          return theirs.size === 0
            ? '–'
            : pooledDifference(clustersBySeed(mine, theirs));
        };
        const seedsOf = new Set(
          [...mine.keys()].map((key) => key.slice(0, key.indexOf(':'))),
        );
        const paired = new Map([...warm].filter(([key]) => mine.has(key)));
        lines.push(
          `| ${arm} | ${seedsOf.size} | ${meanOf(paired)} | ${meanOf(mine)} | ${versus('frozen')} | ${versus('grpo')} | ${versus('temperature-only')} |${withMatched ? ` ${pooledDifference(clustersBySeed(mine, matched))} |` : ''}`,
        );
      }
      // The design's minimum detectable effect on this suite: GRPO − warm start (or the first arm's).
      const reference = confirmedArms.includes('grpo')
        ? 'grpo'
        : confirmedArms[0];
      if (reference !== undefined) {
        const clusters = clustersBySeed(
          confirmedCells(reference, set, measure),
          warm,
        );
        const crossed =
          clusters.length > 0
            ? compareCrossed({ rows: clusters, seed: 17 })
            : undefined;
        if (crossed?.minimumDetectableEffect !== undefined)
          lines.push(
            '',
            `minimum detectable effect (power 0.8, two-sided α = 0.05): ${(100 * crossed.minimumDetectableEffect).toFixed(1)} points (2.8 × the two-way standard error of ${reference} − warm start, ${crossed.crossed.seeds} seeds × ${crossed.crossed.tasks} tasks)`,
          );
      }
    }
  }
  const confirmCommits = [
    ...new Set(confirmations.flatMap((c) => (c.commit ? [c.commit] : []))),
  ];
  if (confirmCommits.length > 0)
    lines.push(
      '',
      `confirmation evaluated at commit${confirmCommits.length > 1 ? 's' : ''} ${confirmCommits.join(', ')}`,
    );
}

// ---- One setting against another (--against) ------------------------------

if (values.against !== undefined)
  lines.push(...(await compareAgainst(resolve(values.against))));

/**
 * Each arm of this study minus the same arm of the study in `directory`,
 * paired by seed and task, with two-stage intervals. The two must share
 * their step-0 evaluations (same warm start, seeds, tasks and streams);
 * otherwise their cells are not paired and this says so instead.
 */
async function compareAgainst(directory: string): Promise<string[]> {
  // The same arms and seeds there, and that study's GRPO (the baseline of an
  // arm run only here, say SEAL with other modules).
  const other: RunResult[] = [];
  const wanted = [
    ...plan,
    ...seeds
      .map((seed): Run => ({ arm: 'grpo', seed }))
      .filter((run) => !plan.some((p) => nameOf(p) === nameOf(run))),
  ];
  for (const run of wanted) {
    const file = join(directory, nameOf(run), 'result.json');
    if (existsSync(file))
      other.push(JSON.parse(await readFile(file, 'utf8')) as RunResult);
  }
  const out = ['', `**This study (${outDirectory}) against ${directory}**`];
  if (other.length === 0)
    return [...out, '', `no finished runs of this plan in ${directory}`];
  const differs = setupDifferences(setup, other[0]!.setup);
  out.push(
    '',
    `setups differ in: ${differs.length === 0 ? 'nothing (the same setting twice)' : differs.join(', ')}`,
  );
  // Common random numbers: the same warm start and seed give the same step-0 verdicts.
  const unpaired = seeds.filter((seed) => {
    const mine = results.find((r) => r.seed === seed && !r.derived);
    const theirs = other.find((r) => r.seed === seed);
    if (mine === undefined || theirs === undefined) return false;
    const stepZero = (result: RunResult) =>
      JSON.stringify(
        result.evaluations
          .filter((e) => e.step === 0)
          .map((e) => [e.set, e.taskSuccess, e.sampled?.taskSuccess]),
      );
    return stepZero(mine) !== stepZero(theirs);
  });
  if (unpaired.length > 0) {
    return [
      ...out,
      '',
      `not compared: the step-0 evaluations of seed${unpaired.length > 1 ? 's' : ''} ${unpaired.join(', ')} differ, so the two studies did not start from the same warm start and streams`,
    ];
  }
  for (const set of sets) {
    out.push(
      '',
      `**${set}** — final success (mean over seeds); this − that in points, crossed two-way bootstrap 95% intervals; t: over the per-seed gains`,
      '',
    );
    const againstGrpo = other.some((r) => r.arm === 'grpo');
    out.push(
      `| arm | seeds | greedy: this / that | greedy: this − that |${againstGrpo ? ' greedy: this − that GRPO |' : ''} sampled: this / that | sampled: this − that |${againstGrpo ? ' sampled: this − that GRPO |' : ''}`,
      `| --- | ---: | ---: | ---: |${againstGrpo ? ' ---: |' : ''} ---: | ---: |${againstGrpo ? ' ---: |' : ''}`,
    );
    for (const arm of present.filter(
      (a) =>
        a !== 'frozen' && other.some((r) => r.arm === a || r.arm === 'grpo'),
    )) {
      const row: string[] = [arm];
      const mine = cells(arm, set, 'sampled');
      const theirs = cells(arm, set, 'sampled', undefined, other);
      row.push(
        String(
          new Set(
            [...mine.keys()]
              .filter((key) => theirs.has(key))
              .map((key) => key.slice(0, key.indexOf(':'))),
          ).size,
        ),
      );
      for (const measure of measures) {
        const a = cells(arm, set, measure);
        const b = cells(arm, set, measure, undefined, other);
        const clusters = clustersBySeed(a, b);
        const mean = (map: Map<string, number>): string => {
          const paired = [...map]
            .filter(([key]) => a.has(key) && b.has(key))
            .map(([, value]) => value);
          return paired.length === 0
            ? '–'
            : `${((100 * paired.reduce((x, y) => x + y, 0)) / paired.length).toFixed(1)}%`;
        };
        row.push(`${mean(a)} / ${mean(b)}`, pooledDifference(clusters));
        // Against the other study's GRPO: an arm run only here (say SEAL with other modules) still has its baseline.
        if (againstGrpo) {
          const grpoClusters = clustersBySeed(
            a,
            cells('grpo', set, measure, undefined, other),
          );
          row.push(pooledDifference(grpoClusters));
        }
      }
      out.push(`| ${row.join(' | ')} |`);
    }
  }
  // Training success on the same tasks, paired by (seed, step, task): what
  // the setting changes on the training interface itself.
  const theirGrpo = trainingCells('grpo', other);
  // Each arm's cells once: they feed the filter, the categories and the rows.
  const myCells = present
    .filter((a) => a !== 'frozen')
    .map((arm) => [arm, trainingCells(arm)] as const)
    .filter(([, cells]) => cells.size > 0);
  if (myCells.length > 0) {
    const categories = [
      ...new Set([...myCells[0]![1].keys()].map(trainingCategory)),
    ].sort();
    out.push(
      '',
      '**Training success on the same tasks** — this − that in points, paired by (seed, step, task), 95% two-stage bootstrap intervals; the paired cells in brackets',
      '',
      `| arm | against | all | ${categories.join(' | ')} |`,
      `| --- | --- | ---: |${categories.map(() => ' ---: |').join('')}`,
    );
    for (const [arm, mine] of myCells) {
      const baselines: Array<[string, Map<string, number>]> = [
        [`that ${arm}`, trainingCells(arm, other)],
        ...(arm === 'grpo'
          ? []
          : [['that grpo', theirGrpo] as [string, Map<string, number>]]),
      ];
      for (const [name, theirs] of baselines) {
        if (theirs.size === 0) continue;
        const cell = (category?: string): string =>
          pairedTrainingCell(mine, theirs, category);
        out.push(
          `| ${arm} | ${name} | ${cell()} | ${categories.map(cell).join(' | ')} |`,
        );
      }
    }
  }
  return out;
}
console.log(lines.join('\n'));

// ---- Curves (SVG) ---------------------------------------------------------

const methods: string[] = present;
const label = (result: RunResult): string => result.arm;
const palette: Record<string, string> = {
  frozen: '#999999',
  seal: '#1b6ac9',
  grpo: '#d1495b',
  'no-env': '#66a182',
  'no-reweight': '#edae49',
  'no-loop': '#8d6a9f',
  envtuning: '#444444',
};

function curveSvg({
  title,
  series,
}: {
  title: string;
  series: { name: string; points: [number, number][] }[];
}): string {
  const width = 640;
  const height = 360;
  const m = { left: 56, right: 150, top: 36, bottom: 44 };
  const maxX = Math.max(1, ...series.flatMap((s) => s.points.map(([x]) => x)));
  const maxY = Math.max(
    0.05,
    ...series.flatMap((s) => s.points.map(([, y]) => y)),
  );
  const top = Math.min(1, Math.ceil(maxY * 10) / 10);
  const x = (v: number) => m.left + (v / maxX) * (width - m.left - m.right);
  const y = (v: number) =>
    height - m.bottom - (v / top) * (height - m.top - m.bottom);
  const parts: string[] = [];
  parts.push(
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" font-family="sans-serif" font-size="12">`,
  );
  parts.push(`<rect width="${width}" height="${height}" fill="white"/>`);
  parts.push(
    `<text x="${m.left}" y="20" font-size="14" font-weight="bold">${title}</text>`,
  );
  for (let i = 0; i <= 5; i++) {
    const v = (top * i) / 5;
    parts.push(
      `<line x1="${m.left}" x2="${width - m.right}" y1="${y(v)}" y2="${y(v)}" stroke="#e5e5e5"/>`,
    );
    parts.push(
      `<text x="${m.left - 6}" y="${y(v) + 4}" text-anchor="end">${(100 * v).toFixed(0)}%</text>`,
    );
  }
  for (let i = 0; i <= 4; i++) {
    const v = Math.round((maxX * i) / 4);
    parts.push(
      `<text x="${x(v)}" y="${height - m.bottom + 16}" text-anchor="middle">${v}</text>`,
    );
  }
  parts.push(
    `<text x="${(m.left + width - m.right) / 2}" y="${height - 8}" text-anchor="middle">RL step</text>`,
  );
  parts.push(
    `<line x1="${m.left}" x2="${m.left}" y1="${m.top}" y2="${height - m.bottom}" stroke="#888"/>`,
  );
  parts.push(
    `<line x1="${m.left}" x2="${width - m.right}" y1="${height - m.bottom}" y2="${height - m.bottom}" stroke="#888"/>`,
  );
  series.forEach((s, i) => {
    const color = palette[s.name] ?? '#999';
    const d = s.points
      .map(
        ([px, py], k) =>
          `${k === 0 ? 'M' : 'L'}${x(px).toFixed(1)},${y(py).toFixed(1)}`,
      )
      .join(' ');
    parts.push(
      `<path d="${d}" fill="none" stroke="${color}" stroke-width="2"/>`,
    );
    for (const [px, py] of s.points)
      parts.push(
        `<circle cx="${x(px).toFixed(1)}" cy="${y(py).toFixed(1)}" r="2.5" fill="${color}"/>`,
      );
    parts.push(
      `<rect x="${width - m.right + 12}" y="${m.top + i * 18 - 9}" width="12" height="3" fill="${color}"/>`,
    );
    parts.push(
      `<text x="${width - m.right + 30}" y="${m.top + i * 18 - 4}">${s.name}</text>`,
    );
  });
  parts.push('</svg>');
  return `${parts.join('\n')}\n`;
}

function meanSeries(
  method: string,
  pick: (result: RunResult) => [number, number][],
): [number, number][] {
  const runs = results.filter((r) => label(r) === method).map(pick);
  const byX = new Map<number, number[]>();
  for (const points of runs)
    for (const [px, py] of points) byX.set(px, [...(byX.get(px) ?? []), py]);
  return [...byX.entries()]
    .sort((a, b) => a[0] - b[0])
    .map(([px, ys]) => [px, ys.reduce((a, b) => a + b, 0) / ys.length]);
}

await mkdir(outDirectory, { recursive: true });
const svgFiles: string[] = [];
for (const set of sets) {
  for (const measure of measures) {
    const file = join(outDirectory, `curve-${set}-${measure}.svg`);
    await writeFile(
      file,
      curveSvg({
        title: `Held-out success, ${set}, ${measure} (mean over seeds)`,
        series: methods.map((method) => ({
          name: method,
          points: meanSeries(method, (r) =>
            r.evaluations
              .filter((e) => e.set === set)
              .flatMap((e): [number, number][] => {
                const value = accuracyOf(e, measure);
                return value === undefined ? [] : [[e.step, value]];
              }),
          ),
        })),
      }),
    );
    svgFiles.push(file);
  }
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
          return [
            e.step,
            slice.reduce((a, b) => a + b.successRate, 0) / slice.length,
          ];
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
          return [
            e.step,
            slice.reduce((a, b) => a + b.rewardMean, 0) / slice.length,
          ];
        }),
      ),
    })),
  }),
);
svgFiles.push(rewardFile);
console.log(`\ncurves: ${svgFiles.join(', ')}`);

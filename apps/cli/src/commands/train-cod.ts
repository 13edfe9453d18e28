import { existsSync, readFileSync } from 'node:fs';
import { mkdir, readdir, rename, rm, writeFile } from 'node:fs/promises';
import { join, relative, resolve } from 'node:path';
import {
  evalPackSize,
  promptFormats,
  runPacks,
  summarizePackPositions,
  trainCodStep,
  trainPackSize,
} from '@seal/cod';
import {
  codEnvironments,
  codPresets,
  createCodPackSource,
  embeddedPresets,
  prepareCodEmbeddedModel,
  prepareCodSmokeModel,
  type CodPackSource,
} from '@seal/embedded';
import { createOrtPolicy } from '@seal/engine-ort';
import { writeJsonAtomic } from '@seal/rl';
import {
  SealError,
  codRunConfigSchema,
  codTrainStateSchema,
  parseJsonText,
  parseWithSchema,
  runDirectoryLayout,
  type CodRunConfig,
  type CodTrainState,
  type PolicyV1,
} from '@seal/spec';
import * as z from 'zod';
import { parseFlags } from '../args';
import type { CommandContext } from '../command';
import { exitCodes } from '../exit-codes';
import { prepareEmbedded } from '../shipped-base';
import type { Output } from '../ui/output';
import { hintParseLine, parsedFraction, positionLines } from './eval-packs';

const flagsSchema = z.object({
  method: z.literal('cod'),
  preset: z
    .enum(['default', 'smoke', 'study', 'extended', 'embedded'])
    .default('default'),
  'one-by-one': z.boolean().default(false),
  format: z.enum(promptFormats).optional(),
  'task-source': z.enum(['generated', 'bfcl']).default('generated'),
  env: z.enum(codEnvironments).optional(),
  model: z.string().optional(),
  seed: z.coerce.number().int().nonnegative().default(0),
  steps: z.coerce.number().int().positive().optional(),
  'pack-size': z.coerce.number().int().default(trainPackSize),
  'group-size': z.coerce.number().int().min(2).optional(),
  'eval-packs': z.coerce.number().int().nonnegative().optional(),
  'eval-pack-size': z.coerce.number().int().default(evalPackSize),
  'eval-runs': z.coerce.number().int().positive().default(1),
  lr: z.coerce.number().nonnegative().optional(),
  temperature: z.coerce.number().positive().default(1),
  'max-tokens': z.coerce.number().int().positive().optional(),
  'update-max-tokens': z.coerce.number().int().positive().optional(),
  'run-dir': z.string().optional(),
  cache: z.string().default('.seal-cache'),
  fresh: z.boolean().default(false),
  json: z.boolean().optional(),
});

/** Help of `seal train --method cod`. */
export const trainCodHelp = `usage: seal train --method cod [--preset smoke|default|extended|embedded] [--env frozen-lake|bfcl]
                  [--model DIR] [--seed N] [--steps N] [--pack-size 4] [--group-size G] [--lr X]
                  [--eval-packs N] [--eval-pack-size 8] [--eval-runs 1] [--format paper|compact] [--one-by-one]
                  [--run-dir DIR] [--fresh] [--json]

Connect the Dots training: each step rolls out G runs of a few packs (tasks
sharing a hidden regularity; the model rewrites its hints between them),
credits every solve and update episode with its reward-to-go against the
group baseline, reweights with RED and takes one REC step. Evaluates
--eval-packs packs of 8 before and after (0: no evaluation), each run
--eval-runs times (sampled together).

--env frozen-lake (default; FrozenLake-Obscure) or bfcl (the embedded
generator's tasks behind per-pack tool and argument spellings; also chosen by
--task-source bfcl). Starts from --model or the preset's base model (smoke on
frozen-lake: a tiny random model with a tokenizer of the pack prompts, cached
under --cache). Writes config.json, cod-state.json, checkpoints/ and packs/
(pack runs with their hints: step-N.jsonl, eval-N.jsonl) to the run
directory, which seal report and seal view read. Resumes after the last
finished step (an evaluation at its last complete pack) unless --fresh is
given; a resume with other sizes than the run's is refused.

--preset embedded (FrozenLake-Obscure): a small model with its own tokenizer,
warm-started on demonstration packs (solving with and without hints, a line
of reasoning before each answer; updates that write a line per move, then
hints that state the direction mapping the trajectory revealed; built and
cached under --cache in a few minutes), compact prompts (--format compact:
the same content in fewer words, so an update prompt and its reply fit
1,024 tokens), --max-tokens 32 and --update-max-tokens 240. --one-by-one trains the control arm instead: GRPO on the same
tasks one by one (each solved with Hints: null, no update calls, advantage
r − group mean per task, no RED); its evaluations still run the CoD loop.`;

/** The settings a resumed run must share with the run directory's. */
const resumeKeys = [
  'environment',
  'seed',
  'packsPerStep',
  'groupSize',
  'packSize',
  'evalPacks',
  'evalPackSize',
  'evalRuns',
  'format',
  'arm',
] as const;

/** Refuses to resume a run directory started with other sizes (its pack runs would not match). */
function checkResumable({
  path,
  config,
}: {
  path: string;
  config: CodRunConfig;
}): void {
  if (!existsSync(path)) return;
  const written = parseWithSchema({
    schema: codRunConfigSchema,
    value: parseJsonText({ text: readFileSync(path, 'utf8'), source: path }),
    source: path,
  });
  // Runs written before format and arm existed used the paper's prompts and the CoD loop.
  const previous = {
    ...written,
    format: written.format ?? 'paper',
    arm: written.arm ?? 'cod',
    evalRuns: written.evalRuns ?? config.evalRuns,
  };
  const changed = resumeKeys.filter((key) => previous[key] !== config[key]);
  if (changed.length > 0) {
    throw new SealError({
      code: 'INVALID_ARGUMENT',
      message: `${path} was written with other settings (${changed.map((key) => `${key} ${previous[key]}, now ${config[key]}`).join('; ')}): give the same flags to resume, or --fresh, or another --run-dir`,
      details: { changed: [...changed] },
    });
  }
}

const stepName = (step: number) => String(step).padStart(6, '0');

async function evaluate({
  policy,
  source,
  count,
  seed,
  config,
  file,
  output,
  label,
}: {
  policy: PolicyV1;
  source: CodPackSource;
  count: number;
  seed: number;
  config: CodRunConfig;
  file: string;
  output: Output;
  label: string;
}) {
  const packs = source.packs({
    count,
    packSize: config.evalPackSize,
    strategy: 'cod',
    round: 0,
  });
  const { records } = await runPacks({
    policy,
    environment: source.environment,
    packs,
    groupSize: config.evalRuns ?? 1,
    sampling: {
      maxTokens: config.maxTokens,
      updateMaxTokens: config.updateMaxTokens,
      temperature: config.temperature,
      seed,
    },
    hints: { format: config.format ?? 'paper' },
    mode: 'eval',
    policyStep: null,
    runId: config.runId,
    file,
  });
  const summary = summarizePackPositions(records);
  output.line(`  ${label}: success per pack position`);
  for (const line of positionLines(summary)) output.line(line);
  output.line(hintParseLine(records));
  return summary;
}

/** `seal train --method cod`. */
export async function runTrainCod({
  argv,
  output,
}: CommandContext): Promise<number> {
  const { flags } = parseFlags({
    argv,
    options: {
      method: { type: 'string' },
      preset: { type: 'string' },
      'task-source': { type: 'string' },
      env: { type: 'string' },
      model: { type: 'string' },
      seed: { type: 'string' },
      steps: { type: 'string' },
      'pack-size': { type: 'string' },
      'group-size': { type: 'string' },
      'eval-packs': { type: 'string' },
      'eval-pack-size': { type: 'string' },
      'eval-runs': { type: 'string' },
      lr: { type: 'string' },
      temperature: { type: 'string' },
      'max-tokens': { type: 'string' },
      'update-max-tokens': { type: 'string' },
      'run-dir': { type: 'string' },
      cache: { type: 'string' },
      fresh: { type: 'boolean' },
      json: { type: 'boolean' },
      'one-by-one': { type: 'boolean' },
      format: { type: 'string' },
    },
    schema: flagsSchema,
  });
  const sizes = codPresets[flags.preset];
  const envName =
    flags.env ?? (flags['task-source'] === 'bfcl' ? 'bfcl' : 'frozen-lake');
  const steps = flags.steps ?? sizes.steps;
  const groupSize = flags['group-size'] ?? sizes.groupSize;
  const evalPacks = flags['eval-packs'] ?? sizes.evalPacks;
  const format = flags.format ?? sizes.format;
  const learningRate = flags.lr ?? sizes.learningRate;
  const oneByOne = flags['one-by-one'];
  if (
    flags.preset === 'embedded' &&
    (envName !== 'frozen-lake' || format !== 'compact') &&
    flags.model === undefined
  ) {
    throw new SealError({
      code: 'INVALID_ARGUMENT',
      message:
        '--preset embedded trains the embedded CoD model on --env frozen-lake in the compact format (or give --model DIR)',
    });
  }
  const trainSource = createCodPackSource({
    name: envName,
    seed: flags.seed,
    split: 'train',
    format,
  });
  const evalSource = createCodPackSource({
    name: envName,
    seed: flags.seed,
    split: 'eval',
    format,
  });
  // A bad pack size or a taskset too small for a pack fails before anything loads.
  trainSource.packs({
    count: sizes.packsPerStep,
    packSize: flags['pack-size'],
    strategy: 'cod',
    round: 0,
  });
  if (evalPacks > 0)
    evalSource.packs({
      count: evalPacks,
      packSize: flags['eval-pack-size'],
      strategy: 'cod',
      round: 0,
    });
  const runId = `${flags.preset}-${oneByOne ? 'one-by-one' : 'cod'}-${envName}-s${flags.seed}`;
  const runDirectory = resolve(flags['run-dir'] ?? join('runs', runId));
  const configPath = join(runDirectory, runDirectoryLayout.config);
  const statePath = join(runDirectory, 'cod-state.json');
  if (flags.fresh) await rm(runDirectory, { recursive: true, force: true });
  const config: CodRunConfig = {
    schemaVersion: 1,
    runId,
    method: 'cod',
    preset: flags.preset,
    environment: envName,
    environmentId: trainSource.environment.environmentId,
    seed: flags.seed,
    steps,
    packsPerStep: sizes.packsPerStep,
    groupSize,
    packSize: flags['pack-size'],
    evalPacks,
    evalPackSize: flags['eval-pack-size'],
    ...(flags['eval-runs'] === 1 ? {} : { evalRuns: flags['eval-runs'] }),
    learningRate,
    temperature: flags.temperature,
    maxTokens: flags['max-tokens'] ?? sizes.maxTokens,
    updateMaxTokens: flags['update-max-tokens'] ?? sizes.updateMaxTokens,
    initialModel:
      flags.model === undefined
        ? `embedded ${flags.preset} warm start`
        : resolve(flags.model),
    format,
    arm: oneByOne ? 'one-by-one' : 'cod',
  };
  checkResumable({ path: configPath, config });
  await mkdir(join(runDirectory, 'packs'), { recursive: true });
  output.line(
    `seal train: method cod, preset ${flags.preset}, env ${envName}, seed ${flags.seed}, run ${runDirectory}`,
  );

  let state: CodTrainState = { schemaVersion: 1, nextStep: 0 };
  let modelDirectory: string | undefined;
  if (existsSync(statePath)) {
    state = parseWithSchema({
      schema: codTrainStateSchema,
      value: parseJsonText({
        text: readFileSync(statePath, 'utf8'),
        source: statePath,
      }),
      source: statePath,
    });
    const checkpoint = join(runDirectory, state.checkpoint ?? 'checkpoint');
    if (state.nextStep > 0) {
      if (!existsSync(join(checkpoint, 'model.safetensors'))) {
        throw new SealError({
          code: 'FILE_NOT_FOUND',
          message: `${statePath} says ${state.nextStep} steps are done, but their checkpoint ${checkpoint} is missing: seal train --fresh, or another --run-dir`,
          details: { file: checkpoint },
        });
      }
      modelDirectory = checkpoint;
      output.line(`  resuming after step ${state.nextStep}`);
    }
  }
  if (modelDirectory === undefined && flags.model !== undefined)
    modelDirectory = resolve(flags.model);
  if (modelDirectory === undefined && flags.preset === 'embedded') {
    modelDirectory = (
      await prepareCodEmbeddedModel({
        cacheDirectory: resolve(flags.cache),
        onProgress: (line) => output.line(line),
      })
    ).directory;
  }
  if (
    modelDirectory === undefined &&
    flags.preset === 'smoke' &&
    envName === 'frozen-lake'
  ) {
    modelDirectory = await prepareCodSmokeModel({
      cacheDirectory: resolve(flags.cache),
    });
  }
  if (modelDirectory === undefined) {
    const assets = await prepareEmbedded({
      preset:
        embeddedPresets[flags.preset === 'embedded' ? 'default' : flags.preset],
      cacheDirectory: resolve(flags.cache),
    });
    modelDirectory = assets.warmStartDirectory;
  }
  if (existsSync(configPath)) {
    // A resume keeps the recorded start; only the step count may grow.
    const previous = parseWithSchema({
      schema: codRunConfigSchema,
      value: parseJsonText({
        text: readFileSync(configPath, 'utf8'),
        source: configPath,
      }),
      source: configPath,
    });
    config.initialModel = previous.initialModel;
  } else if (flags.model === undefined) config.initialModel = modelDirectory;
  await writeJsonAtomic(configPath, config);

  const policy = await createOrtPolicy({
    model: { directory: modelDirectory },
  });
  try {
    const before =
      state.nextStep === 0 && evalPacks > 0
        ? await evaluate({
            policy,
            source: evalSource,
            count: evalPacks,
            seed: flags.seed,
            config,
            file: join(
              runDirectory,
              runDirectoryLayout.packs,
              'eval-000000.jsonl',
            ),
            output,
            label: 'before training',
          })
        : undefined;
    for (let step = state.nextStep; step < steps; step++) {
      const packs = trainSource.packs({
        count: sizes.packsPerStep,
        packSize: flags['pack-size'],
        strategy: 'cod',
        round: step,
      });
      const { results } = await runPacks({
        policy,
        environment: trainSource.environment,
        packs,
        groupSize,
        sampling: {
          maxTokens: config.maxTokens,
          updateMaxTokens: config.updateMaxTokens,
          temperature: flags.temperature,
          seed: flags.seed * 1_000_003 + step,
        },
        hints: { format },
        independentTasks: oneByOne,
        mode: 'train',
        policyStep: step,
        runId,
      });
      // The control trains the same tasks one by one: GRPO's advantage r_i − mean over the group per task, no RED.
      const update = await trainCodStep({
        policy,
        results,
        train: { learningRate, temperature: flags.temperature },
        ...(oneByOne
          ? {
              returns: { style: 'sliding-window', window: 1 } as const,
              red: false as const,
            }
          : {}),
      });
      const records = results.map((result) => result.record);
      await writeLinesAtomic(
        join(
          runDirectory,
          runDirectoryLayout.packs,
          `step-${stepName(step + 1)}.jsonl`,
        ),
        records.map((record) => JSON.stringify(record)),
      );
      const positions = summarizePackPositions(records);
      output.line(
        `  step ${step + 1}/${steps}: reward by position ${positions.map((p) => p.rewardMean.toFixed(2)).join(' ')}, hints parsed ${parsedFraction(records)}, loss ${update.loss.toFixed(4)}` +
          (update.red?.active
            ? `, RED τ ${update.red.temperature!.toFixed(2)}`
            : ''),
      );
      // A new checkpoint per step, named by the state only once complete: a
      // kill at any point resumes from weights that match cod-state.json.
      const checkpoint = join(
        runDirectory,
        'checkpoints',
        `step-${stepName(step + 1)}`,
      );
      await rm(checkpoint, { recursive: true, force: true });
      await policy.save({ directory: checkpoint });
      state = {
        schemaVersion: 1,
        nextStep: step + 1,
        checkpoint: relative(runDirectory, checkpoint),
      };
      await writeJsonAtomic(statePath, state);
      await removeCheckpointsBut({ runDirectory, keep: checkpoint });
    }
    const after =
      evalPacks > 0
        ? await evaluate({
            policy,
            source: evalSource,
            count: evalPacks,
            seed: flags.seed,
            config,
            file: join(
              runDirectory,
              runDirectoryLayout.packs,
              `eval-${stepName(steps)}.jsonl`,
            ),
            output,
            label: 'after training',
          })
        : undefined;
    output.result({
      runDirectory,
      environment: trainSource.environment.environmentId,
      steps,
      before: before ?? null,
      after: after ?? null,
    });
  } finally {
    await policy.close();
  }
  return exitCodes.success;
}

/** Removes the checkpoints of earlier steps (and the pre-schema `checkpoint/`) once a newer one is recorded. */
async function removeCheckpointsBut({
  runDirectory,
  keep,
}: {
  runDirectory: string;
  keep: string;
}): Promise<void> {
  const folder = join(runDirectory, 'checkpoints');
  const stale = existsSync(folder)
    ? (await readdir(folder))
        .map((name) => join(folder, name))
        .filter((path) => path !== keep)
    : [];
  for (const path of [...stale, join(runDirectory, 'checkpoint')])
    await rm(path, { recursive: true, force: true });
}

async function writeLinesAtomic(
  path: string,
  lines: readonly string[],
): Promise<void> {
  const temporary = `${path}.tmp`;
  await writeFile(temporary, lines.map((line) => `${line}\n`).join(''));
  await rename(temporary, path);
}

/** Whether `seal train` arguments ask for Connect the Dots (`--method cod`). */
export function requestsCod(argv: readonly string[]): boolean {
  const at = argv.indexOf('--method');
  return argv.includes('--method=cod') || (at >= 0 && argv[at + 1] === 'cod');
}

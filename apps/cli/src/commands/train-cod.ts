import { rm } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import {
  evalPackSize,
  promptFormats,
  readCodResume,
  runCodTraining,
  trainPackSize,
} from '@seal/cod';
import {
  codEnvironments,
  codPresets,
  createCodPackSource,
  embeddedPresets,
  prepareCodEmbeddedModel,
  prepareCodSmokeModel,
} from '@seal/embedded';
import { createOrtPolicy } from '@seal/engine-ort';
import { SealError, type CodRunConfig } from '@seal/spec';
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
    .enum(['default', 'smoke', 'study', 'extended', 'embedded', 'literal'])
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
export const trainCodHelp = `usage: seal train --method cod [--preset smoke|default|extended|embedded|literal]
                  [--env frozen-lake|frozen-lake-literal|bfcl]
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
r − group mean per task, no RED); its evaluations still run the CoD loop.

--preset literal (--env frozen-lake-literal, the default with it; decision
0041): the same maps with observations that name the real move
(\`Direction 2 = up: you moved from (1,3) to (0,3).\`), so a hint restates a
span of the trajectory; the embedded model's shape warm-started on that
setting (updates write the hint block alone), --update-max-tokens 96.`;

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
    flags.env ??
    (flags['task-source'] === 'bfcl'
      ? 'bfcl'
      : flags.preset === 'literal'
        ? 'frozen-lake-literal'
        : 'frozen-lake');
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
  if (
    flags.preset === 'literal' &&
    (envName !== 'frozen-lake-literal' || format !== 'compact') &&
    flags.model === undefined
  ) {
    throw new SealError({
      code: 'INVALID_ARGUMENT',
      message:
        '--preset literal trains its model on --env frozen-lake-literal in the compact format (or give --model DIR)',
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
  const resume = readCodResume({ runDirectory, config });
  output.line(
    `seal train: method cod, preset ${flags.preset}, env ${envName}, seed ${flags.seed}, run ${runDirectory}`,
  );
  if (resume.checkpoint !== undefined)
    output.line(`  resuming after step ${resume.state.nextStep}`);
  const modelDirectory =
    resume.checkpoint ??
    (flags.model === undefined
      ? await startingModel({
          preset: flags.preset,
          envName,
          cache: flags.cache,
          output,
        })
      : resolve(flags.model));
  // A resume keeps the recorded start; only the step count may grow.
  config.initialModel =
    resume.initialModel ??
    (flags.model === undefined ? modelDirectory : config.initialModel);

  const policy = await createOrtPolicy({
    model: { directory: modelDirectory },
  });
  try {
    const { before, after } = await runCodTraining({
      policy,
      runDirectory,
      config,
      state: resume.state,
      train: trainSource,
      eval: evalSource,
      onEvent: (event) => {
        if (event.type === 'evaluation-end') {
          output.line(`  ${event.when} training: success per pack position`);
          for (const line of positionLines(event.summary)) output.line(line);
          output.line(hintParseLine(event.records));
          return;
        }
        const { update } = event;
        output.line(
          `  step ${event.step}/${event.steps}: reward by position ${event.summary.map((p) => p.rewardMean.toFixed(2)).join(' ')}, hints parsed ${parsedFraction(event.records)}, loss ${update.loss.toFixed(4)}` +
            (update.red?.active
              ? `, RED τ ${update.red.temperature!.toFixed(2)}`
              : ''),
        );
      },
    });
    output.result({
      runDirectory,
      environment: trainSource.environment.environmentId,
      steps,
      before,
      after,
    });
  } finally {
    await policy.close();
  }
  return exitCodes.success;
}

/** The model a run without --model starts from: the preset's, built and cached under --cache. */
async function startingModel({
  preset,
  envName,
  cache,
  output,
}: {
  preset: keyof typeof codPresets;
  envName: string;
  cache: string;
  output: Output;
}): Promise<string> {
  const cacheDirectory = resolve(cache);
  if (preset === 'embedded' || preset === 'literal')
    return (
      await prepareCodEmbeddedModel({
        cacheDirectory,
        onProgress: (line) => output.line(line),
        setting: preset === 'literal' ? 'literal' : 'positions',
      })
    ).directory;
  if (preset === 'smoke' && envName === 'frozen-lake')
    return prepareCodSmokeModel({ cacheDirectory });
  const assets = await prepareEmbedded({
    preset: embeddedPresets[preset],
    cacheDirectory,
  });
  return assets.warmStartDirectory;
}

/** Whether `seal train` arguments ask for Connect the Dots (`--method cod`). */
export function requestsCod(argv: readonly string[]): boolean {
  const at = argv.indexOf('--method');
  return argv.includes('--method=cod') || (at >= 0 && argv[at + 1] === 'cod');
}

import { existsSync, readFileSync } from 'node:fs';
import { mkdir, rename, rm, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { evalPackSize, runPacks, summarizePackPositions, trainCodStep, trainPackSize } from '@seal/cod';
import { createOrtPolicy } from '@seal/engine-ort';
import { writeJsonAtomic } from '@seal/rl';
import { parseJsonText, type PolicyV1 } from '@seal/spec';
import * as z from 'zod';
import { parseFlags } from '../args';
import type { CommandContext } from '../command';
import { embeddedPresets, prepareEmbedded } from '../embedded/embedded-recipe';
import { exitCodes } from '../exit-codes';
import type { Output } from '../ui/output';
import { codEnvironments, createCodPackSource, type CodPackSource } from './cod-packs';
import { positionLines } from './eval-packs';

/** Per-preset sizes of `seal train --method cod`. */
const codPresets = {
  smoke: { steps: 2, packsPerStep: 2, groupSize: 4, evalPacks: 4 },
  default: { steps: 12, packsPerStep: 4, groupSize: 8, evalPacks: 16 },
  extended: { steps: 24, packsPerStep: 4, groupSize: 8, evalPacks: 32 },
  study: { steps: 24, packsPerStep: 4, groupSize: 8, evalPacks: 32 },
} as const;

const flagsSchema = z.object({
  method: z.literal('cod'),
  preset: z.enum(['default', 'smoke', 'study', 'extended']).default('default'),
  'task-source': z.enum(['generated', 'bfcl']).default('generated'),
  env: z.enum(codEnvironments).optional(),
  model: z.string().optional(),
  seed: z.coerce.number().int().nonnegative().default(0),
  steps: z.coerce.number().int().positive().optional(),
  'pack-size': z.coerce.number().int().default(trainPackSize),
  'group-size': z.coerce.number().int().min(2).optional(),
  lr: z.coerce.number().nonnegative().default(1e-5),
  temperature: z.coerce.number().positive().default(1),
  'max-tokens': z.coerce.number().int().positive().default(16),
  'update-max-tokens': z.coerce.number().int().positive().default(128),
  'run-dir': z.string().optional(),
  cache: z.string().default('.seal-cache'),
  fresh: z.boolean().default(false),
  json: z.boolean().optional(),
});

/** Help of `seal train --method cod`. */
export const trainCodHelp = `usage: seal train --method cod [--preset smoke|default|extended] [--env frozen-lake|bfcl]
                  [--model DIR] [--seed N] [--steps N] [--pack-size 4] [--group-size G] [--lr X]
                  [--run-dir DIR] [--fresh] [--json]

Connect the Dots training: each step rolls out G runs of a few packs (tasks
sharing a hidden regularity; the model rewrites its hints between them),
credits every solve and update episode with its reward-to-go against the
group baseline, reweights with RED and takes one REC step. Evaluates packs of
8 before and after. --env frozen-lake (default; FrozenLake-Obscure) or bfcl
(the embedded generator's tasks behind per-pack tool and argument spellings;
also chosen by --task-source bfcl). Starts from --model or the preset's base
model. Resumes after the last finished step unless --fresh is given.`;

type CodState = { schemaVersion: 1; nextStep: number };
const codStateSchema = z.object({ schemaVersion: z.literal(1), nextStep: z.number().int().nonnegative() });

async function evaluate({
  policy,
  source,
  count,
  seed,
  flags,
  file,
  output,
  label,
}: {
  policy: PolicyV1;
  source: CodPackSource;
  count: number;
  seed: number;
  flags: z.infer<typeof flagsSchema>;
  file: string;
  output: Output;
  label: string;
}) {
  const packs = source.packs({ count, packSize: evalPackSize, strategy: 'cod', round: 0 });
  const { records } = await runPacks({
    policy,
    environment: source.environment,
    packs,
    groupSize: 1,
    sampling: { maxTokens: flags['max-tokens'], updateMaxTokens: flags['update-max-tokens'], temperature: flags.temperature, seed },
    mode: 'eval',
    file,
  });
  const summary = summarizePackPositions(records);
  output.line(`  ${label}: success per pack position`);
  for (const line of positionLines(summary)) output.line(line);
  return summary;
}

/** `seal train --method cod`. */
export async function runTrainCod({ argv, output }: CommandContext): Promise<number> {
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
      lr: { type: 'string' },
      temperature: { type: 'string' },
      'max-tokens': { type: 'string' },
      'update-max-tokens': { type: 'string' },
      'run-dir': { type: 'string' },
      cache: { type: 'string' },
      fresh: { type: 'boolean' },
      json: { type: 'boolean' },
    },
    schema: flagsSchema,
  });
  const sizes = codPresets[flags.preset];
  const envName = flags.env ?? (flags['task-source'] === 'bfcl' ? 'bfcl' : 'frozen-lake');
  const steps = flags.steps ?? sizes.steps;
  const groupSize = flags['group-size'] ?? sizes.groupSize;
  const trainSource = createCodPackSource({ name: envName, seed: flags.seed, split: 'train' });
  const evalSource = createCodPackSource({ name: envName, seed: flags.seed, split: 'eval' });
  // A bad pack size or a taskset too small for a pack fails before anything loads.
  trainSource.packs({ count: sizes.packsPerStep, packSize: flags['pack-size'], strategy: 'cod', round: 0 });
  const runDirectory = resolve(flags['run-dir'] ?? join('runs', `${flags.preset}-cod-${envName}-s${flags.seed}`));
  if (flags.fresh) await rm(runDirectory, { recursive: true, force: true });
  await mkdir(join(runDirectory, 'packs'), { recursive: true });
  output.line(`seal train: method cod, preset ${flags.preset}, env ${envName}, seed ${flags.seed}, run ${runDirectory}`);

  const checkpoint = join(runDirectory, 'checkpoint');
  const statePath = join(runDirectory, 'cod-state.json');
  let state: CodState = { schemaVersion: 1, nextStep: 0 };
  let modelDirectory: string;
  if (existsSync(statePath) && existsSync(join(checkpoint, 'model.safetensors'))) {
    state = codStateSchema.parse(parseJsonText({ text: readFileSync(statePath, 'utf8'), source: statePath }));
    modelDirectory = checkpoint;
    output.line(`  resuming after step ${state.nextStep}`);
  } else if (flags.model !== undefined) {
    modelDirectory = resolve(flags.model);
  } else {
    const assets = await prepareEmbedded({ preset: embeddedPresets[flags.preset], cacheDirectory: resolve(flags.cache) });
    modelDirectory = assets.warmStartDirectory;
  }
  const policy = await createOrtPolicy({ model: { directory: modelDirectory } });
  try {
    const before =
      state.nextStep === 0
        ? await evaluate({ policy, source: evalSource, count: sizes.evalPacks, seed: flags.seed, flags, file: join(runDirectory, 'packs', 'eval-000000.jsonl'), output, label: 'before training' })
        : undefined;
    for (let step = state.nextStep; step < steps; step++) {
      const packs = trainSource.packs({ count: sizes.packsPerStep, packSize: flags['pack-size'], strategy: 'cod', round: step });
      const { results } = await runPacks({
        policy,
        environment: trainSource.environment,
        packs,
        groupSize,
        sampling: { maxTokens: flags['max-tokens'], updateMaxTokens: flags['update-max-tokens'], temperature: flags.temperature, seed: flags.seed * 1_000_003 + step },
        mode: 'train',
        policyStep: step,
        runId: `cod-${envName}`,
      });
      const update = await trainCodStep({ policy, results, train: { learningRate: flags.lr, temperature: flags.temperature } });
      const records = results.map((result) => result.record);
      const name = `step-${String(step + 1).padStart(6, '0')}.jsonl`;
      await writeLinesAtomic(join(runDirectory, 'packs', name), records.map((record) => JSON.stringify(record)));
      const positions = summarizePackPositions(records);
      output.line(
        `  step ${step + 1}/${steps}: reward by position ${positions.map((p) => p.rewardMean.toFixed(2)).join(' ')}, loss ${update.loss.toFixed(4)}` +
          (update.red?.active ? `, RED τ ${update.red.temperature!.toFixed(2)}` : ''),
      );
      await policy.save({ directory: checkpoint });
      state = { schemaVersion: 1, nextStep: step + 1 };
      await writeJsonAtomic(statePath, state);
    }
    const after = await evaluate({ policy, source: evalSource, count: sizes.evalPacks, seed: flags.seed, flags, file: join(runDirectory, 'packs', `eval-${String(steps).padStart(6, '0')}.jsonl`), output, label: 'after training' });
    output.result({ runDirectory, environment: trainSource.environment.environmentId, steps, before: before ?? null, after });
  } finally {
    await policy.close();
  }
  return exitCodes.success;
}

async function writeLinesAtomic(path: string, lines: readonly string[]): Promise<void> {
  const temporary = `${path}.tmp`;
  await writeFile(temporary, lines.map((line) => `${line}\n`).join(''));
  await rename(temporary, path);
}

/** Whether `seal train` arguments ask for Connect the Dots (`--method cod`). */
export function requestsCod(argv: readonly string[]): boolean {
  const at = argv.indexOf('--method');
  return argv.includes('--method=cod') || (at >= 0 && argv[at + 1] === 'cod');
}

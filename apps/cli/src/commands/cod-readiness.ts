import { mkdir, readFile, rm } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import {
  measureReadiness,
  promptFormats,
  readinessBar,
  readinessUpdatesFromPackRuns,
  runPacks,
  trainPackSize,
  type ReadinessProportion,
  type ReadinessResult,
} from '@seal/cod';
import {
  codEmbeddedSampling,
  codEnvironments,
  codPresets,
  createCodPackSource,
  prepareCodEmbeddedModel,
  prepareCodSmokeModel,
} from '@seal/embedded';
import { createOrtPolicy } from '@seal/engine-ort';
import {
  SealError,
  packRunRecordSchema,
  parseJsonLines,
  type PackRunRecord,
} from '@seal/spec';
import * as z from 'zod';
import { parseFlags } from '../args';
import type { CommandContext } from '../command';
import { exitCodes } from '../exit-codes';

const flagsSchema = z.object({
  model: z.string().optional(),
  records: z.string().optional(),
  preset: z.enum(['smoke', 'embedded', 'literal']).optional(),
  packs: z.coerce.number().int().positive().optional(),
  'pack-size': z.coerce.number().int().default(trainPackSize),
  runs: z.coerce.number().int().positive().default(1),
  env: z.enum(codEnvironments).optional(),
  split: z.enum(['train', 'eval', 'harder']).default('eval'),
  format: z.enum(promptFormats).optional(),
  seed: z.coerce.number().int().nonnegative().default(0),
  temperature: z.coerce.number().nonnegative().default(1),
  'max-tokens': z.coerce.number().int().positive().optional(),
  'update-max-tokens': z.coerce.number().int().positive().optional(),
  out: z.string().optional(),
  cache: z.string().default('.seal-cache'),
  json: z.boolean().optional(),
});

/** Help of `seal cod readiness`. */
export const codReadinessHelp = `usage: seal cod readiness (--model DIR | --preset smoke|embedded|literal | --records FILE) [--packs N] [--pack-size 4]
                          [--runs 1] [--env frozen-lake|frozen-lake-literal|bfcl] [--split eval|train|harder]
                          [--format paper|compact] [--seed N] [--temperature 1]
                          [--max-tokens N] [--update-max-tokens N] [--out FILE] [--json]

The readiness check before any Connect the Dots training: runs the policy on
--packs packs (default 8; the CoD loop, as seal eval --packs does) and reads every
update-context response. Of the facts those responses state (FrozenLake-
Obscure: a move, the position a direction was taken at, a direction's real
move; BFCL aliases: tool and argument names, literal values), it prints the
fraction that are facts of the trajectory the policy was shown, and, as
chance, the fraction of the same statements that are facts of a trajectory
of another pack it was not shown (packs paired in a random cycle drawn from
--seed), each with a Wilson 95% interval. Statements the previous hints
already made are left out. The setting is ready when the restated fraction
is at least 80%; the exit code is 1 when it is not.

--preset smoke: the tiny random FrozenLake model of seal train --method cod
--preset smoke, 2 packs, paper prompts, its token budgets. --preset embedded:
the embedded CoD model (trained and cached on first use), compact prompts.
--preset literal: the model of seal train --method cod --preset literal on
--env frozen-lake-literal (observations name the real move, decision 0041),
compact prompts, its token budgets.
--out writes the pack runs (JSON Lines; a fresh file each time).
--records FILE measures pack runs already written (seal eval --packs --out,
a run's packs/*.jsonl) instead of running a model; give the --format they
were run with (default paper) and --seed for the chance pairing.`;

const percent = (value: number) => `${(value * 100).toFixed(1)}%`;

function proportionText(value: ReadinessProportion): string {
  const [low, high] = value.interval;
  return `${value.restated}/${value.claims}${value.fraction === null ? ' (no statements)' : ` = ${percent(value.fraction)} [${percent(low)}, ${percent(high)}]`}`;
}

/** The lines `seal cod readiness` prints for a result. */
export function readinessLines(result: ReadinessResult): string[] {
  const kinds = Object.entries(result.byKind).map(
    ([kind, counts]) =>
      `${kind} ${counts.restated}/${counts.claims} (chance ${counts.chanceRestated}/${counts.chanceClaims})`,
  );
  return [
    `  update responses: ${result.updates}, ${result.updatesWithClaims} stating a fact; ${result.carried} statements carried from the previous hints (left out)`,
    `  restated: ${proportionText(result.measured)}`,
    `  chance:   ${result.chance === null ? 'not measured' : proportionText(result.chance)}`,
    ...(kinds.length > 0 ? [`  by kind:  ${kinds.join(', ')}`] : []),
    ...result.warnings.map((warning) => `  note: ${warning}`),
    `  ${result.ready ? 'ready' : 'not ready'} (bar ${percent(result.bar)})`,
  ];
}

/** `seal cod readiness --records FILE`: the measure on pack runs already written. */
async function readinessOfRecords({
  file,
  format,
  seed,
  output,
}: {
  file: string;
  format: (typeof promptFormats)[number];
  seed: number;
  output: CommandContext['output'];
}): Promise<number> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch {
    throw new SealError({
      code: 'FILE_NOT_FOUND',
      message: `no pack runs at ${file}`,
      details: { file },
    });
  }
  const records: PackRunRecord[] = parseJsonLines({
    text,
    source: file,
    schema: packRunRecordSchema,
  });
  const result = measureReadiness({
    updates: readinessUpdatesFromPackRuns({ records, seed, format }),
    bar: readinessBar,
  });
  output.result({
    file,
    packRuns: records.length,
    seed,
    format,
    readiness: result,
  });
  output.line(
    `seal cod readiness: ${records.length} pack runs of ${file} (${format} prompts, seed ${seed})`,
  );
  for (const line of readinessLines(result)) output.line(line);
  return result.ready ? exitCodes.success : exitCodes.checkFailed;
}

/** `seal cod readiness`. */
export async function runCodReadiness({
  argv,
  output,
}: CommandContext): Promise<number> {
  const { flags } = parseFlags({
    argv,
    options: {
      model: { type: 'string' },
      records: { type: 'string' },
      preset: { type: 'string' },
      packs: { type: 'string' },
      'pack-size': { type: 'string' },
      runs: { type: 'string' },
      env: { type: 'string' },
      split: { type: 'string' },
      format: { type: 'string' },
      seed: { type: 'string' },
      temperature: { type: 'string' },
      'max-tokens': { type: 'string' },
      'update-max-tokens': { type: 'string' },
      out: { type: 'string' },
      cache: { type: 'string' },
      json: { type: 'boolean' },
    },
    schema: flagsSchema,
  });
  const given = [flags.model, flags.preset, flags.records].filter(
    (value) => value !== undefined,
  ).length;
  if (given !== 1)
    throw new SealError({
      code: 'INVALID_ARGUMENT',
      message: `give one of --model DIR, --preset smoke|embedded|literal and --records FILE\n\n${codReadinessHelp}`,
    });
  if (flags.records !== undefined)
    return readinessOfRecords({
      file: resolve(flags.records),
      format: flags.format ?? 'paper',
      seed: flags.seed,
      output,
    });
  const presetEnv =
    flags.preset === 'literal' ? 'frozen-lake-literal' : 'frozen-lake';
  const env = flags.env ?? presetEnv;
  if (flags.preset !== undefined && env !== presetEnv)
    throw new SealError({
      code: 'INVALID_ARGUMENT',
      message: `--preset ${flags.preset} is a model of --env ${presetEnv}: use it, or --model DIR for --env ${env}`,
    });
  const format =
    flags.format ??
    (flags.preset === 'embedded' || flags.preset === 'literal'
      ? 'compact'
      : flags.preset === 'smoke'
        ? codPresets.smoke.format
        : 'paper');
  const budget =
    flags.preset === 'smoke'
      ? codPresets.smoke
      : flags.preset === 'literal'
        ? codPresets.literal
        : format === 'compact'
          ? codEmbeddedSampling
          : { maxTokens: 16, updateMaxTokens: 128 };
  const packCount = flags.packs ?? (flags.preset === 'smoke' ? 2 : 8);
  const source = createCodPackSource({
    name: env,
    seed: flags.seed,
    split: flags.split,
    format,
  });
  // Bad pack sizes and tasksets too small for a pack fail here, before the model loads.
  const packs = source.packs({
    count: packCount,
    packSize: flags['pack-size'],
    strategy: 'cod',
    round: 0,
  });
  const cacheDirectory = resolve(flags.cache);
  const modelDirectory =
    flags.model !== undefined
      ? resolve(flags.model)
      : flags.preset === 'embedded' || flags.preset === 'literal'
        ? (
            await prepareCodEmbeddedModel({
              cacheDirectory,
              onProgress: (line) => output.line(line),
              setting: flags.preset === 'literal' ? 'literal' : 'positions',
            })
          ).directory
        : await prepareCodSmokeModel({ cacheDirectory });
  const file = flags.out === undefined ? undefined : resolve(flags.out);
  if (file !== undefined) {
    await rm(file, { force: true });
    await mkdir(dirname(file), { recursive: true });
  }
  const policy = await createOrtPolicy({
    model: { directory: modelDirectory },
  });
  try {
    const bar = output.progress('packs', packs.length);
    const { records } = await runPacks({
      policy,
      environment: source.environment,
      packs,
      groupSize: flags.runs,
      sampling: {
        maxTokens: flags['max-tokens'] ?? budget.maxTokens,
        updateMaxTokens: flags['update-max-tokens'] ?? budget.updateMaxTokens,
        temperature: flags.temperature,
        seed: flags.seed,
      },
      hints: { format },
      mode: 'eval',
      ...(file === undefined ? {} : { file }),
      onPack: () => bar.tick(1),
    });
    bar.done();
    const result = measureReadiness({
      updates: readinessUpdatesFromPackRuns({
        records,
        seed: flags.seed,
        format,
      }),
      bar: readinessBar,
    });
    output.result({
      environment: source.environment.environmentId,
      model: modelDirectory,
      packs: packs.length,
      packSize: flags['pack-size'],
      runs: flags.runs,
      seed: flags.seed,
      format,
      ...(file === undefined ? {} : { file }),
      readiness: result,
    });
    output.line(
      `seal cod readiness: ${packs.length} packs of ${flags['pack-size']} × ${flags.runs} runs on ${source.environment.environmentId} (${flags.split} split, seed ${flags.seed}, ${format} prompts), model ${modelDirectory}${file === undefined ? '' : `, pack runs in ${file}`}`,
    );
    for (const line of readinessLines(result)) output.line(line);
    return result.ready ? exitCodes.success : exitCodes.checkFailed;
  } finally {
    await policy.close();
  }
}

import { existsSync } from 'node:fs';
import { readFile, rm } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import {
  compareWarmStartFigures,
  copyDirectory,
  embeddedPresetNames,
  embeddedPresets,
  measureWarmStart,
  prepareEmbedded,
  readWarmStartManifest,
  warmStartKey,
  type WarmStartFigures,
} from '@seal/embedded';
import { wilsonInterval, writeJsonAtomic } from '@seal/rl';
import {
  SealError,
  parseJsonWithSchema,
  warmStartFiguresFile,
  warmStartFiguresSchema,
} from '@seal/spec';
import * as z from 'zod';
import { parseFlags } from '../args';
import type { CommandContext } from '../command';
import { exitCodes } from '../exit-codes';
import { shippedBaseDirectory } from '../shipped-base';
import type { Output } from '../ui/output';

const flagsSchema = z.object({
  preset: z.enum(embeddedPresetNames).default('base'),
  cache: z.string().default('.seal-cache'),
  out: z.string().min(1).optional(),
  measure: z.string().min(1).optional(),
  families: z.string().min(1).optional(),
  check: z.boolean().default(false),
  'from-shipped': z.boolean().default(false),
  json: z.boolean().optional(),
});

export const warmstartHelp = `usage: seal warmstart [--preset base|default|smoke|study|extended|consolidated|readslist|recovers] [--cache DIR] [--out DIR] [--check] [--from-shipped] [--json]
       seal warmstart --measure DIR [--preset base] [--families ID,ID]

Trains an embedded preset's warm start from scratch by its recipe (copy
drills, then demonstrations; for the base preset also missing-value and
missing-tool demonstrations and demonstrations under random SEAL overlays),
prints its losses, the SHA-256 of its weights and its figures: exact copies
and literal values copied on held-out turn drills, and greedy success on
held-out tasks per category. The shipped base model in apps/cli/assets/base
was made with \`seal warmstart --preset base --out apps/cli/assets/base\`.

  --out DIR      also write the warm start there (model, tokenizer, warmstart.json)
  --from-shipped with --preset consolidated, readslist or recovers: train only
                 its last stage, from the shipped base (the rest of its recipe
                 is the base's; readslist also trains on base first turns with
                 the needed tool offered and withheld, recovers also on the
                 withheld turn answered in text after the missing tool's error)
  --check        compare with the shipped base model: the same SHA-256, or the
                 same figures within their 95% intervals
  --measure DIR  only measure an existing warm start directory (no training)
  --families IDS with --measure: held-out tasks of these task families only
                 (any difficulty, e.g. travel.exchange-named), not the preset's

Exit codes: 0 done (and --check agreed), 1 --check disagreed, 2 bad flags.`;

/** Wilson 95% interval of a proportion (`wilsonInterval` of @seal/rl). */
const wilson = (successes: number, total: number): [number, number] =>
  wilsonInterval({ successes, total });

function rate(successes: number, total: number): string {
  const [low, high] = wilson(successes, total);
  return `${((successes / Math.max(1, total)) * 100).toFixed(1)}% [${(low * 100).toFixed(1)}, ${(high * 100).toFixed(1)}] (${successes}/${total})`;
}

function printFigures(output: Output, figures: WarmStartFigures): void {
  output.line(
    `held-out first turns in context: exact calls ${rate(figures.firstTurn.exact, figures.firstTurn.drills)}`,
  );
  output.line(
    `                                 literal values copied ${rate(figures.firstTurn.literalsCopied, figures.firstTurn.literals)}`,
  );
  output.line(
    `held-out turn drills (request alone): exact calls ${rate(figures.copy.exact, figures.copy.drills)}`,
  );
  output.line(
    `                                      literal values copied ${rate(figures.copy.literalsCopied, figures.copy.literals)}`,
  );
  const all = Object.values(figures.heldOut).reduce(
    (sum, entry) => ({
      correct: sum.correct + entry.correct,
      total: sum.total + entry.total,
    }),
    { correct: 0, total: 0 },
  );
  for (const [category, entry] of Object.entries(figures.heldOut).sort())
    output.line(
      `held-out ${category.replace('multi_turn_', '')}: ${rate(entry.correct, entry.total)}`,
    );
  output.line(`held-out overall: ${rate(all.correct, all.total)}`);
  for (const [name, entry] of Object.entries(figures.overlays ?? {})) {
    output.line(
      `held-out under overlay ${name}: ${rate(entry.correct, entry.total)}${name === 'none' ? '' : `, ${entry.won} tasks won and ${entry.lost} lost against none`}`,
    );
  }
}

/** `seal warmstart`. */
export async function runWarmstart({
  argv,
  output,
}: CommandContext): Promise<number> {
  const { flags } = parseFlags({
    argv,
    options: {
      preset: { type: 'string' },
      cache: { type: 'string' },
      out: { type: 'string' },
      measure: { type: 'string' },
      families: { type: 'string' },
      check: { type: 'boolean' },
      'from-shipped': { type: 'boolean' },
      json: { type: 'boolean' },
    },
    schema: flagsSchema,
  });
  const preset = embeddedPresets[flags.preset];
  if (flags.families !== undefined && flags.measure === undefined) {
    throw new SealError({
      code: 'INVALID_ARGUMENT',
      message: '--families only applies to --measure DIR',
    });
  }
  if (flags.measure !== undefined) {
    const directory = resolve(flags.measure);
    if (!existsSync(join(directory, 'model.safetensors'))) {
      throw new SealError({
        code: 'FILE_NOT_FOUND',
        message: `${directory} holds no model.safetensors`,
      });
    }
    const families = flags.families
      ?.split(',')
      .map((id) => id.trim())
      .filter((id) => id.length > 0);
    const figures = await measureWarmStart({
      directory,
      preset,
      ...(families === undefined ? {} : { families }),
    });
    printFigures(output, figures);
    output.result({ directory, figures });
    return exitCodes.success;
  }

  if (flags['from-shipped'] && preset.warmup.consolidation === undefined) {
    throw new SealError({
      code: 'INVALID_ARGUMENT',
      message: `--from-shipped trains only a consolidation stage on the shipped base; preset ${preset.name} has none (try --preset consolidated)`,
    });
  }
  const started = Date.now();
  output.line(
    `seal warmstart: preset ${preset.name}, key ${warmStartKey(preset)} (${flags['from-shipped'] ? 'its last stage trained from the shipped base' : 'trained from scratch'})`,
  );
  // A fresh cache directory of its own: the recipe always runs, never a cached or shipped copy.
  const cacheDirectory = join(resolve(flags.cache), `rebuild-${process.pid}`);
  await rm(cacheDirectory, { recursive: true, force: true });
  let bar: ReturnType<Output['progress']> | undefined;
  const assets = await prepareEmbedded({
    preset,
    cacheDirectory,
    ...(flags['from-shipped']
      ? { shippedDirectory: shippedBaseDirectory() }
      : {}),
    onProgress: (progress) => {
      if (progress.type === 'phase') output.line(`  ${progress.phase}…`);
      else {
        if (progress.step === 1)
          bar = output.progress(
            progress.stage === 'drill'
              ? 'copy drills'
              : progress.stage === 'consolidation'
                ? 'consolidation'
                : 'demonstrations',
            progress.steps,
          );
        bar?.tick(1, `loss ${progress.loss.toFixed(3)}`);
        if (progress.step === progress.steps) bar?.done();
        else if (
          !output.interactive &&
          progress.step % Math.max(1, Math.floor(progress.steps / 10)) === 0
        ) {
          output.line(
            `  ${progress.stage} ${progress.step}/${progress.steps} loss ${progress.loss.toFixed(3)}`,
          );
        }
      }
    },
  });
  bar?.done();
  const manifest = await readWarmStartManifest(assets.warmStartDirectory);
  output.line(
    `trained in ${Math.round((Date.now() - started) / 1000)} s; final drill loss ${manifest.drillLosses.at(-1)?.toFixed(3) ?? '-'}, demonstration loss ${manifest.losses.at(-1)?.toFixed(3)}`,
  );
  output.line(`model.safetensors SHA-256 ${manifest.modelSha256}`);
  const figures = await measureWarmStart({
    directory: assets.warmStartDirectory,
    preset,
  });
  printFigures(output, figures);
  await writeJsonAtomic(
    join(assets.warmStartDirectory, warmStartFiguresFile),
    figures,
  );

  let code: number = exitCodes.success;
  if (flags.check) {
    const shipped = shippedBaseDirectory();
    if (!shipped)
      throw new SealError({
        code: 'FILE_NOT_FOUND',
        message:
          'no shipped base model to check against (apps/cli/assets/base)',
      });
    const recorded = await readWarmStartManifest(shipped);
    if (recorded.key !== manifest.key) {
      output.line(
        `check: the shipped base was made with another recipe (key ${recorded.key}, this one ${manifest.key})`,
      );
      code = exitCodes.checkFailed;
    } else if (recorded.modelSha256 === manifest.modelSha256) {
      output.line(
        'check: the same SHA-256 as the shipped base model (bit-identical weights)',
      );
    } else {
      const shippedFiguresPath = join(shipped, warmStartFiguresFile);
      const shippedFigures: WarmStartFigures = existsSync(shippedFiguresPath)
        ? parseJsonWithSchema({
            text: await readFile(shippedFiguresPath, 'utf8'),
            schema: warmStartFiguresSchema,
            source: shippedFiguresPath,
          })
        : await measureWarmStart({ directory: shipped, preset });
      const disagreements = compareWarmStartFigures({
        reference: shippedFigures,
        measured: figures,
      });
      output.line(
        disagreements.length === 0
          ? 'check: other weights than the shipped base (float order, or prompts rendered differently since it was built: decision 0025), the same figures within their 95% intervals'
          : `check: figures differ from the shipped base: ${disagreements.map(({ figure, reference, measured }) => `${figure}: ${rate(measured.successes, measured.total)} outside ${rate(reference.successes, reference.total)}`).join('; ')}`,
      );
      if (disagreements.length > 0) code = exitCodes.checkFailed;
    }
  }
  if (flags.out !== undefined) {
    await copyDirectory(assets.warmStartDirectory, resolve(flags.out));
    output.line(`written to ${resolve(flags.out)}`);
  }
  // The rebuilt warm start also becomes the cache entry of its key.
  const cached = join(resolve(flags.cache), `warmstart-${manifest.key}`);
  await copyDirectory(assets.warmStartDirectory, cached);
  await rm(cacheDirectory, { recursive: true, force: true });
  output.result({
    key: manifest.key,
    modelSha256: manifest.modelSha256,
    figures,
    directory: cached,
  });
  return code;
}

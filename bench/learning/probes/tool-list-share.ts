/**
 * Probe (issue 44): how much of the consolidation stage must come from
 * tool-list demonstrations (`warmup.consolidation.toolListShare`) before the
 * base reads its tool list, and what it costs on held-out tasks? Trains the
 * readslist recipe's last stage from the shipped base at another share
 * (`seal warmstart --preset readslist --from-shipped` at 0.25), writes it to
 * `--out` and prints its held-out figures; then run `tool-list.ts --model`
 * on it. `--recovery` adds the recovered withheld turns (the missing tool
 * called, its error, then the plain-text reply; `toolListRecovery`).
 *
 *   node --conditions=@seal/source --import tsx bench/learning/probes/tool-list-share.ts \
 *     --share 0.5 [--recovery] --out /tmp/readslist-50
 */
import { cp, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { shippedBaseDirectory } from '@seal/cli';
import {
  embeddedPresets,
  prepareEmbedded,
  measureWarmStart,
  readWarmStartManifest,
  warmStartKey,
  type EmbeddedPreset,
} from '@seal/embedded';
import { SealError } from '@seal/spec';

const { values } = parseArgs({
  options: {
    share: { type: 'string', default: '0.5' },
    recovery: { type: 'boolean', default: false },
    out: { type: 'string' },
  },
});
const share = Number(values.share);
if (!(share > 0 && share < 1) || values.out === undefined)
  throw new SealError({
    code: 'INVALID_ARGUMENT',
    message: `usage: tool-list-share.ts --share S (0 < S < 1) --out DIR; got --share ${values.share}`,
  });
const readslist = embeddedPresets.readslist;
const stage = readslist.warmup.consolidation!;
const preset: EmbeddedPreset = {
  ...readslist,
  name: `readslist-${share}${values.recovery ? '-recovery' : ''}`,
  warmup: {
    ...readslist.warmup,
    consolidation: {
      ...stage,
      toolListShare: share,
      ...(values.recovery ? { toolListRecovery: true } : {}),
    },
  },
};
const shipped = shippedBaseDirectory();
if (shipped === undefined)
  throw new SealError({
    code: 'FILE_NOT_FOUND',
    message: 'no shipped base model (apps/cli/assets/base)',
  });
const cacheDirectory = await mkdtemp(join(tmpdir(), 'tool-list-share-'));
const started = Date.now();
try {
  const assets = await prepareEmbedded({
    preset,
    cacheDirectory,
    // Only the last stage trains, from the shipped base (`--from-shipped`).
    shippedDirectory: shipped,
    onProgress: (progress) => {
      if (progress.type === 'phase') console.error(`  ${progress.phase}…`);
      else if (progress.step % 40 === 0)
        console.error(
          `  ${progress.stage} ${progress.step}/${progress.steps} loss ${progress.loss.toFixed(3)}`,
        );
    },
  });
  const manifest = await readWarmStartManifest(assets.warmStartDirectory);
  console.log(
    `tool-list share ${share}${values.recovery ? ' with recovery' : ''}: key ${warmStartKey(preset)}, trained in ${Math.round((Date.now() - started) / 1000)} s, SHA-256 ${manifest.modelSha256}`,
  );
  await cp(assets.warmStartDirectory, resolve(values.out), {
    recursive: true,
  });
  const figures = await measureWarmStart({
    directory: assets.warmStartDirectory,
    preset,
  });
  console.log(JSON.stringify(figures, null, 2));
} finally {
  await rm(cacheDirectory, { recursive: true, force: true });
}

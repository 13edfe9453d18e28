import { createHash } from 'node:crypto';
import {
  cpSync,
  existsSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import {
  embeddedPresets,
  prepareEmbedded as prepareEmbeddedAssets,
  warmStartKey,
} from '@seal/embedded';
import { parseJsonWithSchema, warmStartManifestSchema } from '@seal/spec';
import { prepareEmbedded, shippedBaseDirectory } from './shipped-base';

function temporary(): string {
  const directory = mkdtempSync(join(tmpdir(), 'seal-shipped-'));
  onTestFinished(() => rmSync(directory, { recursive: true, force: true }));
  return directory;
}

describe('the shipped base model', () => {
  const shipped = shippedBaseDirectory()!;
  // The shipped manifest parses with the schema every reader uses.
  const manifest = parseJsonWithSchema({
    text: readFileSync(join(shipped, 'warmstart.json'), 'utf8'),
    schema: warmStartManifestSchema,
    source: 'apps/cli/assets/base/warmstart.json',
  });

  it('is the warm start of the default preset, with the SHA-256 its manifest records', () => {
    expect(manifest.key).toBe(warmStartKey(embeddedPresets.default));
    expect(warmStartKey(embeddedPresets.base)).toBe(manifest.key);
    const sha = createHash('sha256')
      .update(readFileSync(join(shipped, 'model.safetensors')))
      .digest('hex');
    expect(sha).toBe(manifest.modelSha256);
    expect(manifest.preset.warmup).toEqual(embeddedPresets.base.warmup);
  });

  it('is copied into the cache instead of training one by seal train', async () => {
    const cache = temporary();
    const assets = await prepareEmbedded({
      preset: embeddedPresets.default,
      cacheDirectory: cache,
    });
    expect(assets.source).toBe('shipped');
    // Buffer.equals, not toEqual: a deep comparison of 6 MB byte by byte takes a minute on a loaded machine.
    expect(
      readFileSync(join(assets.warmStartDirectory, 'model.safetensors')).equals(
        readFileSync(join(shipped, 'model.safetensors')),
      ),
    ).toBe(true);
    expect(assets.evalSets.map((set) => [set.name, set.tasks.length])).toEqual([
      ['test-id', embeddedPresets.default.tasks.testId],
      ['test-ood', embeddedPresets.default.tasks.testOod],
    ]);
    // The second time it is the cache's.
    expect(
      (
        await prepareEmbedded({
          preset: embeddedPresets.default,
          cacheDirectory: cache,
        })
      ).source,
    ).toBe('cache');
  });

  it('refuses weights that do not match their recorded hash, and caches nothing', async () => {
    const tampered = temporary();
    cpSync(shipped, tampered, { recursive: true });
    const weights = readFileSync(join(tampered, 'model.safetensors'));
    weights.writeUInt8(
      weights.readUInt8(weights.length - 1) ^ 0x01,
      weights.length - 1,
    );
    writeFileSync(join(tampered, 'model.safetensors'), weights);
    const cache = temporary();
    await expect(
      prepareEmbeddedAssets({
        preset: embeddedPresets.default,
        cacheDirectory: cache,
        shippedDirectory: tampered,
      }),
    ).rejects.toMatchObject({
      code: 'INVALID_DATA',
      message: expect.stringContaining('SHA-256'),
    });
    expect(existsSync(join(cache, `warmstart-${manifest.key}`))).toBe(false);
  });
});

import { SealError } from '@seal/spec';
import { createHash } from 'node:crypto';
import {
  mkdtempSync,
  readFileSync,
  readdirSync,
  rmSync,
  writeFileSync,
  existsSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import {
  assembleParts,
  parsePartsManifest,
  partsManifestName,
  splitIntoParts,
} from './payload-parts';

const folders: string[] = [];
afterEach(() => {
  for (const folder of folders.splice(0))
    rmSync(folder, { recursive: true, force: true });
});

/** A folder with a 1 MiB + 37 bytes file of varied bytes, split into 256 KiB parts. */
function splitFixture() {
  const root = mkdtempSync(join(tmpdir(), 'seal-parts-'));
  folders.push(root);
  const data = Buffer.alloc(2 ** 20 + 37);
  for (let i = 0; i < data.length; i++) data[i] = (i * 7919 + (i >> 9)) & 255;
  const file = join(root, 'libexample.so');
  writeFileSync(file, data);
  const parts = join(root, 'parts');
  const manifest = splitIntoParts({
    file,
    directory: parts,
    maxPartBytes: 256 * 1024,
  });
  return { root, data, parts, manifest };
}

function errorOf(body: () => unknown): SealError {
  try {
    body();
  } catch (error) {
    expect(error).toBeInstanceOf(SealError);
    return error as SealError;
  }
  throw new Error('expected an error');
}

describe('payload in parts', () => {
  it('should split under the limit and join back the same bytes, every part and the whole checked', () => {
    const { root, data, parts, manifest } = splitFixture();
    expect(manifest.parts.map((part) => part.size)).toEqual([
      262144, 262144, 262144, 262144, 37,
    ]);
    expect(manifest.size).toBe(data.length);
    expect(manifest.sha256).toBe(
      createHash('sha256').update(data).digest('hex'),
    );
    expect(readdirSync(parts).sort()).toEqual(
      [partsManifestName, ...manifest.parts.map((part) => part.name)].sort(),
    );
    const result = assembleParts({
      directory: parts,
      targetDirectory: join(root, 'out'),
    });
    expect(result.path).toBe(join(root, 'out', 'libexample.so'));
    expect(readFileSync(result.path).equals(data)).toBe(true);
  });

  it('should name a missing part and leave no file behind', () => {
    const { root, parts, manifest } = splitFixture();
    rmSync(join(parts, manifest.parts[2]!.name));
    const error = errorOf(() =>
      assembleParts({ directory: parts, targetDirectory: join(root, 'out') }),
    );
    expect(error.code).toBe('INVALID_DATA');
    expect(error.message).toMatch(
      /libexample\.so: part 3 of 5 \(libexample\.so\.part002\) is missing/,
    );
    expect(existsSync(join(root, 'out', 'libexample.so'))).toBe(false);
  });

  it('should name a corrupt part (same size, other bytes) and a short one', () => {
    const { root, parts, manifest } = splitFixture();
    const second = join(parts, manifest.parts[1]!.name);
    const bytes = readFileSync(second);
    bytes[1000] = bytes[1000]! ^ 0xff;
    writeFileSync(second, bytes);
    expect(
      errorOf(() =>
        assembleParts({ directory: parts, targetDirectory: join(root, 'out') }),
      ).message,
    ).toMatch(/part 2 of 5 \(libexample\.so\.part001\) is corrupt \(SHA-256/);
    writeFileSync(second, bytes.subarray(0, 100));
    expect(
      errorOf(() =>
        assembleParts({ directory: parts, targetDirectory: join(root, 'out') }),
      ).message,
    ).toMatch(/part 2 of 5 .* has 100 bytes, the manifest says 262144/);
    expect(existsSync(join(root, 'out', 'libexample.so'))).toBe(false);
  });

  it('should refuse a manifest that is not JSON, names a path, or whose parts do not add up', () => {
    const good = {
      version: 1,
      file: 'lib.so',
      size: 3,
      sha256: 'a'.repeat(64),
      parts: [{ name: 'lib.so.part000', size: 3, sha256: 'b'.repeat(64) }],
    };
    expect(parsePartsManifest(JSON.stringify(good)).file).toBe('lib.so');
    expect(() => parsePartsManifest('{')).toThrow(/not JSON/);
    expect(() =>
      parsePartsManifest(JSON.stringify({ ...good, file: '../lib.so' })),
    ).toThrow(/file: a plain file name/);
    expect(() =>
      parsePartsManifest(
        JSON.stringify({
          ...good,
          parts: [{ ...good.parts[0], name: '/etc/passwd' }],
        }),
      ),
    ).toThrow(/parts\.0\.name: a plain file name/);
    expect(() =>
      parsePartsManifest(JSON.stringify({ ...good, size: 4 })),
    ).toThrow(/the parts add up to 3 bytes, the file has 4/);
    expect(() =>
      parsePartsManifest(JSON.stringify({ ...good, sha256: 'xyz' })),
    ).toThrow(/sha256: a hex SHA-256/);
  });

  it('should say when there is no manifest', () => {
    const root = mkdtempSync(join(tmpdir(), 'seal-parts-'));
    folders.push(root);
    expect(
      errorOf(() => assembleParts({ directory: root, targetDirectory: root }))
        .message,
    ).toMatch(/no parts manifest/);
  });
});

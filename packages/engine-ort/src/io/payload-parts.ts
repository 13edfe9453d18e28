import { SealError } from '@seal/spec';
import { createHash } from 'node:crypto';
import {
  closeSync,
  existsSync,
  mkdirSync,
  openSync,
  readFileSync,
  readSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
  writeSync,
} from 'node:fs';
import { basename, join } from 'node:path';
import * as z from 'zod';

/**
 * A large file carried in parts (decision engine-013): a GPU machine without
 * network receives at most 64 MiB per call, and the CUDA EP's provider
 * library is about 230 MB. `manifest.json` beside the parts names the whole
 * file, its size and SHA-256, and each part's file name, size and SHA-256,
 * in order.
 */
export type PartsManifest = z.infer<typeof partsManifestSchema>;

const sha256Schema = z.string().regex(/^[0-9a-f]{64}$/, 'a hex SHA-256');

const partsManifestSchema = z.object({
  version: z.literal(1),
  /** The whole file's name (no folders). */
  file: z
    .string()
    .min(1)
    .regex(/^[\w.+-]+$/, 'a plain file name'),
  size: z.number().int().nonnegative(),
  sha256: sha256Schema,
  parts: z
    .array(
      z.object({
        name: z
          .string()
          .min(1)
          .regex(/^[\w.+-]+$/, 'a plain file name'),
        size: z.number().int().nonnegative(),
        sha256: sha256Schema,
      }),
    )
    .min(1),
});

/** The manifest's file name inside a parts folder. */
export const partsManifestName = 'manifest.json';

const chunkBytes = 4 << 20;

/** Parses a parts manifest (untrusted JSON); throws `INVALID_DATA` naming what is wrong. */
export function parsePartsManifest(
  text: string,
  source = partsManifestName,
): PartsManifest {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (cause) {
    throw new SealError({
      code: 'INVALID_DATA',
      message: `${source}: not JSON (${String(cause)})`,
      cause,
    });
  }
  const parsed = partsManifestSchema.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new SealError({
      code: 'INVALID_DATA',
      message: `${source}: ${issue.path.join('.') || 'manifest'}: ${issue.message}`,
    });
  }
  const manifest = parsed.data;
  const total = manifest.parts.reduce((sum, part) => sum + part.size, 0);
  if (total !== manifest.size) {
    throw new SealError({
      code: 'INVALID_DATA',
      message: `${source}: the parts add up to ${total} bytes, the file has ${manifest.size}`,
    });
  }
  return manifest;
}

/**
 * Splits `file` into parts of at most `maxPartBytes` in `directory` (created;
 * named `<file>.partNNN`) and writes their manifest there. Reads the file in
 * chunks, never whole.
 */
export function splitIntoParts({
  file,
  directory,
  maxPartBytes,
}: {
  file: string;
  directory: string;
  maxPartBytes: number;
}): PartsManifest {
  if (!Number.isInteger(maxPartBytes) || maxPartBytes < 1) {
    throw new SealError({
      code: 'INVALID_ARGUMENT',
      message: `the part size must be a positive whole number of bytes, got ${maxPartBytes}`,
    });
  }
  const size = statSync(file).size;
  const count = Math.max(1, Math.ceil(size / maxPartBytes));
  const name = basename(file);
  mkdirSync(directory, { recursive: true });
  const whole = createHash('sha256');
  const parts: PartsManifest['parts'] = [];
  const input = openSync(file, 'r');
  const buffer = Buffer.alloc(Math.min(chunkBytes, maxPartBytes));
  try {
    for (let index = 0; index < count; index++) {
      const partName = `${name}.part${String(index).padStart(3, '0')}`;
      const partSize = Math.min(maxPartBytes, size - index * maxPartBytes);
      const hash = createHash('sha256');
      const output = openSync(join(directory, partName), 'w');
      try {
        let left = partSize;
        while (left > 0) {
          const read = readSync(
            input,
            buffer,
            0,
            Math.min(buffer.length, left),
            null,
          );
          if (read === 0) break;
          const chunk = buffer.subarray(0, read);
          hash.update(chunk);
          whole.update(chunk);
          writeSync(output, chunk);
          left -= read;
        }
      } finally {
        closeSync(output);
      }
      parts.push({
        name: partName,
        size: partSize,
        sha256: hash.digest('hex'),
      });
    }
  } finally {
    closeSync(input);
  }
  const manifest: PartsManifest = {
    version: 1,
    file: name,
    size,
    sha256: whole.digest('hex'),
    parts,
  };
  writeFileSync(
    join(directory, partsManifestName),
    `${JSON.stringify(manifest, null, 1)}\n`,
  );
  return manifest;
}

/** SHA-256 and size of a file, read in chunks. */
function hashFile(path: string): { sha256: string; size: number } {
  const hash = createHash('sha256');
  const input = openSync(path, 'r');
  const buffer = Buffer.alloc(chunkBytes);
  let size = 0;
  try {
    for (;;) {
      const read = readSync(input, buffer, 0, buffer.length, null);
      if (read === 0) break;
      hash.update(buffer.subarray(0, read));
      size += read;
    }
  } finally {
    closeSync(input);
  }
  return { sha256: hash.digest('hex'), size };
}

/**
 * Checks every part of the manifest in `directory` (present, its size, its
 * SHA-256), joins them into `<targetDirectory>/<file>` and checks the whole
 * (size and SHA-256). The file appears only when everything matched (written
 * beside it first, then renamed). Throws `INVALID_DATA` naming the first
 * missing, short or corrupt part, or a whole that does not match.
 */
export function assembleParts({
  directory,
  targetDirectory,
}: {
  directory: string;
  targetDirectory: string;
}): { path: string; size: number; sha256: string } {
  const manifestPath = join(directory, partsManifestName);
  if (!existsSync(manifestPath)) {
    throw new SealError({
      code: 'INVALID_DATA',
      message: `${manifestPath}: no parts manifest`,
    });
  }
  const manifest = parsePartsManifest(
    readFileSync(manifestPath, 'utf8'),
    manifestPath,
  );
  manifest.parts.forEach((part, index) => {
    const path = join(directory, part.name);
    const where = `part ${index + 1} of ${manifest.parts.length} (${part.name})`;
    if (!existsSync(path)) {
      throw new SealError({
        code: 'INVALID_DATA',
        message: `${manifest.file}: ${where} is missing from ${directory}`,
      });
    }
    const found = hashFile(path);
    if (found.size !== part.size) {
      throw new SealError({
        code: 'INVALID_DATA',
        message: `${manifest.file}: ${where} has ${found.size} bytes, the manifest says ${part.size} (cut short or another part)`,
      });
    }
    if (found.sha256 !== part.sha256) {
      throw new SealError({
        code: 'INVALID_DATA',
        message: `${manifest.file}: ${where} is corrupt (SHA-256 ${found.sha256.slice(0, 12)}…, the manifest says ${part.sha256.slice(0, 12)}…)`,
      });
    }
  });
  mkdirSync(targetDirectory, { recursive: true });
  const target = join(targetDirectory, manifest.file);
  const partial = `${target}.assembling`;
  const output = openSync(partial, 'w');
  const buffer = Buffer.alloc(chunkBytes);
  try {
    for (const part of manifest.parts) {
      const input = openSync(join(directory, part.name), 'r');
      try {
        for (;;) {
          const read = readSync(input, buffer, 0, buffer.length, null);
          if (read === 0) break;
          writeSync(output, buffer.subarray(0, read));
        }
      } finally {
        closeSync(input);
      }
    }
  } finally {
    closeSync(output);
  }
  const whole = hashFile(partial);
  if (whole.size !== manifest.size || whole.sha256 !== manifest.sha256) {
    rmSync(partial, { force: true });
    throw new SealError({
      code: 'INVALID_DATA',
      message: `${manifest.file}: the joined parts do not match the manifest (${whole.size} bytes, SHA-256 ${whole.sha256.slice(0, 12)}…; expected ${manifest.size} bytes, ${manifest.sha256.slice(0, 12)}…)`,
    });
  }
  renameSync(partial, target);
  return { path: target, size: whole.size, sha256: whole.sha256 };
}

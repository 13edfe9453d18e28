import { randomBytes } from 'node:crypto';
import { mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { SealError, parseJsonText } from '@seal/spec';
import { CapabilityState } from './capability-state';

/** Writes `text` to `path` atomically: a temp file in the same folder, then a rename. */
async function writeAtomically({
  path,
  text,
}: {
  path: string;
  text: string;
}): Promise<void> {
  await mkdir(dirname(path), { recursive: true });
  const temp = `${path}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
  try {
    await writeFile(temp, text, 'utf8');
    await rename(temp, path);
  } catch (error) {
    await rm(temp, { force: true });
    throw error;
  }
}

/**
 * Saves the state as versioned JSON (`schemaVersion: 1`) at `path`,
 * atomically (temp file + rename), creating the folder if needed. A reader
 * never sees a half-written file.
 */
export async function saveCapabilityState({
  state,
  path,
}: {
  state: CapabilityState;
  path: string;
}): Promise<void> {
  await writeAtomically({
    path,
    text: `${JSON.stringify(state.toJSON(), null, 2)}\n`,
  });
}

/**
 * Loads a state saved by {@link saveCapabilityState}. A missing file gives
 * `FILE_NOT_FOUND`, or an empty state with `missing: 'empty'` (a fresh run);
 * bad JSON or a schema violation gives `INVALID_DATA`; another
 * `schemaVersion` gives `UNSUPPORTED_SPEC_VERSION`.
 */
export async function loadCapabilityState({
  path,
  missing = 'error',
}: {
  path: string;
  missing?: 'error' | 'empty';
}): Promise<CapabilityState> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') {
      if (missing === 'empty') return new CapabilityState();
      throw new SealError({
        code: 'FILE_NOT_FOUND',
        message: `capability state not found: ${path}`,
        cause: error,
        details: { path },
      });
    }
    throw error;
  }
  return CapabilityState.fromJSON({
    value: parseJsonText({ text, source: path }),
    source: path,
  });
}

/**
 * Dumps a snapshot of the state (default: the window, with the 20 most common
 * errors) to `<dir>/epoch_<epoch>.json`, atomically, as SEAL's per-epoch
 * statistics dump does. Returns the file path.
 */
export async function writeCapabilitySnapshot({
  state,
  dir,
  epoch,
  scope = 'window',
}: {
  state: CapabilityState;
  dir: string;
  epoch: number | string;
  scope?: 'window' | 'total';
}): Promise<string> {
  const path = join(dir, `epoch_${epoch}.json`);
  await writeAtomically({
    path,
    text: `${JSON.stringify(state.snapshot({ scope }), null, 2)}\n`,
  });
  return path;
}

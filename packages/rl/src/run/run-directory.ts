import { existsSync } from 'node:fs';
import {
  appendFile,
  mkdir,
  readFile,
  readdir,
  rename,
  rm,
  writeFile,
} from 'node:fs/promises';
import { dirname, join } from 'node:path';
import {
  formatJsonLines,
  latestCheckpointSchema,
  parseJsonText,
  parseWithSchema,
  runDirectoryLayout,
  runEventSchema,
  runStepName,
  safeParseJsonLines,
  type RunEvent,
} from '@seal/spec';
import * as z from 'zod';

const { events, overlays, episodes, checkpoints, latestCheckpoint } =
  runDirectoryLayout;

/** The `step` of an events or overlays line, if it has one. */
function lineStep(value: unknown): unknown {
  return typeof value === 'object' && value !== null && 'step' in value
    ? value.step
    : undefined;
}

/** Writes a file atomically: a temporary file in the same directory, then a rename. */
export async function writeFileAtomic(
  path: string,
  data: string | Uint8Array,
): Promise<void> {
  await mkdir(dirname(path), { recursive: true });
  const temporary = `${path}.tmp-${process.pid}-${Date.now()}`;
  await writeFile(temporary, data);
  await rename(temporary, path);
}

/** Writes JSON atomically (pretty-printed). */
export async function writeJsonAtomic(
  path: string,
  value: unknown,
): Promise<void> {
  await writeFileAtomic(path, `${JSON.stringify(value, null, 2)}\n`);
}

/**
 * A run directory, laid out as `@seal/spec`'s `runDirectoryLayout` names it:
 * `config.json`, `events.jsonl`, `overlays.jsonl`, `tasks.jsonl`,
 * `capability_state.json`, `episodes/` and `checkpoints/`.
 * Every write is atomic or append-only, and a resumed run first drops what a
 * crash left after its last checkpoint, so no record is lost or duplicated.
 */
export class RunDirectory {
  constructor(readonly root: string) {}

  path(...parts: string[]): string {
    return join(this.root, ...parts);
  }

  /** The path of one of the run's files, by its `runDirectoryLayout` key. */
  file(
    name: 'config' | 'events' | 'overlays' | 'tasks' | 'capabilityState',
  ): string {
    return this.path(runDirectoryLayout[name]);
  }

  static stepName(step: number): string {
    return runStepName(step);
  }

  episodesPath(step: number): string {
    return this.path(episodes, `step-${RunDirectory.stepName(step)}.jsonl`);
  }

  /** The frozen reference policy's episodes of a step (`frozenBaseline`). */
  baselineEpisodesPath(step: number): string {
    return this.path(episodes, `baseline-${RunDirectory.stepName(step)}.jsonl`);
  }

  evalEpisodesPath(step: number, set: string): string {
    return this.path(
      episodes,
      `eval-${RunDirectory.stepName(step)}-${set}.jsonl`,
    );
  }

  checkpointPath(step: number): string {
    return this.path(checkpoints, `step-${RunDirectory.stepName(step)}`);
  }

  /** A checkpoint's trainer state or capability state. */
  checkpointFile(
    step: number,
    name: 'trainerState' | 'capabilityState',
  ): string {
    return join(this.checkpointPath(step), runDirectoryLayout[name]);
  }

  async ensure(): Promise<void> {
    await mkdir(this.path(episodes), { recursive: true });
    await mkdir(this.path(checkpoints), { recursive: true });
  }

  /** Appends JSON Lines (one write call, so a line is never half-written by us). */
  async appendJsonLines(
    file: string,
    values: readonly unknown[],
  ): Promise<void> {
    if (values.length === 0) return;
    await mkdir(dirname(file), { recursive: true });
    await appendFile(file, formatJsonLines(values));
  }

  /** Writes a JSON Lines file atomically. */
  async writeJsonLines(
    file: string,
    values: readonly unknown[],
  ): Promise<void> {
    await writeFileAtomic(file, formatJsonLines(values));
  }

  /** The newest checkpoint's step, or undefined. */
  async latestCheckpoint(): Promise<number | undefined> {
    const file = this.path(checkpoints, latestCheckpoint);
    if (!existsSync(file)) return undefined;
    return parseWithSchema({
      schema: latestCheckpointSchema,
      value: parseJsonText({
        text: await readFile(file, 'utf8'),
        source: file,
      }),
      source: file,
    }).step;
  }

  async markLatestCheckpoint(step: number): Promise<void> {
    await writeJsonAtomic(this.path(checkpoints, latestCheckpoint), { step });
  }

  /**
   * Drops everything recorded after `step`: event lines with a larger step
   * (and a torn last line), episode files and checkpoints of later steps,
   * and the temporary files of interrupted writes. Returns the events kept (the lines
   * of `events.jsonl`, parsed with `runEventSchema`; a line that is valid
   * JSON but not a run event throws INVALID_DATA).
   */
  async truncateAfter(step: number): Promise<RunEvent[]> {
    let kept: RunEvent[] = [];
    for (const name of [events, overlays]) {
      const file = this.path(name);
      if (!existsSync(file)) continue;
      // A line that is not JSON was torn by a crash: it is dropped.
      const { values, lines } = safeParseJsonLines({
        text: await readFile(file, 'utf8'),
        source: file,
        schema: z.unknown(),
      });
      const keep = values.flatMap((value, index) => {
        const at = lineStep(value);
        return typeof at !== 'number' || at <= step
          ? [{ value, line: lines[index]! }]
          : [];
      });
      await writeFileAtomic(
        file,
        keep.map(({ line }) => `${line.text}\n`).join(''),
      );
      if (name === events) {
        kept = keep.map(({ value, line }) =>
          parseWithSchema({
            schema: runEventSchema,
            value,
            source: `${file}:${line.lineNumber}`,
          }),
        );
      }
    }
    const episodesDirectory = this.path(episodes);
    if (existsSync(episodesDirectory)) {
      for (const name of await readdir(episodesDirectory)) {
        const match = /^(?:step|eval|baseline)-(\d{6})/.exec(name);
        if (match && Number(match[1]) > step)
          await rm(join(episodesDirectory, name), { force: true });
      }
    }
    await this.removeTemporaryFiles();
    const checkpointsDirectory = this.path(checkpoints);
    if (existsSync(checkpointsDirectory)) {
      for (const name of await readdir(checkpointsDirectory)) {
        const match = /^step-(\d{6})$/.exec(name);
        if (match && Number(match[1]) > step)
          await rm(join(checkpointsDirectory, name), {
            recursive: true,
            force: true,
          });
      }
    }
    return kept;
  }

  /**
   * Removes what atomic writes cut short by a crash left behind: files and
   * directories named `….tmp-…` (ours, the policy's and `best-*`'s) or
   * `….tmp` (the capability state's), in the run directory, `episodes/`,
   * `checkpoints/` and each checkpoint.
   */
  async removeTemporaryFiles(): Promise<void> {
    const temporary = /\.tmp(?:-|$)/;
    const checkpointsDirectory = this.path(checkpoints);
    const directories = [this.root, this.path(episodes), checkpointsDirectory];
    if (existsSync(checkpointsDirectory)) {
      for (const entry of await readdir(checkpointsDirectory, {
        withFileTypes: true,
      })) {
        if (entry.isDirectory() && !temporary.test(entry.name))
          directories.push(join(checkpointsDirectory, entry.name));
      }
    }
    for (const directory of directories) {
      if (!existsSync(directory)) continue;
      for (const name of await readdir(directory)) {
        if (temporary.test(name))
          await rm(join(directory, name), { recursive: true, force: true });
      }
    }
  }

  /** Empties the run's records (a fresh start): events, overlays, episodes, checkpoints, state. */
  async reset(): Promise<void> {
    await this.removeTemporaryFiles();
    for (const name of [events, overlays, runDirectoryLayout.capabilityState]) {
      await rm(this.path(name), { force: true });
    }
    await rm(this.path(episodes), { recursive: true, force: true });
    await rm(this.path(checkpoints), { recursive: true, force: true });
    await this.ensure();
  }

  /** Removes checkpoints older than the newest `keep`. */
  async pruneCheckpoints(keep: number): Promise<void> {
    const checkpointsDirectory = this.path(checkpoints);
    if (!existsSync(checkpointsDirectory)) return;
    const steps = (await readdir(checkpointsDirectory))
      .map((name) => /^step-(\d{6})$/.exec(name))
      .filter((match): match is RegExpExecArray => match !== null)
      .map((match) => Number(match[1]))
      .sort((a, b) => b - a);
    for (const step of steps.slice(keep))
      await rm(this.checkpointPath(step), { recursive: true, force: true });
  }
}

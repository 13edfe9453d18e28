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
  latestCheckpointSchema,
  parseJsonText,
  parseWithSchema,
  runEventSchema,
  type RunEvent,
} from '@seal/spec';

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
 * The files of a run directory:
 * - `config.json` — the resolved configuration;
 * - `events.jsonl` — one record per training step and per evaluation;
 * - `episodes/step-NNNNNN.jsonl`, `episodes/eval-NNNNNN-<set>.jsonl` — EpisodeRecords;
 * - `capability_state.json` — the failure profile;
 * - `overlays.jsonl` — the interface overlay in force at each step;
 * - `checkpoints/step-NNNNNN/` — policy and trainer state; `checkpoints/latest.json` names the newest.
 * Every write is atomic or append-only, and a resumed run first drops what a
 * crash left after its last checkpoint, so no record is lost or duplicated.
 */
export class RunDirectory {
  constructor(readonly root: string) {}

  path(...parts: string[]): string {
    return join(this.root, ...parts);
  }

  static stepName(step: number): string {
    return String(step).padStart(6, '0');
  }

  episodesPath(step: number): string {
    return this.path('episodes', `step-${RunDirectory.stepName(step)}.jsonl`);
  }

  /** The frozen reference policy's episodes of a step (`frozenBaseline`). */
  baselineEpisodesPath(step: number): string {
    return this.path(
      'episodes',
      `baseline-${RunDirectory.stepName(step)}.jsonl`,
    );
  }

  evalEpisodesPath(step: number, set: string): string {
    return this.path(
      'episodes',
      `eval-${RunDirectory.stepName(step)}-${set}.jsonl`,
    );
  }

  checkpointPath(step: number): string {
    return this.path('checkpoints', `step-${RunDirectory.stepName(step)}`);
  }

  async ensure(): Promise<void> {
    await mkdir(this.path('episodes'), { recursive: true });
    await mkdir(this.path('checkpoints'), { recursive: true });
  }

  /** Appends JSON Lines (one write call, so a line is never half-written by us). */
  async appendJsonLines(
    file: string,
    values: readonly unknown[],
  ): Promise<void> {
    if (values.length === 0) return;
    await mkdir(dirname(file), { recursive: true });
    await appendFile(
      file,
      values.map((value) => `${JSON.stringify(value)}\n`).join(''),
    );
  }

  /** Writes a JSON Lines file atomically. */
  async writeJsonLines(
    file: string,
    values: readonly unknown[],
  ): Promise<void> {
    await writeFileAtomic(
      file,
      values.map((value) => `${JSON.stringify(value)}\n`).join(''),
    );
  }

  /** The newest checkpoint's step, or undefined. */
  async latestCheckpoint(): Promise<number | undefined> {
    const file = this.path('checkpoints', 'latest.json');
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
    await writeJsonAtomic(this.path('checkpoints', 'latest.json'), { step });
  }

  /**
   * Drops everything recorded after `step`: event lines with a larger step
   * (and a torn last line), episode files and checkpoints of later steps,
   * and the temporary files of interrupted writes. Returns the events kept (the lines
   * of `events.jsonl`, parsed with `runEventSchema`; a line that is valid
   * JSON but not a run event throws INVALID_DATA).
   */
  async truncateAfter(step: number): Promise<RunEvent[]> {
    let events: RunEvent[] = [];
    for (const name of ['events.jsonl', 'overlays.jsonl']) {
      const file = this.path(name);
      if (!existsSync(file)) continue;
      const kept: { line: string; value: unknown; lineNumber: number }[] = [];
      for (const [index, line] of (await readFile(file, 'utf8'))
        .split('\n')
        .entries()) {
        if (line.trim() === '') continue;
        let value: { step?: unknown };
        try {
          value = parseJsonText({ text: line }) as { step?: unknown };
        } catch {
          continue; // a line torn by a crash
        }
        if (typeof value.step !== 'number' || value.step <= step)
          kept.push({ line, value, lineNumber: index + 1 });
      }
      await writeFileAtomic(file, kept.map(({ line }) => `${line}\n`).join(''));
      if (name === 'events.jsonl') {
        events = kept.map(({ value, lineNumber }) =>
          parseWithSchema({
            schema: runEventSchema,
            value,
            source: `${file}:${lineNumber}`,
          }),
        );
      }
    }
    const episodes = this.path('episodes');
    if (existsSync(episodes)) {
      for (const name of await readdir(episodes)) {
        const match = /^(?:step|eval|baseline)-(\d{6})/.exec(name);
        if (match && Number(match[1]) > step)
          await rm(join(episodes, name), { force: true });
      }
    }
    await this.removeTemporaryFiles();
    const checkpoints = this.path('checkpoints');
    if (existsSync(checkpoints)) {
      for (const name of await readdir(checkpoints)) {
        const match = /^step-(\d{6})$/.exec(name);
        if (match && Number(match[1]) > step)
          await rm(join(checkpoints, name), { recursive: true, force: true });
      }
    }
    return events;
  }

  /**
   * Removes what atomic writes cut short by a crash left behind: files and
   * directories named `….tmp-…` (ours, the policy's and `best-*`'s) or
   * `….tmp` (the capability state's), in the run directory, `episodes/`,
   * `checkpoints/` and each checkpoint.
   */
  async removeTemporaryFiles(): Promise<void> {
    const temporary = /\.tmp(?:-|$)/;
    const directories = [
      this.root,
      this.path('episodes'),
      this.path('checkpoints'),
    ];
    const checkpoints = this.path('checkpoints');
    if (existsSync(checkpoints)) {
      for (const entry of await readdir(checkpoints, { withFileTypes: true })) {
        if (entry.isDirectory() && !temporary.test(entry.name))
          directories.push(join(checkpoints, entry.name));
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
    for (const name of [
      'events.jsonl',
      'overlays.jsonl',
      'capability_state.json',
    ]) {
      await rm(this.path(name), { force: true });
    }
    await rm(this.path('episodes'), { recursive: true, force: true });
    await rm(this.path('checkpoints'), { recursive: true, force: true });
    await this.ensure();
  }

  /** Removes checkpoints older than the newest `keep`. */
  async pruneCheckpoints(keep: number): Promise<void> {
    const checkpoints = this.path('checkpoints');
    if (!existsSync(checkpoints)) return;
    const steps = (await readdir(checkpoints))
      .map((name) => /^step-(\d{6})$/.exec(name))
      .filter((match): match is RegExpExecArray => match !== null)
      .map((match) => Number(match[1]))
      .sort((a, b) => b - a);
    for (const step of steps.slice(keep))
      await rm(this.checkpointPath(step), { recursive: true, force: true });
  }
}

import { existsSync } from 'node:fs';
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import {
  environmentEpisodeRecordSchema,
  runDirectoryLayout,
  type EnvironmentEpisodeRecord,
} from '@seal/spec';
import { readJsonLines, type JsonLinesResult } from './read-json-lines';

/** One file of a run's `episodes/` folder. */
export type EpisodeFile = {
  /** The file name (`step-000003.jsonl`, `eval-000004-test-id.jsonl`). */
  name: string;
  /** `train`: a training step's rollouts; `eval`: one evaluation set at a step. */
  kind: 'train' | 'eval';
  step: number;
  /** The evaluation set (eval files only). */
  set?: string;
};

const episodeFilePattern =
  /^(?:step-(\d{6})|eval-(\d{6})-([A-Za-z0-9_.-]+))\.jsonl$/;

/** Parses an episode file name; undefined for anything else (temporary files included). */
export function parseEpisodeFileName(name: string): EpisodeFile | undefined {
  const match = episodeFilePattern.exec(name);
  if (!match) return undefined;
  if (match[1] !== undefined)
    return { name, kind: 'train', step: Number(match[1]) };
  return { name, kind: 'eval', step: Number(match[2]), set: match[3]! };
}

/**
 * The episode files of a run directory, by step, training before evaluation
 * at the same step, then by set name. Empty when there is no `episodes/`.
 */
export async function listEpisodeFiles(
  runDirectory: string,
): Promise<EpisodeFile[]> {
  const folder = join(runDirectory, runDirectoryLayout.episodes);
  if (!existsSync(folder)) return [];
  const files = (await readdir(folder))
    .map(parseEpisodeFileName)
    .filter((file): file is EpisodeFile => file !== undefined);
  return files.sort(
    (a, b) =>
      a.step - b.step ||
      (a.kind === b.kind ? 0 : a.kind === 'train' ? -1 : 1) ||
      (a.set ?? '').localeCompare(b.set ?? ''),
  );
}

/**
 * Reads the episode records of one episode file (a torn last line is
 * skipped with a warning): BFCL's, or a v2 environment's with its own
 * categories (`seal train --env`).
 */
export function readEpisodeFile({
  runDirectory,
  file,
}: {
  runDirectory: string;
  file: EpisodeFile;
}): Promise<JsonLinesResult<EnvironmentEpisodeRecord>> {
  return readJsonLines({
    path: join(runDirectory, runDirectoryLayout.episodes, file.name),
    schema: environmentEpisodeRecordSchema,
  });
}

import { existsSync } from 'node:fs';
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import {
  packRunRecordSchema,
  runDirectoryLayout,
  type PackRunRecord,
} from '@seal/spec';
import { readJsonLines, type JsonLinesResult } from './read-json-lines';

/** One file of a Connect the Dots run's `packs/` folder. */
export type PackRunFile = {
  /** The file name (`step-000003.jsonl`, `eval-000000.jsonl`). */
  name: string;
  /**
   * `train`: the pack runs of a training step (G runs per pack, with their
   * advantages); `eval`: an evaluation on longer packs at a step (step 0:
   * before training).
   */
  kind: 'train' | 'eval';
  step: number;
};

const packRunFilePattern = /^(step|eval)-(\d{6})\.jsonl$/;

/** Parses a pack-run file name; undefined for anything else (temporary files included). */
export function parsePackRunFileName(name: string): PackRunFile | undefined {
  const match = packRunFilePattern.exec(name);
  if (!match) return undefined;
  return {
    name,
    kind: match[1] === 'step' ? 'train' : 'eval',
    step: Number(match[2]),
  };
}

/**
 * The pack-run files of a run directory, by step, training before evaluation
 * at the same step (an evaluation at step N follows step N's rollouts and
 * update; step 0's is before training). Empty when there is no `packs/`.
 */
export async function listPackRunFiles(
  runDirectory: string,
): Promise<PackRunFile[]> {
  const folder = join(runDirectory, runDirectoryLayout.packs);
  if (!existsSync(folder)) return [];
  return (await readdir(folder))
    .map(parsePackRunFileName)
    .filter((file): file is PackRunFile => file !== undefined)
    .sort(
      (a, b) =>
        a.step - b.step ||
        (a.kind === b.kind ? 0 : a.kind === 'train' ? -1 : 1),
    );
}

/** Reads the pack runs of one file (a torn last line is skipped with a warning). */
export function readPackRuns({
  runDirectory,
  file,
}: {
  runDirectory: string;
  file: PackRunFile;
}): Promise<JsonLinesResult<PackRunRecord>> {
  return readJsonLines({
    path: join(runDirectory, runDirectoryLayout.packs, file.name),
    schema: packRunRecordSchema,
  });
}

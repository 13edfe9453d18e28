import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { writeFileAtomic, writeJsonAtomic } from '../run/run-directory';
import type { BfclScoreFiles } from './bfcl-score-files';

/** Where {@link writeBfclScoreFiles} wrote an evaluation's scores. */
export type BfclScorePaths = {
  /** `scores.json`. */
  summary: string;
  /** `scores.csv`. */
  csv: string;
  /** `score/<model>/`, holding `BFCL_v3_<category>_score.json` per category. */
  categoryDirectory: string;
};

/**
 * Writes an evaluation's score files under `outDirectory`, each atomically:
 * `scores.json` (`summary`: the files' summary with whatever the caller adds),
 * `scores.csv`, and BFCL's per-category score files (JSON Lines) under
 * `score/<model name, / and \ as _>/`, as BFCL lays them out.
 */
export async function writeBfclScoreFiles({
  outDirectory,
  modelName,
  files,
  summary,
}: {
  outDirectory: string;
  modelName: string;
  files: BfclScoreFiles;
  summary: BfclScoreFiles['summary'] & Record<string, unknown>;
}): Promise<BfclScorePaths> {
  const paths: BfclScorePaths = {
    summary: join(outDirectory, 'scores.json'),
    csv: join(outDirectory, 'scores.csv'),
    categoryDirectory: join(
      outDirectory,
      'score',
      modelName.replace(/[/\\]/g, '_'),
    ),
  };
  await writeJsonAtomic(paths.summary, summary);
  await writeFileAtomic(paths.csv, `${files.csv}\n`);
  await mkdir(paths.categoryDirectory, { recursive: true });
  for (const [category, rows] of Object.entries(files.categoryFiles)) {
    await writeFileAtomic(
      join(paths.categoryDirectory, `BFCL_v3_${category}_score.json`),
      `${rows.map((row) => JSON.stringify(row)).join('\n')}\n`,
    );
  }
  return paths;
}

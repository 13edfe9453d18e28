import { rename, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { buildReportData, type TrainingOutcome } from './build-report-data';
import { loadChartLibrary } from './chart-library';
import type { EpisodeDiagnoser } from './episode-assessment';
import { readEpisodeFile } from './episode-files';
import { readRunDirectory, type RunData } from './read-run-directory';
import { renderReportHtml } from './render-report-html';
import type { ReportData } from './report-data';

/** Options of {@link writeReport}. */
export type WriteReportOptions = {
  /** The run directory to report on. */
  runDirectory: string;
  /** Where to write the page (default: `report.html` in the run directory). */
  out?: string;
  /**
   * Derives verdicts of training episodes (which runs do not record), for
   * the per-category training charts. Without it those charts are left out.
   */
  diagnose?: EpisodeDiagnoser;
};

/** What {@link writeReport} returns. */
export type WriteReportResult = {
  /** The page's path. */
  path: string;
  /** Its size in bytes. */
  bytes: number;
  /** Everything the page shows, as data. */
  data: ReportData;
};

async function trainingOutcomes(
  run: RunData,
  diagnose: EpisodeDiagnoser,
): Promise<{
  outcomes: TrainingOutcome[];
  unavailable: number;
  unavailableReasons: string[];
}> {
  const outcomes: TrainingOutcome[] = [];
  const reasons = new Set<string>();
  let unavailable = 0;
  for (const file of run.episodeFiles) {
    if (file.kind !== 'train') continue;
    const { values, warnings } = await readEpisodeFile({
      runDirectory: run.root,
      file,
    });
    run.warnings.push(...warnings);
    for (const record of values) {
      const assessment = diagnose({ record });
      if (assessment.type === 'diagnosed') {
        outcomes.push({
          step: file.step,
          category: record.category,
          success: assessment.diagnosis.success,
        });
      } else {
        unavailable++;
        if (reasons.size < 3) reasons.add(assessment.reason);
      }
    }
  }
  return { outcomes, unavailable, unavailableReasons: [...reasons] };
}

/**
 * Writes a self-contained `report.html` for a run directory: learning curves,
 * evaluation by split and category, SEAL tag counts, the overlay timeline
 * and the ρ history, with Chart.js and all data inline (the page makes no
 * request). The write is atomic (temporary file, then rename).
 *
 * Throws a SealError `FILE_NOT_FOUND` when the run directory does not exist.
 */
export async function writeReport({
  runDirectory,
  out,
  diagnose,
}: WriteReportOptions): Promise<WriteReportResult> {
  const run = await readRunDirectory({ runDirectory });
  const training = diagnose ? await trainingOutcomes(run, diagnose) : undefined;
  const data = buildReportData({
    run,
    training: training ?? {
      reason:
        'episode verdicts are not recorded in the run and no task source was given to re-verify them',
    },
  });
  const { source } = await loadChartLibrary();
  const page = renderReportHtml({ data, chartLibrary: source });
  const path = resolve(out ?? join(run.root, 'report.html'));
  const temporary = `${path}.tmp-${process.pid}-${Date.now()}`;
  await writeFile(temporary, page);
  await rename(temporary, path);
  return { path, bytes: Buffer.byteLength(page), data };
}

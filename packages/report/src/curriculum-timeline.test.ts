import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { buildReportData } from './build-report-data';
import { reportCharts } from './chart-specs';
import { readRunDirectory } from './read-run-directory';
import { renderReportHtml } from './render-report-html';
import { trainStepEvent } from './run-events.test-support';

/** A run directory with the given events.jsonl records. */
function runDirectory(events: readonly Record<string, unknown>[]): string {
  const dir = mkdtempSync(join(tmpdir(), 'seal-report-curriculum-'));
  onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
  writeFileSync(
    join(dir, 'config.json'),
    JSON.stringify({ runId: 'et', method: 'envtuning', steps: 6 }),
  );
  writeFileSync(
    join(dir, 'events.jsonl'),
    events.map((event) => `${JSON.stringify(event)}\n`).join(''),
  );
  return dir;
}

const step = (n: number, stage: string) =>
  trainStepEvent({
    method: 'envtuning',
    step: n,
    successRate: 0.1 * n,
    rewardMean: 0.1,
    curriculumStage: stage,
  });
const validation = (n: number, stage: string, accuracy: number) => ({
  schemaVersion: 1,
  type: 'validation',
  step: n,
  stage,
  accuracy,
  tasks: 16,
  taskSuccess: {},
});

describe('the curriculum timeline', () => {
  it('should show each stage with its steps, what ended it and the validation curve by stage', async () => {
    const dir = runDirectory([
      validation(0, 'syntax', 0.125),
      step(1, 'syntax'),
      validation(1, 'syntax', 0.125),
      step(2, 'syntax'),
      validation(2, 'syntax', 0.125),
      {
        schemaVersion: 1,
        type: 'stage',
        step: 2,
        from: 'syntax',
        to: 'hints',
        reason: 'plateau',
        validation: 0.125,
      },
      step(3, 'hints'),
      validation(3, 'hints', 0.25),
      step(4, 'hints'),
      validation(4, 'hints', 0.3125),
      {
        schemaVersion: 1,
        type: 'stage',
        step: 4,
        from: 'hints',
        to: 'hard',
        reason: 'budget',
        validation: 0.3125,
      },
      step(5, 'hard'),
      validation(5, 'hard', 0.25),
      step(6, 'hard'),
      validation(6, 'hard', 0.25),
      {
        schemaVersion: 1,
        type: 'stage',
        step: 6,
        from: 'hard',
        to: 'independent',
        reason: 'budget',
        validation: 0.25,
      },
    ]);
    const run = await readRunDirectory({ runDirectory: dir });
    expect(run.warnings).toEqual([]);
    const data = buildReportData({ run });
    expect(data.curriculum?.stages).toEqual([
      {
        name: 'syntax',
        fromStep: 1,
        toStep: 2,
        endedBy: 'plateau',
        endValidation: 0.125,
      },
      {
        name: 'hints',
        fromStep: 3,
        toStep: 4,
        endedBy: 'budget',
        endValidation: 0.3125,
      },
      {
        name: 'hard',
        fromStep: 5,
        toStep: 6,
        endedBy: 'budget',
        endValidation: 0.25,
      },
      {
        name: 'independent',
        fromStep: 7,
        toStep: null,
        endedBy: null,
        endValidation: null,
      },
    ]);
    expect(data.curriculum?.validation).toMatchObject({
      steps: [0, 1, 2, 3, 4, 5, 6],
      tasks: 16,
    });
    // The validation chart draws one line per stage, each only over its own checkpoints.
    const chart = reportCharts(data).learning.find(
      (spec) => spec.id === 'curriculum-validation',
    )!;
    const datasets = (
      chart.config as {
        data: {
          datasets: {
            label: string;
            data: { x: number; y: number | null }[];
          }[];
        };
      }
    ).data.datasets;
    expect(datasets.map((dataset) => dataset.label)).toEqual([
      'syntax',
      'hints',
      'hard',
    ]);
    expect(
      datasets[1]!.data
        .filter((point) => point.y !== null)
        .map((point) => point.x),
    ).toEqual([3, 4]);
    const page = renderReportHtml({ data, chartLibrary: '' });
    expect(page).toContain('<h3 id="curriculum">Curriculum stages</h3>');
    expect(page).toMatch(
      /<tr data-stage="syntax"><td>1 · syntax<\/td><td>1–2<\/td><td>validation plateau after step 2<\/td><td class="num">12\.5%<\/td><\/tr>/,
    );
    expect(page).toMatch(
      /<tr data-stage="hints"><td>2 · hints<\/td><td>3–4<\/td><td>step budget, after step 4<\/td>/,
    );
    expect(page).toMatch(
      /<tr data-stage="independent"><td>4 · independent<\/td><td>reached after the last step<\/td><td>in force at the end of the run<\/td>/,
    );
  });

  it('should rebuild the stages of a run recorded before stage events from the stage of each step', async () => {
    const dir = runDirectory([
      step(1, 'syntax'),
      step(2, 'syntax'),
      step(3, 'hints'),
    ]);
    const data = buildReportData({
      run: await readRunDirectory({ runDirectory: dir }),
    });
    expect(data.curriculum?.stages).toEqual([
      {
        name: 'syntax',
        fromStep: 1,
        toStep: 2,
        endedBy: null,
        endValidation: null,
      },
      {
        name: 'hints',
        fromStep: 3,
        toStep: 3,
        endedBy: null,
        endValidation: null,
      },
    ]);
  });

  it('should have no curriculum for a method without one', async () => {
    const dir = runDirectory([trainStepEvent({ step: 1, successRate: 0.5 })]);
    const data = buildReportData({
      run: await readRunDirectory({ runDirectory: dir }),
    });
    expect(data.curriculum).toBeNull();
    expect(renderReportHtml({ data, chartLibrary: '' })).not.toContain(
      'Curriculum stages',
    );
  });
});

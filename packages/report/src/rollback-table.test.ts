import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { buildReportData } from './build-report-data';
import { readRunDirectory } from './read-run-directory';
import { renderReportHtml } from './render-report-html';
import { trainStepEvent } from './run-events.test-support';

function runDirectory(events: readonly Record<string, unknown>[]): string {
  const dir = mkdtempSync(join(tmpdir(), 'seal-report-rollback-'));
  onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
  writeFileSync(
    join(dir, 'config.json'),
    JSON.stringify({ runId: 'gap', method: 'seal', steps: 3 }),
  );
  writeFileSync(
    join(dir, 'events.jsonl'),
    events.map((event) => `${JSON.stringify(event)}\n`).join(''),
  );
  return dir;
}

const step = (n: number) =>
  trainStepEvent({
    step: n,
    successRate: 0.2,
    baselineSuccessRate: 0.4,
    rewardMean: 0.2,
  });

describe('gap-monitor rollbacks in the report', () => {
  it('should list each rollback with its gain, the weights restored and the new learning rate', async () => {
    const dir = runDirectory([
      step(1),
      step(2),
      {
        schemaVersion: 1,
        type: 'rollback',
        step: 2,
        toStep: 0,
        windowGain: -0.2,
        learningRate: 1.5e-4,
      },
      step(3),
    ]);
    const run = await readRunDirectory({ runDirectory: dir });
    expect(run.warnings).toEqual([]);
    const data = buildReportData({ run });
    expect(data.rollbacks).toEqual([
      { step: 2, toStep: 0, windowGain: -0.2, learningRate: 1.5e-4 },
    ]);
    const page = renderReportHtml({ data, chartLibrary: '' });
    expect(page).toContain('<h3 id="rollbacks">Gap-monitor rollbacks</h3>');
    expect(page).toMatch(
      /<tr><td>2<\/td><td class="num">-20\.0 points<\/td><td>the starting weights<\/td><td class="num">1\.50e-4<\/td><\/tr>/,
    );
  });

  it('should show no rollback table for a run without the monitor', async () => {
    const data = buildReportData({
      run: await readRunDirectory({ runDirectory: runDirectory([step(1)]) }),
    });
    expect(data.rollbacks).toEqual([]);
    expect(renderReportHtml({ data, chartLibrary: '' })).not.toContain(
      'Gap-monitor rollbacks',
    );
  });
});

import { cpSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { buildReportData } from './build-report-data';
import { reportCharts } from './chart-specs';
import { codArmsFileName, type CodArms } from './cod-arms';
import { readRunDirectory } from './read-run-directory';
import { renderReportHtml } from './render-report-html';
import { codRunFixtureDirectory } from './test';

const curve = (means: number[], half: number) =>
  means.map((mean, i) => ({
    position: i + 1,
    mean,
    low: Math.max(0, mean - half),
    high: Math.min(1, mean + half),
  }));

const arms: CodArms = {
  schemaVersion: 1,
  kind: 'cod-arms',
  command: 'pnpm bench cod --seeds 1,2,3',
  date: '2026-11-28T05:00:00.000Z',
  seeds: [1, 2, 3],
  intervals: '95% crossed two-way bootstrap intervals over seeds and packs',
  cod: {
    arms: [
      {
        model: 'before',
        rows: 1,
        packs: 16,
        curve: curve([0.2, 0.25, 0.3, 0.3], 0.1),
        delta: { mean: 0.1, low: -0.05, high: 0.25, mde: 0.2 },
      },
      {
        model: 'cod',
        rows: 3,
        packs: 16,
        curve: curve([0.2, 0.35, 0.4, 0.45], 0.08),
        delta: { mean: 0.25, low: 0.1, high: 0.4, mde: 0.18 },
      },
      {
        model: 'one-by-one',
        rows: 3,
        packs: 16,
        curve: curve([0.25, 0.25, 0.3, 0.3], 0.08),
        delta: { mean: 0.05, low: -0.1, high: 0.2, mde: null },
      },
    ],
  },
};

async function runWith(content: unknown) {
  const directory = mkdtempSync(join(tmpdir(), 'seal-cod-arms-'));
  onTestFinished(() => rmSync(directory, { recursive: true, force: true }));
  cpSync(codRunFixtureDirectory, directory, { recursive: true });
  writeFileSync(join(directory, codArmsFileName), JSON.stringify(content));
  return readRunDirectory({ runDirectory: directory });
}

describe('the comparison of arms in a CoD report', () => {
  it('should draw each arm as a line with its interval band, and state each Δ4−1 in the caption', async () => {
    const run = await runWith(arms);
    expect(run.warnings).toEqual([]);
    const data = buildReportData({ run });
    expect(data.packs?.arms?.cod.arms.map((arm) => arm.model)).toEqual([
      'before',
      'cod',
      'one-by-one',
    ]);
    const chart = reportCharts(data).packs.find(
      (spec) => spec.id === 'pack-position-arms-cod',
    )!;
    const datasets = (
      chart.config as {
        data: {
          datasets: {
            label: string;
            data: { x: number; y: number }[];
            fill?: string;
          }[];
        };
      }
    ).data.datasets;
    // Per arm: the mean, the low edge, the high edge filled down to it.
    expect(datasets).toHaveLength(9);
    expect(datasets.map((d) => d.label).filter((_, i) => i % 3 === 0)).toEqual([
      'before training',
      'after CoD',
      'after one-by-one GRPO',
    ]);
    expect(datasets[3]!.data.map((point) => point.y)).toEqual([
      0.2, 0.35, 0.4, 0.45,
    ]);
    expect(datasets[4]!.data[0]).toEqual({ x: 1, y: 0.2 - 0.08 });
    expect(datasets[5]!.fill).toBe('-1');
    expect(chart.caption).toContain('after CoD +25.0 [+10.0, +40.0]');
    expect(chart.caption).toContain('before training +10.0 [−5.0, +25.0]');
    expect(
      reportCharts(data).packs.some(
        (spec) => spec.id === 'pack-position-arms-ralph',
      ),
    ).toBe(false);
    const page = renderReportHtml({ data, chartLibrary: '/* chart */' });
    expect(page).toContain('three arms (CoD loop)');
  });

  it('should add the Ralph loop chart when the file has one', async () => {
    const data = buildReportData({
      run: await runWith({ ...arms, ralph: arms.cod }),
    });
    expect(
      reportCharts(data)
        .packs.map((spec) => spec.id)
        .filter((id) => id.startsWith('pack-position-arms')),
    ).toEqual(['pack-position-arms-cod', 'pack-position-arms-ralph']);
  });

  it('should warn and leave the comparison out when the file is malformed, and be null without one', async () => {
    const run = await runWith({ ...arms, kind: 'other' });
    expect(run.warnings.length).toBe(1);
    expect(buildReportData({ run }).packs?.arms).toBeNull();
    const plain = buildReportData({
      run: await readRunDirectory({ runDirectory: codRunFixtureDirectory }),
    });
    expect(plain.packs?.arms).toBeNull();
    expect(
      reportCharts(plain).packs.some((spec) =>
        spec.id.startsWith('pack-position-arms'),
      ),
    ).toBe(false);
  });
});

import {
  appendFileSync,
  cpSync,
  mkdtempSync,
  readFileSync,
  rmSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { packRunRecordSchema, type PackRunRecord } from '@seal/spec';
import { describe, expect, it, onTestFinished } from 'vitest';
import { buildReportData } from './build-report-data';
import { reportCharts } from './chart-specs';
import { readRunDirectory, type RunData } from './read-run-directory';
import { renderReportHtml } from './render-report-html';
import { codRunFixtureDirectory } from './test';

/** A pack run whose tasks succeed where `success` says, with one update between tasks. */
function packRun({
  success,
  runIndex = 0,
  parsed = [],
}: {
  success: boolean[];
  runIndex?: number;
  parsed?: boolean[];
}): PackRunRecord {
  return packRunRecordSchema.parse({
    schemaVersion: 1,
    type: 'pack-run',
    packRunId: `p#${runIndex}`,
    packId: 'p',
    packIndex: 0,
    packSeed: 7,
    tasksetId: 'frozen-lake-4x5',
    strategy: 'cod',
    environmentId: 'frozen-lake-obscure',
    regularity: 'Direction 1 = up',
    runIndex,
    mode: 'eval',
    policyStep: null,
    solves: success.map((solved, position) => ({
      position,
      taskId: `t${position}`,
      episodeId: `p#${runIndex}/solve-${position}`,
      hints:
        position === 0 ? 'Hints: null' : 'Hints: - Direction 1 <b>is</b> up',
      messages: [
        { role: 'system', content: 'rules' },
        { role: 'user', content: 'Map' },
        { role: 'assistant', content: '<answer>Direction 1</answer>' },
      ],
      outcome: solved ? 1 : 0,
      success: solved,
      reward: solved ? 0.9 : 0,
      feedback: solved
        ? 'Success! Reached the goal'
        : 'Failed: fell into a hole',
      stepsUsed: 1,
      maxSteps: 8,
      responseTokens: 5,
      endReason: 'finished',
    })),
    updates: success.slice(0, -1).map((_, position) => ({
      afterPosition: position,
      previousHints: 'Hints: null',
      response: 'reasoning',
      hints: parsed[position]
        ? 'Hints: - Direction 1 <b>is</b> up'
        : 'Hints: no hint available.',
      parsed: parsed[position] ?? false,
      ...(parsed[position] ? {} : { failure: 'too-long' }),
      trailingText: false,
      reward: parsed[position] ? 0 : -0.1,
      responseTokens: 3,
    })),
    taskRewards: success.map((solved) => (solved ? 0.9 : 0)),
    hintRewards: success
      .slice(0, -1)
      .map((_, position) => (parsed[position] ? 0 : -0.1)),
    advantages: null,
  });
}

function runWith(packRuns: RunData['packRuns']): RunData {
  return {
    root: '/runs/cod',
    steps: [],
    evaluations: [],
    overlays: [],
    stages: [],
    validations: [],
    rollbacks: [],
    episodeFiles: [],
    packRuns,
    warnings: [],
  };
}

describe('readRunDirectory (Connect the Dots)', () => {
  it('should read the config and the pack runs of every file, without missing-events warnings', async () => {
    const run = await readRunDirectory({
      runDirectory: codRunFixtureDirectory,
    });
    expect(run.config?.method).toBe('cod');
    expect(
      run.packRuns.map(({ file, records }) => [
        file.name,
        file.kind,
        file.step,
        records.length,
      ]),
    ).toEqual([
      ['eval-000000.jsonl', 'eval', 0, 2],
      ['step-000001.jsonl', 'train', 1, 2],
      ['step-000002.jsonl', 'train', 2, 2],
      ['eval-000002.jsonl', 'eval', 2, 2],
    ]);
    expect(run.warnings).toEqual([]);
  });

  it('should accept a directory with pack runs only, and skip a torn last line with a warning', async () => {
    const directory = mkdtempSync(join(tmpdir(), 'seal-cod-report-'));
    onTestFinished(() => rmSync(directory, { recursive: true, force: true }));
    cpSync(join(codRunFixtureDirectory, 'packs'), join(directory, 'packs'), {
      recursive: true,
    });
    appendFileSync(
      join(directory, 'packs', 'eval-000002.jsonl'),
      '{"schemaVersion":1,"type":"pack-',
    );
    const run = await readRunDirectory({ runDirectory: directory });
    expect(run.packRuns.at(-1)!.records).toHaveLength(2);
    const messages = run.warnings.map((warning) =>
      warning.type === 'other' ? warning.message : '',
    );
    expect(messages).toHaveLength(2);
    expect(messages).toEqual(
      expect.arrayContaining([
        'config.json is missing',
        expect.stringContaining('skipped a truncated last line'),
      ]),
    );
  });
});

describe('buildReportData (Connect the Dots)', () => {
  it('should give success and reward per position per evaluation and count the hint failures', async () => {
    const data = buildReportData({
      run: await readRunDirectory({ runDirectory: codRunFixtureDirectory }),
    });
    expect(data.run).toMatchObject({
      method: 'cod',
      completedSteps: 2,
      configuredSteps: 2,
    });
    expect(
      data.packs!.evaluations.map((curve) => [
        curve.step,
        curve.packRuns,
        curve.positions.length,
      ]),
    ).toEqual([
      [0, 2, 8],
      [2, 2, 8],
    ]);
    expect(
      data.packs!.training.map((curve) => [
        curve.step,
        curve.positions.map((entry) => entry.runs),
      ]),
    ).toEqual([
      [1, [2, 2, 2, 2]],
      [2, [2, 2, 2, 2]],
    ]);
    // 2 evaluations × 2 packs of 8 and 2 steps × 2 runs of 4: 28 + 12 updates; the random model writes no block.
    expect(data.packs!.hints).toMatchObject({
      updates: 40,
      parsed: 0,
      meanLength: null,
    });
    expect(
      Object.values(data.packs!.hints.failures).reduce(
        (sum, count) => sum + count,
        0,
      ),
    ).toBe(40);
  });

  it('should draw a rising curve when later positions succeed more, one line per evaluation', () => {
    const before = {
      file: { name: 'eval-000000.jsonl', kind: 'eval' as const, step: 0 },
      records: [
        packRun({ success: [false, false, true] }),
        packRun({ success: [false, true, false], runIndex: 1 }),
      ],
    };
    const after = {
      file: { name: 'eval-000004.jsonl', kind: 'eval' as const, step: 4 },
      records: [
        packRun({ success: [false, true, true], parsed: [true, true] }),
      ],
    };
    const data = buildReportData({ run: runWith([before, after]) });
    expect(
      data.packs!.evaluations[0]!.positions.map((entry) => entry.successRate),
    ).toEqual([0, 0.5, 0.5]);
    expect(data.packs!.hints).toMatchObject({
      updates: 6,
      parsed: 2,
      failures: { 'too-long': 4 },
      meanLength: '- Direction 1 <b>is</b> up'.length,
    });
    const charts = reportCharts(data).packs;
    expect(charts.map((chart) => chart.id)).toEqual([
      'pack-position-success',
      'pack-position-reward',
    ]);
    const datasets = (
      charts[0]!.config as {
        data: {
          datasets: {
            label: string;
            data: { x: number; y: number | null }[];
          }[];
        };
      }
    ).data.datasets;
    expect(datasets.map((dataset) => dataset.label)).toEqual([
      'before training',
      'after step 4',
    ]);
    expect(datasets[1]!.data).toEqual([
      { x: 1, y: 0 },
      { x: 2, y: 1 },
      { x: 3, y: 1 },
    ]);
  });

  it('should be null for a run without pack runs', () => {
    expect(buildReportData({ run: runWith([]) }).packs).toBeNull();
  });
});

describe('renderReportHtml (Connect the Dots)', () => {
  it('should show the position charts, the table per evaluation and the hint summary', async () => {
    const data = buildReportData({
      run: await readRunDirectory({ runDirectory: codRunFixtureDirectory }),
    });
    const page = renderReportHtml({ data, chartLibrary: '/* chart */' });
    expect(page).toContain('<section id="packs">');
    expect(page).toContain('data-chart="pack-position-success"');
    expect(page).toContain('data-chart="pack-training-reward"');
    expect(page.match(/<tr data-pack-file="eval-/g)).toHaveLength(2);
    expect(page).toContain(
      '0 of 40 update-context responses wrote a usable hint block',
    );
    expect(page).toContain('data-pack-evaluation="2"');
  });
});

describe('pack-run fixture', () => {
  it('should hold valid pack runs written by the smoke preset', () => {
    const line = readFileSync(
      join(codRunFixtureDirectory, 'packs', 'step-000001.jsonl'),
      'utf8',
    ).split('\n')[0]!;
    const record = packRunRecordSchema.parse(JSON.parse(line));
    expect(record.updates.every((update) => update.responseTokens > 0)).toBe(
      true,
    );
  });
});

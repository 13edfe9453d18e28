import {
  cpSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { codRunFixtureDirectory, runFixtureDirectory } from '@seal/report/test';
import { describe, expect, it, onTestFinished } from 'vitest';
import { createOutput, type Output } from '../ui/output';
import { runReport } from './report';

function copyOfRun(): string {
  const directory = mkdtempSync(join(tmpdir(), 'seal-cli-report-'));
  onTestFinished(() => rmSync(directory, { recursive: true, force: true }));
  cpSync(runFixtureDirectory, directory, { recursive: true });
  return directory;
}

function capture(json: boolean): { output: Output; text: () => string } {
  const stdout = new PassThrough();
  let text = '';
  stdout.on('data', (chunk: Buffer) => (text += chunk.toString()));
  return {
    output: createOutput({ json, stdout, stderr: new PassThrough() }),
    text: () => text,
  };
}

type ReportJson = {
  path: string;
  data: {
    episodes: {
      diagnosed: number;
      unavailable: number;
      unavailableReasons: string[];
    };
    categories: { training: { source: string } };
  };
};

describe('runReport', () => {
  it('should write report.html and re-verify generated tasks drawn again from the run seed', async () => {
    const runDirectory = copyOfRun();
    const { output, text } = capture(true);
    expect(await runReport({ argv: [runDirectory, '--json'], output })).toBe(0);
    const result = JSON.parse(text()) as ReportJson;
    expect(result.path).toBe(join(runDirectory, 'report.html'));
    expect(result.data.episodes).toMatchObject({
      diagnosed: 24,
      unavailable: 0,
    });
    expect(result.data.categories.training.source).toBe('diagnosis');
    expect(readFileSync(result.path, 'utf8')).toContain(
      'data-chart="training-categories"',
    );
  });

  it('should refuse to re-verify tasks that do not match the recorded conversation', async () => {
    const runDirectory = copyOfRun();
    const config = JSON.parse(
      readFileSync(join(runDirectory, 'config.json'), 'utf8'),
    ) as Record<string, unknown>;
    writeFileSync(
      join(runDirectory, 'config.json'),
      JSON.stringify({ ...config, seed: 4 }),
    );
    const { output, text } = capture(true);
    await runReport({
      argv: [runDirectory, '--out', join(runDirectory, 'r.html'), '--json'],
      output,
    });
    const result = JSON.parse(text()) as ReportJson;
    expect(result.data.episodes.diagnosed).toBe(0);
    expect(result.data.episodes.unavailableReasons[0]).toMatch(
      /re-drawn with seed 4 does not match the recorded conversation/,
    );
  });

  it('should print a summary and skip re-verification with --no-verify', async () => {
    const runDirectory = copyOfRun();
    const { output, text } = capture(false);
    await runReport({ argv: [runDirectory, '--no-verify'], output });
    expect(text()).toMatch(/^seal report: wrote .*report\.html/);
    expect(text()).toContain('0 training episodes re-verified');
  });

  it('should report a Connect the Dots run: the position curve per evaluation and the hint blocks', async () => {
    const runDirectory = mkdtempSync(join(tmpdir(), 'seal-cli-report-cod-'));
    onTestFinished(() =>
      rmSync(runDirectory, { recursive: true, force: true }),
    );
    cpSync(codRunFixtureDirectory, runDirectory, { recursive: true });
    const { output, text } = capture(false);
    expect(await runReport({ argv: [runDirectory], output })).toBe(0);
    expect(text()).toContain(
      '  packs before training: success by position 0% 0% 0% 0% 0% 0% 0% 0% (2 pack runs)',
    );
    expect(text()).toContain('  packs after step 2: success by position');
    expect(text()).toContain('  hint blocks: 0 of 40 usable');
    expect(text()).not.toContain('warning:');
    const page = readFileSync(join(runDirectory, 'report.html'), 'utf8');
    expect(page).toContain('data-chart="pack-position-success"');
    expect(page).toContain('data-chart="pack-position-reward"');
  });

  it('should refuse a missing run directory with FILE_NOT_FOUND and no argument with INVALID_ARGUMENT', async () => {
    const { output } = capture(false);
    await expect(
      runReport({ argv: [join(tmpdir(), 'no-such-run-dir')], output }),
    ).rejects.toMatchObject({ code: 'FILE_NOT_FOUND' });
    await expect(runReport({ argv: [], output })).rejects.toMatchObject({
      code: 'INVALID_ARGUMENT',
    });
  });
});

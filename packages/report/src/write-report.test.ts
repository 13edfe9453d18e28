import {
  cpSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it, onTestFinished } from 'vitest';
import { writeReport } from './write-report';

const fixture = fileURLToPath(new URL('./__fixtures__/run', import.meta.url));

function copyOfFixture(): string {
  const directory = mkdtempSync(join(tmpdir(), 'seal-report-'));
  onTestFinished(() => rmSync(directory, { recursive: true, force: true }));
  cpSync(fixture, directory, { recursive: true });
  return directory;
}

describe('writeReport', () => {
  it('should write one self-contained page with the chart library and the data inline', async () => {
    const runDirectory = copyOfFixture();
    const result = await writeReport({ runDirectory });
    expect(result.path).toBe(join(runDirectory, 'report.html'));
    const page = readFileSync(result.path, 'utf8');
    expect(page).toContain('Chart.js v4');
    expect(page).toContain(`default-src 'none'`);
    expect(page).not.toMatch(/<(?:script|img|link)[^>]+(?:src|href)=/i);
    expect(page).toContain('id="seal-report-data"');
    expect(result.data.run.completedSteps).toBe(3);
  });

  it('should ask the diagnoser about every training episode', async () => {
    const runDirectory = copyOfFixture();
    const seen: string[] = [];
    const result = await writeReport({
      runDirectory,
      out: join(runDirectory, 'elsewhere.html'),
      diagnose: ({ record }) => {
        seen.push(record.episodeId);
        return { type: 'unavailable', reason: 'no tasks in this test' };
      },
    });
    expect(seen).toHaveLength(3 * 4 * 2);
    expect(result.data.episodes).toMatchObject({
      diagnosed: 0,
      unavailable: 24,
      unavailableReasons: ['no tasks in this test'],
    });
    expect(result.data.categories.training).toEqual({
      source: 'absent',
      reason: 'no tasks in this test',
    });
  });

  it('should escape run data that looks like markup', async () => {
    const runDirectory = copyOfFixture();
    const config = JSON.parse(
      readFileSync(join(runDirectory, 'config.json'), 'utf8'),
    ) as Record<string, unknown>;
    config['runId'] = '</script><script>alert(1)</script>';
    writeFileSync(join(runDirectory, 'config.json'), JSON.stringify(config));
    const page = readFileSync(
      (await writeReport({ runDirectory })).path,
      'utf8',
    );
    expect(page).not.toContain('<script>alert(1)');
    expect(page).toContain('&lt;/script&gt;&lt;script&gt;alert(1)');
  });
});

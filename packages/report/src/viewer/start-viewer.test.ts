import { appendFileSync, cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { EpisodeDiagnosis } from '@seal/spec';
import { describe, expect, it, onTestFinished } from 'vitest';
import type { EpisodeDiagnoser } from '../episode-assessment';
import { startViewer } from './start-viewer';

const fixture = fileURLToPath(new URL('../__fixtures__/run', import.meta.url));

function copyOfFixture(): string {
  const directory = mkdtempSync(join(tmpdir(), 'seal-viewer-'));
  onTestFinished(() => rmSync(directory, { recursive: true, force: true }));
  cpSync(fixture, directory, { recursive: true });
  return directory;
}

/** Tags every turn `state_mismatch` and calls the episode unsolved. */
const diagnose: EpisodeDiagnoser = ({ record }) => ({
  type: 'diagnosed',
  diagnosis: {
    schemaVersion: 1,
    episodeId: record.episodeId,
    taskId: record.taskId,
    category: record.category,
    verifierId: 'test-verifier',
    reward: 0,
    success: false,
    dominantTag: 'state_mismatch',
    turns: record.turns.map((turn) => ({
      turn: turn.turn,
      tag: 'state_mismatch',
      fineTags: ['argument_mismatch'],
      reached: true,
      parseErrors: 0,
      refusedCalls: 0,
      executedCalls: 0,
      toolErrors: [],
    })),
    trajectory: {} as EpisodeDiagnosis['trajectory'],
    errors: [],
    warnings: [],
  },
  groundTruth: record.turns.map(() => ['expected_call()']),
});

describe('startViewer', () => {
  it('should list the episodes of the latest training step by default', async () => {
    await using viewer = await startViewer({
      runDirectory: copyOfFixture(),
      port: 0,
      diagnose,
    });
    const response = await fetch(`${viewer.url}/`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-security-policy')).toContain(
      "default-src 'none'",
    );
    const page = await response.text();
    expect(page).toContain('step 3 · training');
    expect(
      page.match(/href="\/episode\/step-000003.jsonl\/\d+"/g),
    ).toHaveLength(8);
  });

  it('should show an episode with its turns, tags, calls and overlay, escaping model output', async () => {
    await using viewer = await startViewer({
      runDirectory: copyOfFixture(),
      port: 0,
      diagnose,
    });
    const page = await (
      await fetch(`${viewer.url}/episode/step-000002.jsonl/0`)
    ).text();
    expect(page).toContain('class="tag state_mismatch"');
    expect(page).toContain('+argument_mismatch');
    expect(page).toContain('<table class="calls">');
    expect(page).toContain('expected_call()');
    expect(page).toContain(
      'Overlay <span class="mono">80962969d6d52b71</span>, in force at steps 2–3.',
    );
    const injected = (await (
      await fetch(`${viewer.url}/api/episodes/step-000002.jsonl`)
    ).json()) as { episodes: { index: number }[] };
    for (const { index } of injected.episodes) {
      const html = await (
        await fetch(`${viewer.url}/episode/step-000002.jsonl/${index}`)
      ).text();
      expect(html).not.toContain('<script>window.__sealInjected');
      expect(html).not.toContain('<img src=x');
    }
  });

  it('should say the verdict is unavailable without a diagnoser', async () => {
    await using viewer = await startViewer({
      runDirectory: copyOfFixture(),
      port: 0,
    });
    const page = await (
      await fetch(`${viewer.url}/episode/step-000001.jsonl/0`)
    ).text();
    expect(page).toContain('data-verdict="unavailable"');
  });

  it('should answer unknown files, episodes and paths with a 404 that names them', async () => {
    await using viewer = await startViewer({
      runDirectory: copyOfFixture(),
      port: 0,
    });
    const episode = await fetch(`${viewer.url}/episode/step-000001.jsonl/99`);
    expect(episode.status).toBe(404);
    expect(await episode.text()).toContain(
      'no episode 99 in step-000001.jsonl: it holds 8 episodes (0–7)',
    );
    const file = await fetch(`${viewer.url}/api/episodes/step-000009.jsonl`);
    expect(file.status).toBe(404);
    expect(await file.json()).toMatchObject({ error: { code: 'NOT_FOUND' } });
    expect(
      (await fetch(`${viewer.url}/episode/..%2Fconfig.json/0`)).status,
    ).toBe(404);
    expect((await fetch(`${viewer.url}/nothing`)).status).toBe(404);
    expect((await fetch(`${viewer.url}/episode/%E0%A4%A/0`)).status).toBe(404);
    expect((await fetch(`${viewer.url}/`, { method: 'POST' })).status).toBe(
      405,
    );
  });

  it('should skip a torn last line and say so', async () => {
    const runDirectory = copyOfFixture();
    appendFileSync(
      join(runDirectory, 'episodes', 'step-000003.jsonl'),
      '{"schemaVersion":1,"episo',
    );
    await using viewer = await startViewer({ runDirectory, port: 0 });
    const listing = (await (
      await fetch(`${viewer.url}/api/episodes/step-000003.jsonl`)
    ).json()) as { episodes: unknown[]; warnings: string[] };
    expect(listing.episodes).toHaveLength(8);
    expect(listing.warnings).toEqual([
      expect.stringContaining('skipped a truncated last line'),
    ]);
    expect(
      await (await fetch(`${viewer.url}/?file=step-000003.jsonl`)).text(),
    ).toContain('truncated last line');
  });

  it('should refuse a port in use with INVALID_ARGUMENT', async () => {
    const runDirectory = copyOfFixture();
    await using first = await startViewer({ runDirectory, port: 0 });
    await expect(
      startViewer({ runDirectory, port: first.port }),
    ).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
  });
});

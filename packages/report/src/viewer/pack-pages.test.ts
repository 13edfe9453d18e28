import {
  cpSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { codRunFixtureDirectory } from '../test';
import { startViewer } from './start-viewer';

function copyOfCodRun(): string {
  const directory = mkdtempSync(join(tmpdir(), 'seal-viewer-cod-'));
  onTestFinished(() => rmSync(directory, { recursive: true, force: true }));
  cpSync(codRunFixtureDirectory, directory, { recursive: true });
  return directory;
}

describe('startViewer (Connect the Dots)', () => {
  it('should open on the latest training packs and list every pack-run file', async () => {
    await using viewer = await startViewer({
      runDirectory: copyOfCodRun(),
      port: 0,
    });
    const page = await (await fetch(`${viewer.url}/`)).text();
    expect(page).toContain('step 2 · training packs');
    expect(page).toContain('step 0 · eval packs (before training)');
    expect(page.match(/href="\/pack\/step-000002.jsonl\/\d+"/g)).toHaveLength(
      2,
    );
    const files = (await (await fetch(`${viewer.url}/api/packs`)).json()) as {
      files: { name: string; packRuns: number }[];
    };
    expect(files.files.map((file) => [file.name, file.packRuns])).toEqual([
      ['eval-000000.jsonl', 2],
      ['step-000001.jsonl', 2],
      ['step-000002.jsonl', 2],
      ['eval-000002.jsonl', 2],
    ]);
  });

  it('should show a pack run task by task with the hint update between the tasks', async () => {
    await using viewer = await startViewer({
      runDirectory: copyOfCodRun(),
      port: 0,
    });
    const page = await (
      await fetch(`${viewer.url}/pack/eval-000000.jsonl/1`)
    ).text();
    expect(page.match(/<section class="pack-task"/g)).toHaveLength(8);
    expect(
      page.match(/<section class="hint-update[^"]*" data-update="\d"/g),
    ).toHaveLength(7);
    // Task, update, task, update, …: each update sits after the task it read.
    const order = [...page.matchAll(/data-(position|update)="(\d)"/g)].map(
      (match) => `${match[1]}${match[2]}`,
    );
    expect(order.slice(0, 4)).toEqual([
      'position0',
      'update0',
      'position1',
      'update1',
    ]);
    expect(page).toContain('Hints: null');
    expect(page).toContain('unusable (missing-start): parsed as no hint');
    expect(page).toContain('previous pack run');
  });

  it('should escape hints and answers written by the model', async () => {
    const runDirectory = copyOfCodRun();
    const path = join(runDirectory, 'packs', 'step-000001.jsonl');
    const [first, ...rest] = readFileSync(path, 'utf8').trim().split('\n');
    const record = JSON.parse(first!) as {
      updates: { hints: string; response: string }[];
      solves: { hints: string }[];
    };
    record.updates[0]!.response = '<script>window.__sealInjected = 1</script>';
    record.solves[1]!.hints = 'Hints: <img src=x onerror=alert(1)>';
    writeFileSync(
      path,
      [JSON.stringify(record), ...rest].map((line) => `${line}\n`).join(''),
    );
    await using viewer = await startViewer({ runDirectory, port: 0 });
    const page = await (
      await fetch(`${viewer.url}/pack/step-000001.jsonl/0`)
    ).text();
    expect(page).not.toContain('<script>window.__sealInjected');
    expect(page).not.toContain('<img src=x');
    expect(page).toContain('&lt;img src=x onerror=alert(1)&gt;');
  });

  it('should answer unknown pack files and pack runs with a 404 that names them', async () => {
    await using viewer = await startViewer({
      runDirectory: copyOfCodRun(),
      port: 0,
    });
    const missing = await fetch(`${viewer.url}/pack/step-000001.jsonl/9`);
    expect(missing.status).toBe(404);
    expect(await missing.text()).toContain(
      'no pack run 9 in step-000001.jsonl: it holds 2 pack runs (0–1)',
    );
    expect((await fetch(`${viewer.url}/?packs=step-000009.jsonl`)).status).toBe(
      404,
    );
    expect((await fetch(`${viewer.url}/pack/..%2Fconfig.json/0`)).status).toBe(
      404,
    );
    const api = await fetch(`${viewer.url}/api/packs/step-000009.jsonl`);
    expect(await api.json()).toMatchObject({ error: { code: 'NOT_FOUND' } });
  });
});

import { spawn, type ChildProcess } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { codRunFixtureDirectory } from '@seal/report/test';
import { chromium, type Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('..', import.meta.url));
const outDirectory = join(root, 'e2e', 'out');
const chromiumPath = process.env['SEAL_CHROMIUM'] ?? '/usr/bin/chromium';
const hasChromium = existsSync(chromiumPath);
const inCi =
  process.env['CI'] !== undefined &&
  process.env['CI'] !== '' &&
  process.env['CI'] !== 'false';

/** Runs the `seal` CLI from the sources, as `pnpm seal` does. */
function sealProcess(args: string[]): ChildProcess {
  return spawn(
    process.execPath,
    [
      '--conditions=@seal/source',
      '--import',
      'tsx',
      join(root, 'apps/cli/src/bin.ts'),
      ...args,
    ],
    {
      cwd: root,
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
}

if (!hasChromium && !inCi) {
  describe('Connect the Dots report and viewer in Chromium (no browser)', () => {
    it.skip(`skipped: no Chromium at ${chromiumPath} (run scripts/install-browser.sh, or set SEAL_CHROMIUM)`, () => {});
  });
} else {
  describe('Connect the Dots report and viewer in Chromium', () => {
    let browser: Browser;
    let runDirectory: string;

    beforeAll(async () => {
      if (!hasChromium)
        throw new Error(
          `no Chromium at ${chromiumPath}: .ci/run must run scripts/install-browser.sh first`,
        );
      mkdirSync(outDirectory, { recursive: true });
      // The captured smoke run (seal train --method cod --preset smoke).
      runDirectory = mkdtempSync(join(tmpdir(), 'seal-e2e-cod-'));
      cpSync(codRunFixtureDirectory, runDirectory, { recursive: true });
      browser = await chromium.launch({
        executablePath: chromiumPath,
        args: process.getuid?.() === 0 ? ['--no-sandbox'] : [],
      });
    });

    afterAll(async () => {
      await browser?.close();
      if (runDirectory) rmSync(runDirectory, { recursive: true, force: true });
    });

    it('should draw success and reward against pack position with no console error', async () => {
      const child = sealProcess(['report', runDirectory, '--no-verify']);
      const code = await new Promise<number | null>((resolve) =>
        child.on('exit', resolve),
      );
      expect(code).toBe(0);
      const page = await browser.newPage({
        viewport: { width: 1280, height: 900 },
      });
      const errors: string[] = [];
      page.on('pageerror', (error) => errors.push(String(error)));
      page.on('console', (message) => {
        if (message.type() === 'error') errors.push(message.text());
      });
      await page.goto(`file://${join(runDirectory, 'report.html')}`);
      await page.waitForSelector('body[data-charts-rendered]');
      expect(await page.getAttribute('body', 'data-charts-failed')).toBe('');
      for (const id of [
        'pack-position-success',
        'pack-position-reward',
        'pack-training-reward',
      ]) {
        expect(
          await page.getAttribute(
            `figure[data-chart="${id}"]`,
            'data-rendered',
          ),
        ).toBe('true');
      }
      expect(
        await page
          .locator('table.pack-positions tr[data-pack-file^="eval-"]')
          .count(),
      ).toBe(2);
      await page.screenshot({
        path: join(outDirectory, 'cod-report.png'),
        fullPage: true,
      });
      expect(errors).toEqual([]);
      await page.close();
    });

    it('should show a pack run with the hint update between its tasks', async () => {
      const viewer = sealProcess([
        'view',
        runDirectory,
        '--port',
        '0',
        '--json',
      ]);
      const stopped = new Promise((resolve) => viewer.on('exit', resolve));
      try {
        const url = await new Promise<string>((resolve, reject) => {
          createInterface({ input: viewer.stdout! }).on('line', (line) => {
            const event = JSON.parse(line) as { event: string; url?: string };
            if (event.event === 'listening') resolve(event.url!);
          });
          viewer.on('exit', (code) =>
            reject(new Error(`seal view exited ${code}`)),
          );
        });
        const page = await browser.newPage({
          viewport: { width: 1280, height: 900 },
        });
        await page.goto(url);
        expect(await page.locator('table.pack-runs tbody tr').count()).toBe(2);
        await page.locator('table.pack-runs tbody tr a').first().click();
        await page.waitForSelector('section.pack-task');
        expect(await page.locator('section.pack-task').count()).toBe(4);
        expect(await page.locator('section.hint-update').count()).toBe(3);
        expect(
          await page
            .locator('section.pack-task')
            .first()
            .locator('.hints-used')
            .textContent(),
        ).toContain('Hints: null');
        await page.screenshot({
          path: join(outDirectory, 'cod-viewer-pack-run.png'),
          fullPage: true,
        });
        await page.close();
      } finally {
        viewer.kill('SIGTERM');
        await stopped;
      }
    });
  });
}

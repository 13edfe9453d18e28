import { spawn, type ChildProcess } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  appendFileSync,
  rmSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { injectedText, makeRun } from './make-run';

const root = fileURLToPath(new URL('..', import.meta.url));
const outDirectory = join(root, 'e2e', 'out');
const chromiumPath = process.env['SEAL_CHROMIUM'] ?? '/usr/bin/chromium';
const hasChromium = existsSync(chromiumPath);
const inCi =
  process.env['CI'] !== undefined &&
  process.env['CI'] !== '' &&
  process.env['CI'] !== 'false';
const skipMessage = `skipped: no Chromium at ${chromiumPath} (run scripts/install-browser.sh, or set SEAL_CHROMIUM)`;

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

async function runSeal(args: string[]): Promise<string> {
  const child = sealProcess(args);
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const code = await new Promise<number | null>((resolve) =>
    child.on('exit', resolve),
  );
  if (code !== 0)
    throw new Error(`seal ${args.join(' ')} exited ${code}: ${stderr}`);
  return stdout;
}

/** Collects console errors, page errors and every request that leaves the page. */
function watch(page: Page): { errors: string[]; requests: string[] } {
  const seen = { errors: [] as string[], requests: [] as string[] };
  page.on('console', (message) => {
    if (message.type() === 'error') seen.errors.push(message.text());
  });
  page.on('pageerror', (error) => seen.errors.push(String(error)));
  page.on('request', (request) => seen.requests.push(request.url()));
  return seen;
}

/** Pixels of a canvas that are not transparent. */
function paintedPixels(page: Page, selector: string): Promise<number> {
  // Runs in the page; typed structurally (this project compiles without the DOM library).
  type Canvas = {
    width: number;
    height: number;
    getContext(kind: '2d'): {
      getImageData(
        x: number,
        y: number,
        width: number,
        height: number,
      ): { data: ArrayLike<number> };
    };
  };
  return page.$eval(selector, (node) => {
    const element = node as unknown as Canvas;
    const pixels = element
      .getContext('2d')
      .getImageData(0, 0, element.width, element.height).data;
    let painted = 0;
    for (let i = 3; i < pixels.length; i += 4) if (pixels[i]! > 0) painted++;
    return painted;
  });
}

if (!hasChromium && !inCi) {
  describe('report and viewer in Chromium (no browser)', () => {
    it.skip(skipMessage, () => {});
  });
} else {
  describe('report and viewer in Chromium', () => {
    let browser: Browser;
    let runDirectory: string;

    beforeAll(async () => {
      // In CI a missing browser is a failure, not a skip.
      if (!hasChromium)
        throw new Error(
          `no Chromium at ${chromiumPath}: .ci/run must run scripts/install-browser.sh first`,
        );
      mkdirSync(outDirectory, { recursive: true });
      runDirectory = mkdtempSync(join(tmpdir(), 'seal-e2e-run-'));
      await makeRun({ runDirectory, steps: 6 });
      browser = await chromium.launch({
        executablePath: chromiumPath,
        // Chromium refuses its sandbox as root (CI containers).
        args: process.getuid?.() === 0 ? ['--no-sandbox'] : [],
      });
    });

    afterAll(async () => {
      await browser?.close();
      if (runDirectory) rmSync(runDirectory, { recursive: true, force: true });
    });

    it('should render every chart of the report with no console error and no request', async () => {
      const result = JSON.parse(
        await runSeal(['report', runDirectory, '--json']),
      ) as {
        path: string;
        data: {
          overlays: { overlays: unknown[] };
          episodes: { diagnosed: number };
          categories: { training: { source: string } };
        };
      };
      expect(result.path).toBe(join(runDirectory, 'report.html'));
      expect(result.data.categories.training.source).toBe('diagnosis');
      expect(result.data.episodes.diagnosed).toBe(6 * 4 * 3);

      const page = await browser.newPage({
        viewport: { width: 1280, height: 900 },
      });
      const seen = watch(page);
      await page.goto(`file://${result.path}`);
      await page.waitForSelector('body[data-charts-rendered]');
      const figures = await page.$$eval('figure.chart', (nodes) =>
        nodes.map((node) => node.getAttribute('data-chart')),
      );
      expect(figures).toEqual(
        expect.arrayContaining([
          'training-reward',
          'evaluation-accuracy',
          'evaluation-categories-test-id',
          'training-categories',
          'training-tags',
          'tag-totals',
          'overlay-timeline',
          'rho',
        ]),
      );
      expect(await page.getAttribute('body', 'data-charts-rendered')).toBe(
        String(figures.length),
      );
      expect(await page.getAttribute('body', 'data-charts-failed')).toBe('');
      for (const id of figures)
        expect(
          await paintedPixels(page, `#chart-${id}`),
          `chart ${id}`,
        ).toBeGreaterThan(2_000);
      expect(await page.locator('table.overlays > tbody > tr').count()).toBe(
        result.data.overlays.overlays.length,
      );
      expect(await page.locator('table.tags .tag').count()).toBeGreaterThan(1);
      await page.screenshot({
        path: join(outDirectory, 'report.png'),
        fullPage: true,
      });
      expect(seen.errors).toEqual([]);
      // Self-contained: the page itself is the only request.
      expect(seen.requests).toEqual([`file://${result.path}`]);
      await page.close();
    });

    it('should list episodes, open one, and show its messages, calls, verdict, tags and overlay', async () => {
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
        const seen = watch(page);
        await page.goto(url);
        const rows = page.locator('table.episodes tbody tr');
        expect(await rows.count()).toBe(4 * 3);
        expect(await page.locator('aside.files a').count()).toBe(
          readdirSync(join(runDirectory, 'episodes')).length,
        );
        await page.screenshot({
          path: join(outDirectory, 'viewer-index.png'),
          fullPage: true,
        });

        // A solved base task: it made calls, and every turn has a tag.
        await rows
          .filter({ has: page.locator('.tag.pass') })
          .filter({ hasText: 'base' })
          .first()
          .locator('a')
          .click();
        await page.waitForSelector('section.turn');
        expect(await page.getAttribute('.verdict', 'data-verdict')).toBe(
          'success',
        );
        expect(await page.locator('.message.user').count()).toBeGreaterThan(0);
        expect(
          await page.locator('.message.assistant').count(),
        ).toBeGreaterThan(0);
        expect(
          await page.locator('table.calls tr.call').count(),
        ).toBeGreaterThan(0);
        const turns = await page.locator('section.turn').count();
        expect(
          await page.locator('section.turn header .tag:not(.fine)').count(),
        ).toBe(turns);
        expect(await page.locator('section.overlay').textContent()).toContain(
          'System-prompt notes',
        );
        await page.screenshot({
          path: join(outDirectory, 'viewer-episode.png'),
          fullPage: true,
        });

        // Model output that looks like markup is shown as text and never runs.
        const files = readdirSync(join(runDirectory, 'episodes')).sort();
        let found: { file: string; index: number } | undefined;
        for (const file of files) {
          const lines = readFileSync(
            join(runDirectory, 'episodes', file),
            'utf8',
          )
            .trim()
            .split('\n');
          const index = lines.findIndex((line) =>
            line.includes('window.__sealInjected'),
          );
          if (index >= 0) {
            found = { file, index };
            break;
          }
        }
        expect(
          found,
          'the scripted policy writes markup in some replies',
        ).toBeDefined();
        await page.goto(`${url}/episode/${found!.file}/${found!.index}`);
        expect(await page.locator('main').textContent()).toContain(
          injectedText,
        );
        expect(
          await page.evaluate(
            () => (globalThis as { __sealInjected?: number }).__sealInjected,
          ),
        ).toBeUndefined();
        expect(await page.locator('main script, main img').count()).toBe(0);
        await page.screenshot({
          path: join(outDirectory, 'viewer-escaped.png'),
          fullPage: true,
        });

        expect(seen.errors).toEqual([]);

        // Unknown episodes get a clear 404 (which the console reports).
        const missing = await page.goto(`${url}/episode/${files[0]}/999`);
        expect(missing?.status()).toBe(404);
        expect(await page.locator('main').textContent()).toContain(
          'no episode 999',
        );
        seen.errors.length = 0;

        // A torn last line (a run still writing) is skipped with a warning.
        const last = files.filter((name) => name.startsWith('step-')).at(-1)!;
        appendFileSync(
          join(runDirectory, 'episodes', last),
          '{"schemaVersion":1,"episodeId":"torn',
        );
        await page.goto(`${url}/?file=${last}`);
        expect(await rows.count()).toBe(4 * 3);
        expect(await page.locator('ul.warnings').textContent()).toContain(
          'truncated last line',
        );
        expect(seen.errors).toEqual([]);
        expect(seen.requests.every((request) => request.startsWith(url))).toBe(
          true,
        );
        await page.close();
      } finally {
        viewer.kill('SIGTERM');
        await stopped;
      }
    });
  });
}

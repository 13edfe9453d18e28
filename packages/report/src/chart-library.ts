import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { SealError } from '@seal/spec';

/** The Chart.js version the report inlines (read from its bundle's banner). */
export type ChartLibrary = { source: string; version: string };

let cached: Promise<ChartLibrary> | undefined;

/**
 * Reads Chart.js's minified UMD bundle from the installed package, to inline
 * it into `report.html`. The package's `exports` do not name the bundle, so
 * it is found beside the resolved entry point (`dist/`).
 *
 * Throws a SealError `FILE_NOT_FOUND` when chart.js is not installed.
 */
export function loadChartLibrary(): Promise<ChartLibrary> {
  cached ??= (async () => {
    const require = createRequire(import.meta.url);
    let path: string;
    try {
      path = join(dirname(require.resolve('chart.js')), 'chart.umd.min.js');
      const source = await readFile(path, 'utf8');
      const version =
        /Chart\.js v(\d+\.\d+\.\d+)/.exec(source)?.[1] ?? 'unknown';
      return { source, version };
    } catch (error) {
      cached = undefined;
      throw new SealError({
        code: 'FILE_NOT_FOUND',
        message:
          'cannot read the Chart.js browser bundle (is chart.js installed?)',
        cause: error,
      });
    }
  })();
  return cached;
}

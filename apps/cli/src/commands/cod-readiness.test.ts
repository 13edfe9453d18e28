import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { measureReadiness } from '@seal/cod';
import { packRunRecordSchema, toSealError } from '@seal/spec';
import { afterAll, describe, expect, it } from 'vitest';
import { exitCodes } from '../exit-codes';
import type { Output } from '../ui/output';
import { readinessLines, runCodReadiness } from './cod-readiness';

const root = mkdtempSync(join(tmpdir(), 'seal-cod-readiness-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

function capture(): {
  output: Output;
  result: () => Record<string, unknown>;
  lines: string[];
} {
  let value: unknown;
  const lines: string[] = [];
  return {
    output: {
      json: false,
      interactive: false,
      line: (text = '') => lines.push(text),
      result: (v) => (value = v),
      progress: () => ({ tick: () => {}, done: () => {} }),
    },
    result: () => value as Record<string, unknown>,
    lines,
  };
}

describe('seal cod readiness', () => {
  it('should refuse neither or both of --model and --preset, and a preset on another environment', async () => {
    for (const argv of [
      [],
      ['--model', root, '--preset', 'smoke'],
      ['--preset', 'smoke', '--env', 'bfcl'],
    ]) {
      const error = await runCodReadiness({
        argv,
        output: capture().output,
      }).then(
        () => undefined,
        (e: unknown) => toSealError(e),
      );
      expect(error?.code).toBe('INVALID_ARGUMENT');
    }
  });

  it('should print the restated fraction, chance and the verdict', () => {
    const shown =
      'Direction 3: you moved from (0,0) to (0,1).\nDirection 2: you moved from (0,1) to (1,1).';
    const control = 'Direction 4: you moved from (2,1) to (1,1).';
    const result = measureReadiness({
      updates: [
        {
          environmentId: 'frozen-lake-obscure',
          response:
            'Direction 3: (0,0) to (0,1) is right\nDirection 2: (0,1) to (1,1) is down\nDirection 4: (2,1) to (1,1) is up',
          previousHints: 'Hints: null',
          shown,
          control,
        },
      ],
    });
    expect(readinessLines(result)).toEqual([
      '  update responses: 1, 1 stating a fact; 0 statements carried from the previous hints (left out)',
      '  restated: 2/3 = 66.7% [20.8%, 93.9%]',
      '  chance:   1/3 = 33.3% [6.1%, 79.2%]',
      '  by kind:  move 2/3 (chance 1/3)',
      '  not ready (bar 80.0%)',
    ]);
  });

  it('should run the smoke preset end to end and report an unready tiny random model', async () => {
    const out = join(root, 'packs.jsonl');
    const run = capture();
    const code = await runCodReadiness({
      argv: [
        '--preset',
        'smoke',
        '--pack-size',
        '2',
        '--cache',
        join(root, 'cache'),
        '--out',
        out,
      ],
      output: run.output,
    });
    expect(code).toBe(exitCodes.checkFailed);
    const records = readFileSync(out, 'utf8')
      .trim()
      .split('\n')
      .map((line) => packRunRecordSchema.parse(JSON.parse(line)));
    expect(records).toHaveLength(2);
    const readiness = run.result().readiness as ReturnType<
      typeof measureReadiness
    >;
    expect(readiness.updates).toBe(2);
    expect(readiness.ready).toBe(false);
    expect(run.lines.at(-1)).toBe('  not ready (bar 80.0%)');

    // --records measures the same pack runs again without a model: the same result.
    const again = capture();
    const recorded = await runCodReadiness({
      argv: ['--records', out, '--format', 'paper'],
      output: again.output,
    });
    expect(recorded).toBe(exitCodes.checkFailed);
    expect(again.result().readiness).toEqual(readiness);
    expect(again.result().packRuns).toBe(2);
  }, 60_000);

  it('should refuse --records with a model, and a missing records file', async () => {
    for (const argv of [
      ['--records', join(root, 'none.jsonl'), '--preset', 'smoke'],
      ['--records', join(root, 'none.jsonl')],
    ]) {
      const error = await runCodReadiness({
        argv,
        output: capture().output,
      }).then(
        () => undefined,
        (e: unknown) => toSealError(e),
      );
      expect(error?.code).toBe(
        argv.length === 2 ? 'FILE_NOT_FOUND' : 'INVALID_ARGUMENT',
      );
    }
  });
});

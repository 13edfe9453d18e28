import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SealError } from '@seal/spec';
import * as z from 'zod';
import { describe, expect, it, onTestFinished } from 'vitest';
import { readJsonLines } from './read-json-lines';

const schema = z.object({ step: z.number() });

/** A file holding `text` in a fresh temporary directory. */
function file(name: string, text: string): string {
  const root = mkdtempSync(join(tmpdir(), 'seal-jsonl-'));
  onTestFinished(() => rmSync(root, { recursive: true, force: true }));
  const path = join(root, name);
  writeFileSync(path, text);
  return path;
}

describe('readJsonLines', () => {
  it('should skip a torn last line with a warning', async () => {
    const path = file('events.jsonl', '{"step":1}\n{"step":2}\n{"st');
    const result = await readJsonLines({ path, schema });
    expect(result.values).toEqual([{ step: 1 }, { step: 2 }]);
    expect(result.warnings).toEqual([
      { type: 'other', message: `${path}:3: skipped a truncated last line` },
    ]);
  });

  it('should skip malformed and mismatching lines and name them', async () => {
    const path = file('f', 'nope\n{"step":"x"}\n{"step":3}\n');
    const result = await readJsonLines({ path, schema });
    expect(result.values).toEqual([{ step: 3 }]);
    expect(
      result.warnings.map((warning) =>
        warning.type === 'other' ? warning.message : '',
      ),
    ).toEqual([
      `${path}:1: skipped a line that is not JSON`,
      `skipped: ${path}:2: field 'step': Invalid input: expected number, received string`,
    ]);
  });

  it('should pass over lines that accept rejects without a warning', async () => {
    const path = file('f', '{"type":"a","step":1}\n{"type":"b"}\n');
    const result = await readJsonLines({
      path,
      schema,
      accept: (value) => (value as { type: string }).type === 'a',
    });
    expect(result.values).toEqual([{ step: 1 }]);
    expect(result.warnings).toEqual([]);
  });

  it('should throw FILE_NOT_FOUND for a file that cannot be read', async () => {
    const error: unknown = await readJsonLines({
      path: join(tmpdir(), 'seal-no-such-dir', 'events.jsonl'),
      schema,
    }).catch((caught: unknown) => caught);
    expect(SealError.isInstance(error)).toBe(true);
    expect((error as SealError).code).toBe('FILE_NOT_FOUND');
  });
});

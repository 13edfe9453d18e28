import * as z from 'zod';
import { describe, expect, it } from 'vitest';
import { parseJsonLines } from './read-json-lines';

const schema = z.object({ step: z.number() });

describe('parseJsonLines', () => {
  it('should skip a torn last line with a warning', () => {
    const result = parseJsonLines({
      text: '{"step":1}\n{"step":2}\n{"st',
      source: 'events.jsonl',
      schema,
    });
    expect(result.values).toEqual([{ step: 1 }, { step: 2 }]);
    expect(result.warnings).toEqual([
      {
        type: 'other',
        message: 'events.jsonl:3: skipped a truncated last line',
      },
    ]);
  });

  it('should skip malformed and mismatching lines and name them', () => {
    const result = parseJsonLines({
      text: 'nope\n{"step":"x"}\n{"step":3}\n',
      source: 'f',
      schema,
    });
    expect(result.values).toEqual([{ step: 3 }]);
    expect(
      result.warnings.map((warning) =>
        warning.type === 'other' ? warning.message : '',
      ),
    ).toEqual([
      'f:1: skipped a line that is not JSON',
      expect.stringMatching(/^skipped: f:2: field 'step'/),
    ]);
  });

  it('should pass over lines that accept rejects without a warning', () => {
    const result = parseJsonLines({
      text: '{"type":"a","step":1}\n{"type":"b"}\n',
      source: 'f',
      schema,
      accept: (value) => (value as { type: string }).type === 'a',
    });
    expect(result).toEqual({ values: [{ step: 1 }], warnings: [] });
  });
});

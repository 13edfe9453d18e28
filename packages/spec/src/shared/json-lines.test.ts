import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import { SealError } from '../errors/seal-error';
import {
  formatJsonLines,
  parseJsonLineEntries,
  parseJsonLines,
  safeParseJsonLines,
} from './json-lines';

const schema = z.object({ step: z.number().int() });

describe('JSON Lines', () => {
  it('round-trips values through the writer and the reader', () => {
    const values = [{ step: 1 }, { step: 2 }];
    const text = formatJsonLines(values);
    expect(text).toBe('{"step":1}\n{"step":2}\n');
    expect(parseJsonLines({ text, source: 'f.jsonl', schema })).toEqual(values);
    expect(formatJsonLines([])).toBe('');
  });

  it('skips blank lines and lines that accept rejects', () => {
    const text = '{"step":1}\n\n{"type":"other"}\n{"step":3}\n';
    expect(
      parseJsonLines({
        text,
        source: 'f.jsonl',
        schema,
        accept: (value) =>
          typeof value === 'object' && value !== null && 'step' in value,
      }),
    ).toEqual([{ step: 1 }, { step: 3 }]);
  });

  it('gives each value its line number and source', () => {
    expect(
      parseJsonLineEntries({
        text: '\n{"step":1}\n\n{"step":2}\n',
        source: 'f.jsonl',
        schema,
      }),
    ).toEqual([
      { value: { step: 1 }, lineNumber: 2, source: 'f.jsonl:2' },
      { value: { step: 2 }, lineNumber: 4, source: 'f.jsonl:4' },
    ]);
  });

  it('names the file and line of a line that does not parse', () => {
    const text = '{"step":1}\n{"step":"two"}\n';
    let caught: unknown;
    try {
      parseJsonLines({ text, source: 'runs/r/events.jsonl', schema });
    } catch (error) {
      caught = error;
    }
    expect(SealError.isInstance(caught)).toBe(true);
    expect((caught as SealError).code).toBe('INVALID_DATA');
    expect((caught as SealError).message).toContain(
      "runs/r/events.jsonl:2: field 'step'",
    );
    expect(() =>
      parseJsonLines({ text: '{"step":1}\n{"st', source: 'f.jsonl', schema }),
    ).toThrow('f.jsonl:2: invalid JSON');
  });

  it('skips torn and malformed lines with a warning when lenient', () => {
    const text = '{"step":1}\n{"step":"x"}\nnot json\n{"step":4}\n{"ste';
    const result = safeParseJsonLines({ text, source: 'f.jsonl', schema });
    expect(result.values).toEqual([{ step: 1 }, { step: 4 }]);
    expect(result.lines).toEqual([
      { lineNumber: 1, text: '{"step":1}' },
      { lineNumber: 4, text: '{"step":4}' },
    ]);
    expect(
      result.warnings.map((warning) =>
        warning.type === 'other' ? warning.message : '',
      ),
    ).toEqual([
      "skipped: f.jsonl:2: field 'step': Invalid input: expected number, received string",
      'f.jsonl:3: skipped a line that is not JSON',
      'f.jsonl:5: skipped a truncated last line',
    ]);
  });
});

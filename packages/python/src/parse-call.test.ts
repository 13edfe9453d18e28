import { describe, expect, it } from 'vitest';
import {
  formatCall,
  parseCallString,
  type ParseCallResult,
} from './parse-call';
import { PyDict, PySet, PyTuple } from './py-value';

function ok(result: ParseCallResult) {
  if (!result.success)
    throw new Error(`expected success, got ${result.error.message}`);
  return result.value;
}
function fail(result: ParseCallResult) {
  if (result.success) throw new Error('expected a rejection');
  return result.error;
}

describe('parseCallString', () => {
  it('should give every caller its own argument containers, even for a text parsed before', () => {
    const text = "post_tweet(content='x', tags=['#a'], meta={'k': [1]})";
    const first = parseCallString(text);
    const second = parseCallString(text);
    if (!first.success || !second.success)
      throw new Error('expected both to parse');
    expect(second.value).toEqual(first.value);
    (first.value.kwargs[1]![1] as unknown[]).push('#b');
    ((first.value.kwargs[2]![1] as PyDict).get('k') as unknown[]).push(2n);
    const third = parseCallString(text);
    expect(third).toEqual(second);
    expect(third.success && third.value.kwargs[1]![1]).toEqual(['#a']);
  });

  it('should copy every container kind of a cached parse, and the argument lists themselves', () => {
    const text = "f([1, [2]], ([3], 'a'), {4, 'b'}, k={'d': {'e': [5]}})";
    const parse = () => ok(parseCallString(text));
    const pristine = formatCall(parse());
    const mutated = parse();
    (mutated.args[0] as unknown[][])[1]!.push(0n);
    ((mutated.args[1] as PyTuple).items[0] as unknown[]).push(0n);
    (mutated.args[2] as PySet).add('c');
    (
      ((mutated.kwargs[0]![1] as PyDict).get('d') as PyDict).get(
        'e',
      ) as unknown[]
    ).push(0n);
    mutated.kwargs[0]![1] = null;
    mutated.kwargs.push(['z', 1n]);
    mutated.args.push(1n);
    expect(formatCall(parse())).toBe(pristine);
    expect(formatCall(parse())).toBe(
      `f([1, [2]], ([3], 'a'), {4, 'b'}, k={'d': {'e': [5]}})`,
    );
  });

  it('should give independent copies of long calls too (a file written with its contents)', () => {
    const content = 'line\\n'.repeat(1000);
    const text = `echo(content='${content}', tags=['a'])`;
    ok(parseCallString(text));
    (ok(parseCallString(text)).kwargs[1]![1] as unknown[]).push('b');
    expect(ok(parseCallString(text)).kwargs).toEqual([
      ['content', 'line\n'.repeat(1000)],
      ['tags', ['a']],
    ]);
  });

  describe('accepted calls', () => {
    it('should parse keyword and positional literal arguments', () => {
      const call = ok(
        parseCallString("sort('final_report.pdf', reverse=True, n=-3, x=2.50)"),
      );
      expect(call.name).toBe('sort');
      expect(call.args).toEqual(['final_report.pdf']);
      expect(call.kwargs).toEqual([
        ['reverse', true],
        ['n', -3n],
        ['x', 2.5],
      ]);
    });

    it('should keep ints and floats apart', () => {
      const call = ok(parseCallString('f(a=5, b=5.0, c=1e3, d=0x1F, e=1_000)'));
      expect(call.kwargs.map(([, v]) => v)).toEqual([5n, 5, 1000, 31n, 1000n]);
    });

    it('should parse nested containers', () => {
      const call = ok(
        parseCallString(
          "f(a=[1, (2, 3), {'k': [None]}, {4}], b=(), c=(1,), d={})",
        ),
      );
      const [a, b, c, d] = call.kwargs.map(([, v]) => v);
      expect(Array.isArray(a)).toBe(true);
      expect((a as unknown[])[1]).toBeInstanceOf(PyTuple);
      expect((a as unknown[])[2]).toBeInstanceOf(PyDict);
      expect((a as unknown[])[3]).toBeInstanceOf(PySet);
      expect(b).toEqual(new PyTuple([]));
      expect(c).toEqual(new PyTuple([1n]));
      expect(d).toBeInstanceOf(PyDict);
    });

    it('should decode string escapes, prefixes and implicit concatenation', () => {
      const call = ok(
        parseCallString(
          String.raw`f(a='it\'s\n', b="\x41\u00e9\U0001F600", c=r'\d+', d='ab' "cd", e='''x"y''')`,
        ),
      );
      expect(call.kwargs.map(([, v]) => v)).toEqual([
        "it's\n",
        'Aé😀',
        '\\d+',
        'abcd',
        'x"y',
      ]);
    });

    it('should accept dotted names and whitespace', () => {
      const call = ok(parseCallString('  api.method ( x = 1 , )  '));
      expect(call.name).toBe('api.method');
      expect(call.kwargs).toEqual([['x', 1n]]);
    });

    it('should round-trip through formatCall', () => {
      const text =
        "post_tweet(content='hello', tags=['#a', '#b'], mentions=[])";
      expect(formatCall(ok(parseCallString(text)))).toBe(text);
      expect(formatCall(ok(parseCallString('f(1, 2.0, k=None)')))).toBe(
        'f(1, 2.0, k=None)',
      );
    });
  });

  describe('syntax errors, with CPython 3.11 messages', () => {
    // Messages printed by compile(text, '<string>', 'eval').
    const cases: [string, string][] = [
      ["cat(file_name='x'", "'(' was never closed (<string>, line 1)"],
      ['f(a=1, a=2)', 'keyword argument repeated: a (<string>, line 1)'],
      [
        'f(a=1, 2)',
        'positional argument follows keyword argument (<string>, line 1)',
      ],
      [
        "f(a='x)",
        'unterminated string literal (detected at line 1) (<string>, line 1)',
      ],
      [
        'f(a=[1,2)',
        "closing parenthesis ')' does not match opening parenthesis '[' (<string>, line 1)",
      ],
      ['f(a=1))', "unmatched ')' (<string>, line 1)"],
      [
        'f(a=01)',
        'leading zeros in decimal integer literals are not permitted; use an 0o prefix for octal integers (<string>, line 1)',
      ],
      [
        "f(a='''x)",
        'unterminated triple-quoted string literal (detected at line 1) (<string>, line 1)',
      ],
      ['f(', "'(' was never closed (<string>, line 1)"],
      ['f(a=', "'(' was never closed (<string>, line 1)"],
      [
        'f(a=1 b=2)',
        'invalid syntax. Perhaps you forgot a comma? (<string>, line 1)',
      ],
      [
        'f(a=(1,2]',
        "closing parenthesis ']' does not match opening parenthesis '(' (<string>, line 1)",
      ],
      [
        'f(a={1:2)',
        "closing parenthesis ')' does not match opening parenthesis '{' (<string>, line 1)",
      ],
      ['f(a=1,,)', 'invalid syntax (<string>, line 1)'],
      ['f(1a)', 'invalid decimal literal (<string>, line 1)'],
      [
        'f(a="x\\xZZ")',
        "(unicode error) 'unicodeescape' codec can't decode bytes in position 1-2: truncated \\xXX escape (<string>, line 1)",
      ],
      [
        "f(a={'k' 1})",
        'invalid syntax. Perhaps you forgot a comma? (<string>, line 1)',
      ],
    ];
    it.each(cases)('should reject %s', (text, message) => {
      const error = fail(parseCallString(text));
      expect(error.kind).toBe('syntax');
      expect(error.message).toBe(message);
    });
  });

  describe('refusals of anything that would need evaluation', () => {
    it.each([
      ['f(a=foo)', 'name'],
      ['f(a=__import__("os"))', 'not-literal'],
      ['f(a=1+2)', 'not-literal'],
      ['f(a=lambda: 1)', 'not-literal'],
      ['f(a=[x for x in y])', 'name'],
      ['f(a="x".upper())', 'not-literal'],
      ['f(a=().__class__)', 'not-literal'],
      ['f(*args)', 'not-literal'],
      ['f(**{"a": 1})', 'not-literal'],
      ['f(a=f"{x}")', 'not-literal'],
      ["f(a=b'x')", 'not-literal'],
      ['f(a=1j)', 'not-literal'],
      ['f(a={[1]: 2})', 'not-literal'],
      ['f(a=g(1))', 'not-literal'],
      ['42', 'not-a-call'],
      ['f(1) + g(2)', 'not-a-call'],
      ['[f(a=1)]', 'not-a-call'],
    ])('should refuse %s as %s', (text, kind) => {
      expect(fail(parseCallString(text)).kind).toBe(kind);
    });

    it('should give the NameError text for a bare name', () => {
      expect(fail(parseCallString('f(symbol=AAPL)')).message).toBe(
        "name 'AAPL' is not defined",
      );
    });

    it('should enforce nesting and size limits', () => {
      const deep = `f(a=${'['.repeat(500)}${']'.repeat(500)})`;
      expect(fail(parseCallString(deep)).kind).toBe('limit');
      expect(fail(parseCallString(`f(a=${'9'.repeat(5000)})`)).kind).toBe(
        'limit',
      );
      expect(fail(parseCallString('f()', { maxLength: 2 })).kind).toBe('limit');
    });
  });
});

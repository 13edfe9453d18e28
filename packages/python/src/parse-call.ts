import { pyRepr } from './py-repr';
import {
  pyAdd,
  pyFloorDiv,
  pyMod,
  pyMul,
  pyPow,
  pySub,
  pyTrueDiv,
} from './py-ops';
import { PyException } from './py-exception';
import {
  PyDict,
  PyObject,
  PySet,
  PyTuple,
  isPyKey,
  type PyKey,
  type PyValue,
} from './py-value';

/** A parsed Python call `name(arg, ..., key=value, ...)` with literal arguments. */
export type ParsedCall = {
  /** The callee, possibly dotted (`a.b`). */
  name: string;
  /** Positional arguments, in order. */
  args: PyValue[];
  /** Keyword arguments, in source order (duplicates are rejected). */
  kwargs: [string, PyValue][];
};

/**
 * Why a call string was rejected:
 * - `syntax`: not valid Python (the message imitates CPython's SyntaxError);
 * - `name`: an argument is a bare name, which Python would look up (NameError);
 * - `not-literal`: an argument is an expression (call, operator, comprehension,
 *   attribute, f-string, ...) that would need evaluation;
 * - `limit`: a literal exceeds a size or nesting limit;
 * - `not-a-call`: the text is valid Python but not a single call.
 */
export type ParseCallErrorKind =
  'syntax' | 'name' | 'not-literal' | 'limit' | 'not-a-call';

/** A rejected call string: a kind, and a message for the model or the user. */
export type ParseCallError = {
  kind: ParseCallErrorKind;
  /** For `syntax`, `name` and `limit`, the text CPython would put in `str(e)`. */
  message: string;
  /** Character offset of the problem. */
  position: number;
};

/** The result of {@link parseCallString}. */
export type ParseCallResult =
  | { success: true; value: ParsedCall }
  | { success: false; error: ParseCallError };

/** Limits that keep hostile input cheap to reject. */
export type ParseCallLimits = {
  /** Maximum input length in characters. Default 1,000,000. */
  maxLength?: number;
  /** Maximum bracket nesting depth. Default 100 (CPython allows 200). */
  maxDepth?: number;
  /** Maximum digits of an integer literal. Default 4,300 (CPython's limit). */
  maxIntDigits?: number;
};

/**
 * How lenient the parser is. The defaults are strict (literals only). The
 * `bfcl-prompting` preset reproduces BFCL's prompting decoder
 * (`default_decode_execute_prompting`): bare names become strings, arithmetic
 * on literals is folded, and a nested call is kept as source text.
 */
export type ParseCallOptions = ParseCallLimits & {
  /** `reject` (default): a bare name is a NameError. `string`: it becomes its own text. */
  bareNames?: 'reject' | 'string';
  /** Fold `+ - * / // % **` over literal operands (bounded). Default false. */
  arithmetic?: boolean;
  /**
   * `reject` (default): nested calls are refused. `source`: BFCL's decoder
   * rule — a nested call without keyword arguments becomes its source text (a
   * string), one with keyword arguments stays a call (printed unquoted).
   */
  nestedCalls?: 'reject' | 'source';
};

/** A nested call kept as code by BFCL's prompting decoder; prints unquoted. */
export class PyRawCall extends PyObject {
  readonly pyTypeName = 'Call';
  constructor(readonly source: string) {
    super();
  }
  pyRepr(): string {
    return this.source;
  }
}

class ParseFailure extends Error {
  readonly kind: ParseCallErrorKind;
  readonly position: number;
  constructor(kind: ParseCallErrorKind, message: string, position: number) {
    // Control flow inside the parser, never seen outside it: no stack trace
    // (capturing one is most of the cost of rejecting hostile text).
    const limit = Error.stackTraceLimit;
    Error.stackTraceLimit = 0;
    super(message);
    Error.stackTraceLimit = limit;
    this.kind = kind;
    this.position = position;
  }
}

const identifierStart = /[\p{L}\p{Nl}_]/u;
const identifierPart = /[\p{L}\p{Nl}\p{Mn}\p{Mc}\p{Nd}\p{Pc}_]/u;
const pythonKeywords = new Set([
  'False',
  'None',
  'True',
  'and',
  'as',
  'assert',
  'async',
  'await',
  'break',
  'class',
  'continue',
  'def',
  'del',
  'elif',
  'else',
  'except',
  'finally',
  'for',
  'from',
  'global',
  'if',
  'import',
  'in',
  'is',
  'lambda',
  'nonlocal',
  'not',
  'or',
  'pass',
  'raise',
  'return',
  'try',
  'while',
  'with',
  'yield',
]);
const closers: Record<string, string> = { '(': ')', '[': ']', '{': '}' };

/** `[A-Za-z_]` by character code (NaN, past the end, is false). */
function isAsciiIdentifierStart(code: number): boolean {
  return (
    (code >= 0x61 && code <= 0x7a) ||
    (code >= 0x41 && code <= 0x5a) ||
    code === 0x5f
  );
}

function isDigit(code: number): boolean {
  return code >= 0x30 && code <= 0x39;
}

const stringPrefix = /([rRuUbBfF]{0,2})(['"])/y;
const radixLiteral =
  /0([xX](?:_?[0-9a-fA-F])+|[oO](?:_?[0-7])+|[bB](?:_?[01])+)/y;
const decimalLiteral =
  /(?:(?:\d(?:_?\d)*)?\.\d(?:_?\d)*(?:[eE][+-]?\d(?:_?\d)*)?|\d(?:_?\d)*\.(?:[eE][+-]?\d(?:_?\d)*)?|\d(?:_?\d)*[eE][+-]?\d(?:_?\d)*|\d(?:_?\d)*)/y;

/**
 * Parses one Python call expression whose arguments are literals only
 * (strings, numbers, `True`/`False`/`None`, lists, tuples, dicts, sets, and
 * unary `+`/`-` on numbers). Nothing is ever evaluated: names, operators,
 * calls, attribute access, lambdas, comprehensions and f-strings inside the
 * arguments are rejected. Never throws.
 */
export function parseCallString(
  text: string,
  options?: ParseCallOptions,
): ParseCallResult {
  const cacheable =
    text.length <= maxCachedLength &&
    (options === undefined || usesDefaults(options));
  if (cacheable) {
    const cached = parsedCalls.get(text);
    if (cached !== undefined) return copyResult(cached);
  }
  const run = runParser(text, options ?? {}, (parser) => [parser.parseCall()]);
  const result: ParseCallResult = run.success
    ? { success: true, value: run.value[0]! }
    : run;
  if (cacheable) {
    if (
      parsedCalls.size >= maxCachedCalls ||
      parsedCallChars + text.length > maxCachedChars
    ) {
      parsedCalls.clear();
      parsedCallChars = 0;
    }
    parsedCalls.set(text, copyResult(result));
    parsedCallChars += text.length;
  }
  return result;
}

/**
 * Results of {@link parseCallString} with default options, by text: an
 * agent's calls repeat a lot (`cd(folder='..')`, `ls()`), within an episode
 * and across the rollouts of a task, long ones too (a file written with its
 * contents). Each hit gets its own copy of every container, so a caller that
 * keeps or mutates an argument never touches the cache. Bounded by entries
 * and by the characters of their texts: cleared when either is full.
 */
const parsedCalls = new Map<string, ParseCallResult>();
const maxCachedCalls = 4096;
const maxCachedLength = 65_536;
const maxCachedChars = 4_194_304;
let parsedCallChars = 0;

function usesDefaults(options: ParseCallOptions): boolean {
  return (
    options.bareNames === undefined &&
    options.arithmetic === undefined &&
    options.nestedCalls === undefined &&
    options.maxLength === undefined &&
    options.maxDepth === undefined &&
    options.maxIntDigits === undefined
  );
}

function copyResult(result: ParseCallResult): ParseCallResult {
  if (!result.success) return { success: false, error: { ...result.error } };
  const { name, args, kwargs } = result.value;
  return {
    success: true,
    value: {
      name,
      args: args.map(copyLiteral),
      kwargs: kwargs.map(copyKeyword),
    },
  };
}

function copyKeyword([key, value]: [string, PyValue]): [string, PyValue] {
  return [key, copyLiteral(value)];
}

/**
 * A copy of a parsed literal: primitives shared, containers copied. A
 * literal is a tree (the parser builds a new container for each bracket, so
 * none is reached twice), which `deepcopy`'s memo would only slow down; set
 * elements and tuple items that are not containers are immutable and shared.
 */
function copyLiteral(value: PyValue): PyValue {
  if (value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) return value.map(copyLiteral);
  if (value instanceof PyDict) return PyDict.mapValues(value, copyLiteral);
  if (value instanceof PyTuple)
    return new PyTuple(value.items.map(copyLiteral));
  if (value instanceof PySet) return new PySet(value);
  return value;
}

/**
 * Parses one call or a comma-separated sequence of calls (`a(), b()`,
 * optionally parenthesised), as BFCL's prompting decoder accepts after
 * stripping the outer list brackets.
 */
export function parseCallSequence(
  text: string,
  options: ParseCallOptions = {},
):
  | { success: true; value: ParsedCall[] }
  | { success: false; error: ParseCallError } {
  return runParser(text, options, (parser) => parser.parseSequence());
}

function runParser(
  text: string,
  limits: ParseCallOptions,
  run: (parser: CallParser) => ParsedCall[],
):
  | { success: true; value: ParsedCall[] }
  | { success: false; error: ParseCallError } {
  const maxLength = limits.maxLength ?? 1_000_000;
  if (text.length > maxLength) {
    return {
      success: false,
      error: {
        kind: 'limit',
        message: `call text longer than ${maxLength} characters`,
        position: 0,
      },
    };
  }
  try {
    const parser = new CallParser(
      text,
      limits.maxDepth ?? 100,
      limits.maxIntDigits ?? 4300,
      limits,
    );
    return { success: true, value: run(parser) };
  } catch (error) {
    if (error instanceof ParseFailure) {
      return {
        success: false,
        error: {
          kind: error.kind,
          message: error.message,
          position: error.position,
        },
      };
    }
    if (PyException.isInstance(error)) {
      return {
        success: false,
        error: { kind: 'not-literal', message: error.message, position: 0 },
      };
    }
    if (error instanceof RangeError) {
      // Stack exhaustion on pathological input: still a clean rejection.
      return {
        success: false,
        error: {
          kind: 'limit',
          message: 'input too deeply nested',
          position: 0,
        },
      };
    }
    throw error;
  }
}

/** Renders a call back to Python source: `name(a, k=repr(v), ...)`. */
export function formatCall(
  call: ParsedCall,
  { keywordSeparator = ', ' } = {},
): string {
  const parts = [
    ...call.args.map(pyRepr),
    ...call.kwargs.map(([key, value]) => `${key}=${pyRepr(value)}`),
  ];
  return `${call.name}(${parts.join(keywordSeparator)})`;
}

class CallParser {
  private pos = 0;
  private depth = 0;
  private readonly openStack: { char: string; position: number }[] = [];

  constructor(
    private readonly text: string,
    private readonly maxDepth: number,
    private readonly maxIntDigits: number,
    private readonly options: ParseCallOptions,
  ) {}

  parseCall(): ParsedCall {
    this.skipSpace();
    const call = this.parseCallAt();
    this.skipSpace();
    if (this.pos < this.text.length) {
      this.scanForSyntaxErrors();
      throw new ParseFailure(
        'not-a-call',
        'unexpected text after the call; send one call per string',
        this.pos,
      );
    }
    return call;
  }

  parseSequence(): ParsedCall[] {
    this.skipSpace();
    let wrapped = false;
    if (this.peek() === '(') {
      wrapped = true;
      this.open();
    }
    const calls: ParsedCall[] = [];
    for (;;) {
      this.skipSpace();
      if (wrapped && this.peek() === ')') break;
      if (this.pos >= this.text.length) break;
      calls.push(this.parseCallAt());
      this.skipSpace();
      if (this.peek() === ',') {
        this.pos++;
        continue;
      }
      break;
    }
    if (wrapped) this.close(')');
    this.skipSpace();
    if (this.pos < this.text.length || calls.length === 0) {
      this.scanForSyntaxErrors();
      this.syntax('invalid syntax', this.pos);
    }
    return calls;
  }

  /** `name(args)` starting at the current position. */
  parseCallAt(): ParsedCall {
    this.skipSpace();
    const nameStart = this.pos;
    if (this.pos >= this.text.length) this.syntax('invalid syntax', this.pos);
    const first = this.readIdentifier();
    if (first === undefined) {
      // A literal or operator at the top level: valid Python maybe, but not a call.
      this.scanForSyntaxErrors();
      throw new ParseFailure(
        'not-a-call',
        'expected a function call such as name(arg=value)',
        nameStart,
      );
    }
    let name = first;
    this.skipSpace();
    while (this.peek() === '.') {
      this.pos++;
      this.skipSpace();
      const part = this.readIdentifier();
      if (part === undefined) this.syntax('invalid syntax', this.pos);
      name += `.${part}`;
      this.skipSpace();
    }
    if (
      pythonKeywords.has(first) &&
      first !== 'True' &&
      first !== 'False' &&
      first !== 'None'
    ) {
      this.syntax('invalid syntax', nameStart);
    }
    if (this.peek() !== '(') {
      this.scanForSyntaxErrors();
      throw new ParseFailure(
        'not-a-call',
        'expected a function call such as name(arg=value)',
        this.pos,
      );
    }
    this.open();
    const args: PyValue[] = [];
    const kwargs: [string, PyValue][] = [];
    const seen = new Set<string>();
    this.skipSpace();
    while (this.peek() !== ')') {
      if (this.pos >= this.text.length) this.unclosed();
      const argStart = this.pos;
      if (this.peek() === '*') {
        this.scanForSyntaxErrors();
        throw new ParseFailure(
          'not-literal',
          'argument unpacking (* or **) is not allowed',
          argStart,
        );
      }
      const keyword = this.tryKeyword();
      if (keyword !== undefined) {
        if (seen.has(keyword))
          this.syntax(`keyword argument repeated: ${keyword}`, argStart);
        seen.add(keyword);
        kwargs.push([keyword, this.parseExpression()]);
      } else {
        const value = this.parseExpression();
        if (kwargs.length > 0)
          this.syntax('positional argument follows keyword argument', argStart);
        args.push(value);
      }
      this.skipSpace();
      if (this.peek() === ',') {
        this.pos++;
        this.skipSpace();
        continue;
      }
      if (this.peek() !== ')') {
        if (this.pos >= this.text.length) this.unclosed();
        this.expressionContinues();
      }
    }
    this.close(')');
    return { name, args, kwargs };
  }

  /** `name=` at the current position (not `name==`), or undefined. */
  private tryKeyword(): string | undefined {
    const start = this.pos;
    const name = this.readIdentifier();
    if (name === undefined) return undefined;
    this.skipSpace();
    if (this.peek() === '=' && this.text[this.pos + 1] !== '=') {
      if (pythonKeywords.has(name)) this.syntax('invalid syntax', start);
      this.pos++;
      this.skipSpace();
      return name;
    }
    this.pos = start;
    return undefined;
  }

  private parseExpression(): PyValue {
    this.skipSpace();
    const start = this.pos;
    const value = this.options.arithmetic
      ? this.parseArithmetic()
      : this.parseUnary();
    this.skipSpace();
    const next = this.peek();
    if (next !== undefined && !',)]}:'.includes(next))
      this.expressionContinuesFrom(start);
    return value;
  }

  /** `term (('+' | '-') term)*`, folded (BFCL's prompting decoder evaluates it). */
  private parseArithmetic(): PyValue {
    let left = this.parseTerm();
    for (;;) {
      this.skipSpace();
      const c = this.peek();
      if (c !== '+' && c !== '-') return left;
      this.pos++;
      const right = this.parseTerm();
      left = c === '+' ? pyAdd(left, right) : pySub(left, right);
      this.checkSize(left);
    }
  }

  private parseTerm(): PyValue {
    let left = this.parseFactor();
    for (;;) {
      this.skipSpace();
      const rest = this.text.slice(this.pos, this.pos + 2);
      const op =
        rest === '//'
          ? '//'
          : rest[0] === '*' && rest !== '**'
            ? '*'
            : rest[0] === '/'
              ? '/'
              : rest[0] === '%'
                ? '%'
                : undefined;
      if (op === undefined) return left;
      this.pos += op.length;
      const right = this.parseFactor();
      left =
        op === '*'
          ? pyMul(left, right)
          : op === '/'
            ? pyTrueDiv(left, right)
            : op === '//'
              ? pyFloorDiv(left, right)
              : pyMod(left, right);
      this.checkSize(left);
    }
  }

  private parseFactor(): PyValue {
    this.skipSpace();
    const c = this.peek();
    if (c === '-' || c === '+') {
      const opPos = this.pos;
      this.pos++;
      return this.negate(c, this.parseFactor(), opPos);
    }
    const base = this.parseAtom();
    this.skipSpace();
    if (this.text.startsWith('**', this.pos)) {
      this.pos += 2;
      const exponent = this.parseFactor();
      if (
        typeof exponent === 'bigint' &&
        (exponent > 10_000n || exponent < -10_000n)
      ) {
        throw new ParseFailure('limit', 'exponent too large to fold', this.pos);
      }
      const result = pyPow(base, exponent);
      this.checkSize(result);
      return result;
    }
    return base;
  }

  private checkSize(value: PyValue): void {
    const big =
      typeof value === 'bigint' &&
      (value > 10n ** 4300n || value < -(10n ** 4300n));
    const long =
      (typeof value === 'string' || Array.isArray(value)) &&
      value.length > 1_000_000;
    if (big || long)
      throw new ParseFailure('limit', 'folded value too large', this.pos);
  }

  private negate(sign: string, operand: PyValue, position: number): PyValue {
    if (typeof operand === 'bigint') return sign === '-' ? -operand : operand;
    if (typeof operand === 'number') return sign === '-' ? -operand : operand;
    if (typeof operand === 'boolean')
      return sign === '-' ? -BigInt(operand) : BigInt(operand);
    throw new ParseFailure(
      'not-literal',
      'unary +/- applies to numbers only',
      position,
    );
  }

  private parseUnary(): PyValue {
    this.skipSpace();
    const c = this.peek();
    if (c === '-' || c === '+') {
      const opPos = this.pos;
      this.pos++;
      const operand = this.parseUnary();
      if (typeof operand === 'bigint') return c === '-' ? -operand : operand;
      if (typeof operand === 'number') return c === '-' ? -operand : operand;
      if (typeof operand === 'boolean')
        return c === '-' ? -BigInt(operand) : BigInt(operand);
      throw new ParseFailure(
        'not-literal',
        'unary +/- applies to numbers only',
        opPos,
      );
    }
    return this.parseAtom();
  }

  private parseAtom(): PyValue {
    this.skipSpace();
    const start = this.pos;
    const c = this.peek();
    if (c === undefined) this.unclosed();
    if (c === '[') return this.parseList();
    if (c === '(') return this.parseParenthesized();
    if (c === '{') return this.parseBraces();
    if (c === '"' || c === "'") return this.parseStrings();
    if (
      isDigit(this.text.charCodeAt(this.pos)) ||
      (c === '.' && isDigit(this.text.charCodeAt(this.pos + 1)))
    ) {
      return this.parseNumber();
    }
    const name = this.readIdentifier();
    if (name !== undefined) {
      const q = this.peek();
      if (
        (q === '"' || q === "'") &&
        /^(?:[rRuUbBfF]|[rR][bBfF]|[bBfF][rR])$/.test(name)
      ) {
        this.pos = start;
        return this.parseStrings();
      }
      if (name === 'True') return true;
      if (name === 'False') return false;
      if (name === 'None') return null;
      if (name === 'lambda') {
        this.scanForSyntaxErrors();
        throw new ParseFailure(
          'not-literal',
          'lambda expressions are not allowed',
          start,
        );
      }
      if (pythonKeywords.has(name)) this.syntax('invalid syntax', start);
      this.skipSpace();
      if (this.peek() === '(' && this.options.nestedCalls === 'source') {
        this.pos = start;
        const nested = this.parseCallAt();
        if (nested.kwargs.length === 0) return this.text.slice(start, this.pos);
        return new PyRawCall(formatCall({ ...nested, args: [] }));
      }
      if (
        this.options.bareNames === 'string' &&
        this.peek() !== '(' &&
        this.peek() !== '.' &&
        this.peek() !== '['
      ) {
        return name;
      }
      if (this.peek() === '(' || this.peek() === '.' || this.peek() === '[') {
        this.scanForSyntaxErrors();
        throw new ParseFailure(
          'not-literal',
          `'${name}' is not a literal; nested calls and attribute access are not allowed`,
          start,
        );
      }
      this.scanForSyntaxErrors();
      throw new ParseFailure('name', `name '${name}' is not defined`, start);
    }
    if (c === ')' || c === ']' || c === '}') {
      const open = this.openStack[this.openStack.length - 1];
      if (open && closers[open.char] !== c) {
        this.syntax(
          `closing parenthesis '${c}' does not match opening parenthesis '${open.char}'`,
          this.pos,
        );
      }
      this.syntax('invalid syntax', this.pos);
    }
    this.scanForSyntaxErrors();
    this.syntax('invalid syntax', start);
  }

  private parseList(): PyValue[] {
    this.open();
    const items: PyValue[] = [];
    this.parseItems(']', () => items.push(this.parseExpression()));
    return items;
  }

  private parseParenthesized(): PyValue {
    this.open();
    this.skipSpace();
    if (this.peek() === ')') {
      this.close(')');
      return new PyTuple([]);
    }
    const first = this.parseExpression();
    this.skipSpace();
    if (this.peek() === ')') {
      this.close(')');
      return first;
    }
    const items = [first];
    if (this.peek() !== ',') this.expressionContinues();
    this.pos++;
    this.parseItems(')', () => items.push(this.parseExpression()));
    return new PyTuple(items);
  }

  private parseBraces(): PyValue {
    const openPos = this.pos;
    this.open();
    this.skipSpace();
    if (this.peek() === '}') {
      this.close('}');
      return new PyDict();
    }
    const firstKey = this.parseExpression();
    this.skipSpace();
    if (this.peek() === ':') {
      const dict = new PyDict();
      this.pos++;
      dict.set(this.hashable(firstKey, openPos), this.parseExpression());
      this.skipSpace();
      if (this.peek() === ',') {
        this.pos++;
        this.parseItems('}', () => {
          const keyPos = this.pos;
          const key = this.parseExpression();
          this.skipSpace();
          if (this.peek() !== ':')
            this.syntax("':' expected after dictionary key", this.pos);
          this.pos++;
          dict.set(this.hashable(key, keyPos), this.parseExpression());
        });
      } else this.close('}');
      return dict;
    }
    const set = new PySet([this.hashable(firstKey, openPos)]);
    if (this.peek() === ',') {
      this.pos++;
      this.parseItems('}', () => {
        const itemPos = this.pos;
        set.add(this.hashable(this.parseExpression(), itemPos));
      });
    } else this.close('}');
    return set;
  }

  private hashable(value: PyValue, position: number): PyKey {
    if (!isPyKey(value)) {
      const type = Array.isArray(value)
        ? 'list'
        : value instanceof PyDict
          ? 'dict'
          : 'set';
      throw new ParseFailure(
        'not-literal',
        `unhashable type: '${type}'`,
        position,
      );
    }
    return value;
  }

  /** Items separated by commas up to `closer`, trailing comma allowed. */
  private parseItems(closer: string, item: () => void): void {
    for (;;) {
      this.skipSpace();
      if (this.peek() === closer) break;
      if (this.pos >= this.text.length) this.unclosed();
      item();
      this.skipSpace();
      if (this.peek() === ',') {
        this.pos++;
        continue;
      }
      if (this.peek() !== closer) {
        if (this.pos >= this.text.length) this.unclosed();
        this.expressionContinues();
      }
    }
    this.close(closer);
  }

  private parseStrings(): PyValue {
    let result = '';
    let sawBytes = false;
    let sawText = false;
    for (;;) {
      this.skipSpace();
      const start = this.pos;
      const head = this.text[this.pos];
      let prefix = '';
      if (head !== "'" && head !== '"') {
        stringPrefix.lastIndex = this.pos;
        const prefixMatch = stringPrefix.exec(this.text);
        if (!prefixMatch) break;
        prefix = prefixMatch[1]!.toLowerCase();
      }
      if (!/^(|r|u|b|f|rb|br|fr|rf)$/.test(prefix)) break;
      if (prefix.includes('f')) {
        this.scanForSyntaxErrors();
        throw new ParseFailure(
          'not-literal',
          'f-strings are not allowed',
          start,
        );
      }
      if (prefix.includes('b')) sawBytes = true;
      else sawText = true;
      this.pos += prefix.length;
      result += this.readQuoted(prefix.includes('r'));
    }
    if (sawBytes && sawText)
      this.syntax('cannot mix bytes and nonbytes literals', this.pos);
    if (sawBytes)
      throw new ParseFailure(
        'not-literal',
        'bytes literals are not supported',
        this.pos,
      );
    return result;
  }

  private literalBodyStart = 0;

  private readQuoted(raw: boolean): string {
    const start = this.pos;
    const quote = this.text[this.pos]!;
    const triple = this.text.startsWith(quote.repeat(3), this.pos);
    const delimiter = triple ? quote.repeat(3) : quote;
    this.pos += delimiter.length;
    this.literalBodyStart = this.pos;
    if (!triple) {
      // Most literals have no escape and no newline: one slice.
      const end = this.text.indexOf(quote, this.pos);
      if (end >= 0) {
        const body = this.text.slice(this.pos, end);
        if (!body.includes('\\') && !body.includes('\n')) {
          this.pos = end + 1;
          return body;
        }
      }
    }
    let out = '';
    for (;;) {
      if (this.pos >= this.text.length) {
        this.syntax(
          triple
            ? 'unterminated triple-quoted string literal (detected at line 1)'
            : 'unterminated string literal (detected at line 1)',
          start,
        );
      }
      if (this.text.startsWith(delimiter, this.pos)) {
        this.pos += delimiter.length;
        return out;
      }
      const c = this.text[this.pos]!;
      if (c === '\n' && !triple) {
        this.syntax('unterminated string literal (detected at line 1)', start);
      }
      if (c === '\\') {
        const next = this.text[this.pos + 1];
        if (next === undefined) {
          this.pos++;
          continue;
        }
        if (raw) {
          out += c + next;
          this.pos += 2;
          continue;
        }
        this.pos += 2;
        out += this.readEscape(next);
        continue;
      }
      out += c;
      this.pos++;
    }
  }

  private readEscape(next: string): string {
    switch (next) {
      case '\n':
        return '';
      case '\\':
        return '\\';
      case "'":
        return "'";
      case '"':
        return '"';
      case 'a':
        return '\x07';
      case 'b':
        return '\b';
      case 'f':
        return '\f';
      case 'n':
        return '\n';
      case 'r':
        return '\r';
      case 't':
        return '\t';
      case 'v':
        return '\v';
      case 'x':
        return this.readHexEscape(2, 'x');
      case 'u':
        return this.readHexEscape(4, 'u');
      case 'U':
        return this.readHexEscape(8, 'U');
      case 'N':
        throw new ParseFailure(
          'not-literal',
          '\\N{...} escapes are not supported',
          this.pos - 2,
        );
      default:
        if (/[0-7]/.test(next)) {
          let digits = next;
          while (digits.length < 3 && /[0-7]/.test(this.text[this.pos] ?? '')) {
            digits += this.text[this.pos];
            this.pos++;
          }
          return String.fromCodePoint(parseInt(digits, 8));
        }
        // Unknown escapes keep the backslash, as CPython does.
        return `\\${next}`;
    }
  }

  private readHexEscape(width: number, letter: string): string {
    const digits = this.text.slice(this.pos, this.pos + width);
    if (!new RegExp(`^[0-9a-fA-F]{${width}}$`).test(digits)) {
      const offset = this.pos - 2 - this.literalBodyStart;
      const valid = /^[0-9a-fA-F]*/.exec(digits)![0].length;
      this.syntax(
        `(unicode error) 'unicodeescape' codec can't decode bytes in position ${offset}-${
          offset + 1 + valid
        }: truncated \\${letter}${'X'.repeat(width)} escape`,
        this.pos,
      );
    }
    this.pos += width;
    const code = parseInt(digits, 16);
    if (code > 0x10ffff) {
      this.syntax(
        "(unicode error) 'unicodeescape' codec can't decode bytes in position 0-9: illegal Unicode character",
        this.pos,
      );
    }
    return String.fromCodePoint(code);
  }

  private parseNumber(): PyValue {
    const start = this.pos;
    radixLiteral.lastIndex = start;
    const radix = radixLiteral.exec(this.text);
    let literal: string;
    let value: PyValue;
    if (radix) {
      literal = radix[0];
      const body = literal.slice(2).replace(/_/g, '');
      const base = { x: 16n, o: 8n, b: 2n }[
        literal[1]!.toLowerCase() as 'x' | 'o' | 'b'
      ];
      let n = 0n;
      for (const ch of body) n = n * base + BigInt(parseInt(ch, 16));
      value = n;
    } else {
      decimalLiteral.lastIndex = start;
      const decimal = decimalLiteral.exec(this.text);
      if (!decimal) this.syntax('invalid syntax', start);
      literal = decimal![0];
      const clean = literal.replace(/_/g, '');
      if (/[.eE]/.test(clean)) value = Number(clean);
      else {
        if (clean.length > 1 && clean.startsWith('0') && /[1-9]/.test(clean)) {
          this.syntax(
            'leading zeros in decimal integer literals are not permitted; use an 0o prefix for octal integers',
            start,
          );
        }
        const digits = clean.replace(/^0+(?=\d)/, '');
        if (digits.length > this.maxIntDigits) {
          throw new ParseFailure(
            'limit',
            `Exceeds the limit (${this.maxIntDigits} digits) for integer string conversion: value has ${digits.length} digits`,
            start,
          );
        }
        value = BigInt(digits);
      }
    }
    this.pos += literal.length;
    const after = this.peek();
    if (after === 'j' || after === 'J') {
      throw new ParseFailure(
        'not-literal',
        'complex numbers are not supported',
        start,
      );
    }
    if (after !== undefined && identifierPart.test(after))
      this.syntax('invalid decimal literal', this.pos);
    return value;
  }

  private readIdentifier(): string | undefined {
    const text = this.text;
    const start = this.pos;
    const code = text.charCodeAt(start);
    // ASCII by character code; anything else by its Unicode category.
    if (isAsciiIdentifierStart(code)) this.pos++;
    else {
      const first = code >= 0x80 ? this.codePointAt(start) : undefined;
      if (first === undefined || !identifierStart.test(first)) return undefined;
      this.pos += first.length;
    }
    for (;;) {
      const next = text.charCodeAt(this.pos);
      if (isAsciiIdentifierStart(next) || (next >= 0x30 && next <= 0x39)) {
        this.pos++;
        continue;
      }
      if (!(next >= 0x80)) break;
      const c = this.codePointAt(this.pos);
      if (c === undefined || !identifierPart.test(c)) break;
      this.pos += c.length;
    }
    return text.slice(start, this.pos);
  }

  private codePointAt(index: number): string | undefined {
    const code = this.text.codePointAt(index);
    return code === undefined ? undefined : String.fromCodePoint(code);
  }

  private open(): void {
    if (this.depth >= this.maxDepth) {
      throw new ParseFailure(
        'limit',
        `too many nested parentheses (limit ${this.maxDepth})`,
        this.pos,
      );
    }
    this.openStack.push({ char: this.text[this.pos]!, position: this.pos });
    this.depth++;
    this.pos++;
  }

  private close(expected: string): void {
    this.skipSpace();
    if (this.pos >= this.text.length) this.unclosed();
    const c = this.peek()!;
    if (c !== expected) {
      const open = this.openStack[this.openStack.length - 1]!;
      if (')]}'.includes(c)) {
        this.syntax(
          `closing parenthesis '${c}' does not match opening parenthesis '${open.char}'`,
          this.pos,
        );
      }
      this.expressionContinues();
    }
    this.openStack.pop();
    this.depth--;
    this.pos++;
  }

  private unclosed(): never {
    const open = this.openStack[this.openStack.length - 1];
    if (open) this.syntax(`'${open.char}' was never closed`, open.position);
    this.syntax('invalid syntax', this.pos);
  }

  /**
   * Something follows a complete literal that is not a separator: an operator,
   * a call, a subscript, a comprehension. Decide between a syntax error and an
   * expression we refuse to evaluate, scanning the rest for syntax first.
   */
  private expressionContinues(): never {
    this.expressionContinuesFrom(this.pos);
  }

  private expressionContinuesFrom(position: number): never {
    this.scanForSyntaxErrors();
    // Two juxtaposed operands (`1 2`, `'k' 1`): CPython's parser suggests a
    // missing comma. Operators, calls and subscripts are refused instead.
    let probe = this.pos;
    while (probe < this.text.length && ' \t\n\r'.includes(this.text[probe]!))
      probe++;
    const next = this.text[probe];
    const previous = this.text.slice(0, probe).trimEnd();
    const afterOperand =
      /[\w'")\]}]$/u.test(previous) && probe > previous.length;
    if (next !== undefined && afterOperand && /[\p{L}_0-9'"{]/u.test(next)) {
      this.syntax('invalid syntax. Perhaps you forgot a comma?', probe);
    }
    throw new ParseFailure(
      'not-literal',
      'arguments must be literals (strings, numbers, True/False/None, lists, tuples, dicts); expressions are not evaluated',
      position,
    );
  }

  /**
   * A light lexical scan of the whole text for the errors CPython reports
   * before anything runs: unbalanced brackets and unterminated strings.
   */
  private scanForSyntaxErrors(): void {
    const stack: { char: string; position: number }[] = [];
    let i = 0;
    const text = this.text;
    while (i < text.length) {
      const c = text[i]!;
      if (c === '"' || c === "'") {
        const triple = text.startsWith(c.repeat(3), i);
        const delimiter = triple ? c.repeat(3) : c;
        const start = i;
        i += delimiter.length;
        let closed = false;
        while (i < text.length) {
          if (text[i] === '\\') {
            i += 2;
            continue;
          }
          if (text.startsWith(delimiter, i)) {
            i += delimiter.length;
            closed = true;
            break;
          }
          if (text[i] === '\n' && !triple) break;
          i++;
        }
        if (!closed) {
          this.syntax(
            triple
              ? 'unterminated triple-quoted string literal (detected at line 1)'
              : 'unterminated string literal (detected at line 1)',
            start,
          );
        }
        continue;
      }
      if (c === '(' || c === '[' || c === '{')
        stack.push({ char: c, position: i });
      else if (c === ')' || c === ']' || c === '}') {
        const open = stack.pop();
        if (!open) this.syntax(`unmatched '${c}'`, i);
        if (closers[open!.char] !== c) {
          this.syntax(
            `closing parenthesis '${c}' does not match opening parenthesis '${open!.char}'`,
            i,
          );
        }
      }
      i++;
    }
    const open = stack[stack.length - 1];
    if (open) this.syntax(`'${open.char}' was never closed`, open.position);
  }

  private syntax(message: string, position: number): never {
    throw new ParseFailure('syntax', `${message} (<string>, line 1)`, position);
  }

  private skipSpace(): void {
    while (this.pos < this.text.length) {
      const c = this.text[this.pos]!;
      if (c === ' ' || c === '\t' || c === '\n' || c === '\r' || c === '\f')
        this.pos++;
      else if (c === '\\' && this.text[this.pos + 1] === '\n') this.pos += 2;
      else break;
    }
  }

  private peek(): string | undefined {
    return this.text[this.pos];
  }
}

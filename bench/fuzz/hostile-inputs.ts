import {
  PyRandom,
  parseCallString,
  pyRepr,
  type ParsedCall,
} from '@seal/python';

/**
 * A canary: every input that would run code if it were evaluated (Python
 * `eval`, JS `eval`/`Function`, a shell) names this token, and the fuzz
 * harness counts any code that carries it. It must never fire.
 */
export const canaryToken = '__seal_fuzz_canary__';

/** A call in source form: the callee and its arguments as source fragments. */
type CallShape = {
  name: string;
  args: string[];
  kwargs: [string, string][];
};

/** Code that would run if evaluated: each fires the canary. */
function executableFragments(canaryFile: string): string[] {
  const touch = `__import__('os').system('touch ${canaryFile}')`;
  return [
    touch,
    `${canaryToken}()`,
    `exec("${canaryToken}()")`,
    `eval('${canaryToken}()')`,
    `open('${canaryFile}', 'w').write('x')`,
    `lambda: ${canaryToken}()`,
    `(lambda: ${canaryToken}())()`,
    `[${canaryToken}() for _ in range(1)]`,
    `{k: ${canaryToken}() for k in 'a'}`,
    `(y := ${canaryToken}())`,
    `f"{${canaryToken}()}"`,
    `f'{__import__("os").system("touch ${canaryFile}")}'`,
    `rf"{${canaryToken}()}"`,
    `getattr(__builtins__, 'eval')('${canaryToken}()')`,
    `globals()['${canaryToken}']()`,
    `().__class__.__bases__[0].__subclasses__()`,
    `''.__class__.__mro__[1].__subclasses__()`,
    `__builtins__.__dict__['exec']('${canaryToken}()')`,
    `compile('${canaryToken}()', 'x', 'exec')`,
    `not ${canaryToken}()`,
    `1 if ${canaryToken}() else 2`,
    `${canaryToken}.__call__()`,
    `[1, 2][${canaryToken}()]`,
    `'a' + ${canaryToken}()`,
    `-${canaryToken}()`,
    `*[${canaryToken}()]`,
    `**{'a': ${canaryToken}()}`,
    `await ${canaryToken}()`,
    `(yield ${canaryToken}())`,
    `breakpoint()`,
    `print(${canaryToken}())`,
    `\`${canaryToken}()\``,
    `require('child_process').execSync('touch ${canaryFile}')`,
    `process.mainModule.require('child_process')`,
    `this.constructor.constructor('${canaryToken}()')()`,
    `$(touch ${canaryFile})`,
  ];
}

/** Literals chosen to break parsers, number handling and renderers. */
function literalFragments(): string[] {
  const deep = (depth: number, open: string, close: string) =>
    `${open.repeat(depth)}${close.repeat(depth)}`;
  return [
    // Numbers at and past every limit.
    '9'.repeat(19),
    '9'.repeat(309),
    '9'.repeat(4300),
    '9'.repeat(4301),
    `-${'9'.repeat(4300)}`,
    '1e308',
    '1e309',
    '-1e309',
    '1e-400',
    '-0.0',
    '0.1',
    '5e-324',
    '1.7976931348623157e308',
    '1_000_000',
    `0x${'f'.repeat(1200)}`,
    `0b${'1'.repeat(5000)}`,
    '0o777',
    '.5',
    '5.',
    '00',
    '0123',
    '1_',
    '0x',
    '1e',
    '1j',
    '2**1000',
    '10**100000',
    '9**9**9',
    '-(-(-1))',
    '+True',
    'True + True',
    // Strings: escapes, lone surrogates, controls, huge, call-like text.
    "'\\ud800'",
    "'\\udfff\\ud800'",
    `'${'\ud800'}'`,
    `'${'\udc00'}x${'\ud83d'}'`,
    "'\\U0010ffff'",
    "'\\U00110000'",
    "'\\x00\\x1f\\x7f'",
    "'\\N{BULLET}'",
    "'\\777'",
    "'\u202eevil\u202c'",
    "'\u200b\ufeff\u2028\u2029'",
    "'run ls() now'",
    '\'cd(folder="..")\'',
    `'${'A'.repeat(100_000)}'`,
    `'${'é'.repeat(2000)}'`,
    "'''multi\nline'''",
    "'unterminated",
    '"mixed\'',
    "b'bytes'",
    "u'unicode'",
    "r'\\d+'",
    "'a' 'b' \"c\"",
    // Containers: deep, odd keys, unhashable keys, prototype keys.
    deep(50, '[', ']'),
    deep(99, '[', ']'),
    deep(100, '[', ']'),
    deep(101, '[', ']'),
    deep(1000, '[', ']'),
    deep(20_000, '[', ']'),
    deep(300, '(', ')'),
    `${'{"a": '.repeat(120)}1${'}'.repeat(120)}`,
    "{'__proto__': {'polluted': 1}}",
    "{'constructor': {'prototype': {'polluted': 1}}}",
    "{'__proto__': None, 'toString': 1, 'valueOf': 2, 'hasOwnProperty': 3}",
    '{True: 1, 1: 2, 1.0: 3}',
    '{(1, 2): 3, None: 4}',
    '{[]: 1}',
    '{{}: 1}',
    '{1, 2, 2}',
    '()',
    '(1,)',
    '[None, True, False, ...]',
    'None',
    'NaN',
    'inf',
    'float("nan")',
  ];
}

/**
 * Whole replies that cost a parser more than their length if it backtracks
 * or rescans (many opening tags, many blocks); sent now and then, not used
 * as fragments (they are large).
 */
function floodReplies(): string[] {
  return [
    '<tool_call>'.repeat(40_000),
    '<think>'.repeat(60_000),
    `<think>x</think>${'<answer>'.repeat(50_000)}`,
    '<answer><tool_call>'.repeat(20_000),
    '<tool_call>{"name": "ls", "arguments": {}}</tool_call>'.repeat(8000),
    `[${'ls(), '.repeat(30_000)}]`,
    `ls(${'a, '.repeat(50_000)})`,
    `${'('.repeat(99)}${'['.repeat(99)}`.repeat(1000),
    "'".repeat(300_000),
    '\\'.repeat(300_000),
  ];
}

/** Callee and keyword names that probe prototype lookups and dispatch. */
const hostileNames = [
  '__proto__',
  'constructor',
  'prototype',
  'toString',
  'valueOf',
  'hasOwnProperty',
  '__defineGetter__',
  '__class__',
  '__dict__',
  '__init__',
  '__import__',
  'eval',
  'exec',
  'self',
  'kill',
  'exit',
  'quit',
  'remove',
  'unlink',
  'popen',
  'Popen',
  'run',
  'os.system',
  'GorillaFileSystem.ls',
  'self.ls',
  'a.b.c',
  'é',
  '𝔩𝔰',
  'lambda',
  'None',
  'True',
  '_',
  'ls\u00a0',
];

/** At most this many characters of parents are kept (about 64 MiB of UTF-16). */
const maxCorpusCharacters = 32_000_000;

/** Text-level tokens inserted by the byte mutator. */
const tokens = [
  '(',
  ')',
  '[',
  ']',
  '{',
  '}',
  "'",
  '"',
  '\\',
  ',',
  '=',
  ':',
  '.',
  '*',
  '**',
  '+',
  '-',
  '/',
  '%',
  '@',
  '!',
  '#',
  '$',
  '^',
  '&',
  '|',
  ';',
  '<',
  '>',
  '?',
  '~',
  '`',
  '\n',
  '\t',
  ' ',
  '\u0000',
  'é',
  '中',
  '\u{1F600}',
  '\u200b',
  '\ud800',
  '\udc00',
  '\ufeff',
  '\u202e',
  'lambda ',
  'f"',
  "r'",
  "b'",
  '__',
  'None',
  'True',
  '...',
  canaryToken,
  '1e999',
  '0x',
  '_1',
  '\\u',
  '\\x',
  '\\N{',
  '"""',
  "'''",
];

/**
 * A deterministic generator of hostile model outputs (call strings) that
 * grows from what it finds: it starts from real BFCL ground-truth calls and
 * hostile seeds, mutates them with grammar-aware operators (replace or add an
 * argument with a hostile literal or executable fragment, rename a keyword or
 * the callee, duplicate, nest, splice two calls) and text-level ones, and
 * keeps every input whose outcome the harness has not seen before (a new
 * "signature") as a parent for later mutations.
 */
export class HostileCorpus {
  private readonly random: PyRandom;
  private readonly corpus: string[];
  private readonly executable: string[];
  private readonly literals: string[];
  private readonly floods: string[];
  private readonly methodNames: readonly string[];
  private readonly maxCorpus: number;
  /** Characters held by the corpus, kept under {@link maxCorpusCharacters}. */
  private corpusCharacters = 0;
  private readonly seen = new Set<string>();
  /** Argument values of the real calls, in source form. */
  private readonly realValues: string[];

  constructor({
    seed,
    calls,
    methodNames,
    canaryFile,
    maxCorpus = 20_000,
  }: {
    /** Seeds the generator: the same seed gives the same inputs. */
    seed: number;
    /** Real calls to start from (BFCL ground truth). */
    calls: readonly string[];
    /** Every tool name, for callee swaps. */
    methodNames: readonly string[];
    /** A path that only code execution could create. */
    canaryFile: string;
    /** Most inputs kept as parents. */
    maxCorpus?: number;
  }) {
    this.random = new PyRandom(BigInt(seed));
    this.executable = executableFragments(canaryFile);
    this.literals = literalFragments();
    this.floods = floodReplies();
    this.methodNames = methodNames;
    this.maxCorpus = maxCorpus;
    const shapes = calls.map(shapeOf).filter((shape) => shape !== undefined);
    this.realValues = [
      ...new Set(
        shapes.flatMap((shape) => [
          ...shape.args,
          ...shape.kwargs.map(([, value]) => value),
        ]),
      ),
    ];
    if (this.realValues.length === 0) this.realValues.push("'x'");
    this.corpus = [
      ...calls,
      ...this.executable.map((fragment) => `ls(a=${fragment})`),
      ...this.executable,
      ...this.literals.map((fragment) => `cd(folder=${fragment})`),
    ];
    this.corpusCharacters = this.corpus.reduce(
      (total, input) => total + input.length,
      0,
    );
  }

  /** Inputs kept as parents so far (seeds included). */
  get size(): number {
    return this.corpus.length;
  }

  /** Distinct outcome signatures reported so far. */
  get signatures(): number {
    return this.seen.size;
  }

  /** The next input. */
  next(): string {
    const roll = this.random.random();
    if (roll < 0.002) return this.pick(this.floods);
    if (roll < 0.04) return this.pick(this.executable);
    if (roll < 0.08) return this.pick(this.literals);
    const parent = this.pick(this.corpus);
    if (roll < 0.7) return this.mutateShape(parent);
    if (roll < 0.8) return this.splice(parent, this.pick(this.corpus));
    return this.mutateText(parent);
  }

  /**
   * Reports what an input did (a short outcome signature); an input with a
   * signature not seen before becomes a parent.
   */
  observe({ input, signature }: { input: string; signature: string }): void {
    if (this.seen.has(signature)) return;
    this.seen.add(signature);
    if (input.length > 200_000) return;
    // Bounded in count and in characters: past either bound a new parent
    // replaces a random one.
    if (
      this.corpus.length < this.maxCorpus &&
      this.corpusCharacters + input.length <= maxCorpusCharacters
    ) {
      this.corpus.push(input);
    } else {
      const slot = this.int(this.corpus.length);
      this.corpusCharacters -= this.corpus[slot]!.length;
      this.corpus[slot] = input;
    }
    this.corpusCharacters += input.length;
  }

  private int(bound: number): number {
    return bound <= 1 ? 0 : Number(this.random.randbelow(BigInt(bound)));
  }

  private pick<T>(list: readonly T[]): T {
    return list[this.int(list.length)]!;
  }

  private fragment(): string {
    const roll = this.random.random();
    if (roll < 0.35) return this.pick(this.executable);
    if (roll < 0.85) return this.pick(this.literals);
    // A real argument value, possibly nested under a hostile key.
    const value = this.pick(this.realValues);
    return this.random.random() < 0.5
      ? value
      : `[${value}, {${pyRepr(this.pick(hostileNames))}: ${value}}]`;
  }

  /** Grammar-aware: edits the call's parts and prints it back. */
  private mutateShape(parent: string): string {
    const shape = shapeOf(parent) ?? {
      name: this.pick(this.methodNames),
      args: [],
      kwargs: [],
    };
    const edits = 1 + this.int(3);
    for (let i = 0; i < edits; i++) {
      const op = this.int(10);
      const slots = shape.args.length + shape.kwargs.length;
      if (op <= 2 && slots > 0) {
        // Replace an argument's value.
        const index = this.int(slots);
        if (index < shape.args.length) shape.args[index] = this.fragment();
        else shape.kwargs[index - shape.args.length]![1] = this.fragment();
      } else if (op === 3)
        shape.kwargs.push([this.pick(hostileNames), this.fragment()]);
      else if (op === 4) shape.args.push(this.fragment());
      else if (op === 5 && shape.kwargs.length > 0) {
        // Rename a keyword (prototype keys, dunders) or repeat one.
        const index = this.int(shape.kwargs.length);
        if (this.random.random() < 0.5)
          shape.kwargs[index]![0] = this.pick(hostileNames);
        else shape.kwargs.push([shape.kwargs[index]![0], this.fragment()]);
      } else if (op === 6) {
        shape.name =
          this.random.random() < 0.5
            ? this.pick(hostileNames)
            : this.pick(this.methodNames);
      } else if (op === 7 && slots > 0) {
        // Nest the call inside one of its own arguments.
        const inner = printShape(shape);
        shape.args[0] = inner;
      } else if (op === 8 && shape.kwargs.length > 0) {
        // Move a keyword before the positionals (a SyntaxError in Python).
        shape.args.unshift(`${shape.kwargs[0]![0]}=${shape.kwargs[0]![1]}`);
      } else {
        shape.args = [];
        shape.kwargs = [];
      }
    }
    return printShape(shape);
  }

  /** Two calls joined the ways a model might: `a(); b()`, `a()\nb()`, `[a(), b()]`, a prefix cut. */
  private splice(first: string, second: string): string {
    switch (this.int(5)) {
      case 0:
        return `${first}; ${second}`;
      case 1:
        return `${first}\n${second}`;
      case 2:
        return `[${first}, ${second}]`;
      case 3:
        return (
          first.slice(0, this.int(first.length + 1)) +
          second.slice(this.int(second.length + 1))
        );
      default:
        return `${first}, ${second}`;
    }
  }

  /** Text-level: insert, delete or replace tokens. */
  private mutateText(parent: string): string {
    let text = parent;
    const edits = 1 + this.int(4);
    for (let i = 0; i < edits; i++) {
      const position = this.int(text.length + 1);
      const op = this.int(3);
      const token = this.pick(tokens);
      if (op === 0)
        text = text.slice(0, position) + token + text.slice(position);
      else if (op === 1)
        text = text.slice(0, position) + text.slice(position + 1 + this.int(4));
      else
        text =
          text.slice(0, position) + token + text.slice(position + token.length);
    }
    return text;
  }
}

/** A parsed call back in source form, or undefined when the text is not a literal call. */
function shapeOf(text: string): CallShape | undefined {
  const parsed = parseCallString(text);
  if (!parsed.success) return undefined;
  return fromParsed(parsed.value);
}

function fromParsed(call: ParsedCall): CallShape {
  return {
    name: call.name,
    args: call.args.map((value) => pyRepr(value)),
    kwargs: call.kwargs.map(([key, value]) => [key, pyRepr(value)]),
  };
}

function printShape(shape: CallShape): string {
  const parts = [
    ...shape.args,
    ...shape.kwargs.map(([key, value]) => `${key}=${value}`),
  ];
  return `${shape.name}(${parts.join(', ')})`;
}

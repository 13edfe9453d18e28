import {
  BfclRealm,
  BfclSession,
  bfclClassNames,
  createBfclBackend,
  bfclTasks,
} from '@seal/bfcl';
import {
  hasSharedBfclData,
  loadSharedBfclData,
  sharedDataSkipMessage,
} from '@seal/bfcl/test';
import { PyDict, PyRandom, parseCallString, pyJsonDumps } from '@seal/python';
import type { Task } from '@seal/spec';
import { describe, expect, it } from 'vitest';
import { createEpisode } from './episode/create-episode';
import { protocolNames } from './protocols';

/**
 * Adversarial inputs: Python that would run code if evaluated (imports,
 * dunder walks, lambdas, comprehensions, exec/eval/open), huge and deeply
 * nested literals, broken syntax, and unicode oddities. Each seed payload is
 * also mutated at random, deterministically.
 */
const seeds = [
  "__import__('os').system('touch /tmp/pwned')",
  "cd(folder=__import__('os').getcwd())",
  'cd(folder=().__class__.__bases__[0].__subclasses__())',
  "eval('1+1')",
  "exec('import os')",
  "open('/etc/passwd').read()",
  "cd(folder=open('/etc/passwd').read())",
  'ls(a=lambda: 1)',
  'ls(a=(lambda x: x)(1))',
  'ls(a=[x for x in range(10**9)])',
  'ls(a={k: v for k, v in {}.items()})',
  'ls(a=(y := 5))',
  'ls(a=9**9**9)',
  'ls(a=10**100000)',
  `ls(a=${'9'.repeat(20000)})`,
  `ls(a=${'['.repeat(5000)}${']'.repeat(5000)})`,
  `ls(a=${'('.repeat(300)}1${')'.repeat(300)})`,
  "ls(a='''unterminated)",
  "ls(a=f\"{__import__('os').system('x')}\")",
  "ls(a=b'\\x00')",
  'ls(**{"a": 1})',
  'ls(*[1, 2])',
  'getattr(__builtins__, "eval")("1")',
  'globals()',
  "ls(a=__builtins__['eval'])",
  'ls(a=print)',
  'ls(a=1 if True else 2)',
  'ls(a=not 1)',
  'ls(a=1 < 2)',
  'ls(a=[1,2][0])',
  'ls(a="x".join(["a"]))',
  '@decorator\ndef f(): pass',
  'import os',
  'from os import system',
  'ls(); rm(file_name="x")',
  'ls()\nrm(file_name="x")',
  'exit()',
  'quit()',
  'kill(pid=1)',
  'os.system("x")',
  'ls(a=\u202Eevil\u202C)',
  "ls(a='\u200B\uFEFF')",
  "ls(a='\uD83D')",
  'ls\u00A0()',
  '𝔩𝔰()',
  "ls(a='\\N{BULLET}')",
  'ls(a=0x)',
  'ls(a=1_)',
  'ls(a=1e)',
  'ls(a=1j)',
  'ls(a=...)',
  'ls(a=None.__class__)',
  "ls(a=''.__class__.__mro__)",
  '',
  '()',
  '[]',
  'ls(',
  'ls)',
  ')(',
  '\u0000',
  'ls(a=\u0000)',
];

const alphabet = `()[]{}'"\\,=:.*+-/%@!#$^&|;<>?~\`\n\t abcxyz_019\u00e9\u4e2d\u{1F600}\u200B`;

function mutate(text: string, rng: PyRandom): string {
  const chars = [...text];
  const edits = 1 + Number(rng.randint(0, 3));
  for (let i = 0; i < edits; i++) {
    const position = Number(rng.randint(0, chars.length));
    const op = Number(rng.randint(0, 2));
    const char = [...alphabet][
      Number(rng.randint(0, [...alphabet].length - 1))
    ]!;
    if (op === 0) chars.splice(position, 0, char);
    else if (op === 1 && chars.length > 0)
      chars.splice(Math.min(position, chars.length - 1), 1);
    else if (chars.length > 0)
      chars[Math.min(position, chars.length - 1)] = char;
  }
  return chars.join('');
}

function randomText(rng: PyRandom): string {
  const length = Number(rng.randint(0, 40));
  const chars = [...alphabet];
  let out = '';
  for (let i = 0; i < length; i++)
    out += chars[Number(rng.randint(0, chars.length - 1))];
  return out;
}

/** 10,000+ payloads: the seeds, mutations of them, and random strings. */
function payloads(count: number): string[] {
  const rng = new PyRandom(20261121n);
  const out = [...seeds];
  while (out.length < count) {
    const kind = Number(rng.randint(0, 2));
    if (kind === 2) out.push(randomText(rng));
    else
      out.push(mutate(seeds[Number(rng.randint(0, seeds.length - 1))]!, rng));
  }
  return out;
}

const all = payloads(10_500);

describe('safety: adversarial call strings', () => {
  it('should never throw from the parser, and accept only literal calls', () => {
    let rejected = 0;
    for (const text of all) {
      const result = parseCallString(text);
      if (!result.success) {
        expect(result.error.message.length).toBeGreaterThan(0);
        rejected++;
      } else {
        // Whatever parsed is plain data: re-rendering and re-parsing is stable.
        expect(typeof result.value.name).toBe('string');
      }
    }
    expect(all.length).toBeGreaterThanOrEqual(10_000);
    expect(rejected).toBeGreaterThan(all.length * 0.9);
  });
});

describe.skipIf(!hasSharedBfclData)(
  'safety: adversarial strings through the executor and episodes',
  () => {
    it('should turn every non-literal string into a rejected or failed call with a message, changing no state', async () => {
      const dataset = await loadSharedBfclData();
      const session = new BfclSession({
        realm: new BfclRealm({ data: dataset.runtime }),
        initialConfig: new PyDict(),
        involvedClasses: [...bfclClassNames],
        longContext: false,
      });
      const before = pyJsonDumps(session.comparableState(), { sortKeys: true });
      for (const text of all) {
        const parsed = parseCallString(text);
        const execution = session.execute(text);
        expect(typeof execution.result).toBe('string');
        if (!parsed.success) {
          expect(execution.status).not.toBe('ok');
          expect(execution.result).toMatch(/^Error during execution: .+/s);
        }
      }
      // Only strings that parsed as literal calls could reach a method at all;
      // the few that did were harmless reads, so the state is unchanged.
      expect(pyJsonDumps(session.comparableState(), { sortKeys: true })).toBe(
        before,
      );
    });

    it('should keep every episode alive under adversarial model output in every protocol', async () => {
      const dataset = await loadSharedBfclData();
      const backend = createBfclBackend({ runtime: dataset.runtime });
      const task: Task = bfclTasks({ dataset, ids: ['multi_turn_base_0'] })[0]!;
      const sample = all.filter((_, index) => index % 5 === 0);
      for (const protocol of protocolNames) {
        let episode = createEpisode({
          task,
          backend,
          protocol,
          limits: { maxModelCalls: 1_000_000 },
        });
        episode.reset();
        for (const text of sample) {
          const response =
            protocol === 'qwen-xml'
              ? `<tool_call>{"name": ${JSON.stringify(text)}, "arguments": {"x": ${JSON.stringify(text)}}}</tool_call>`
              : protocol === 'envtuning'
                ? `<think>x</think><tool_call>${text}</tool_call>`
                : protocol === 'openai-tools'
                  ? {
                      role: 'assistant' as const,
                      content: '',
                      toolCalls: [
                        {
                          name: text || 'x',
                          arguments: {},
                          argumentsText: text,
                          callText: '',
                        },
                      ],
                    }
                  : `[${text}]`;
          const step = episode.step(response);
          expect(step.events.length).toBeGreaterThan(0);
          for (const event of step.events) {
            if (event.type === 'call-executed') {
              // Only data reaches the executor: the call text is a literal call.
              expect(parseCallString(event.call.callText).success).toBe(true);
            }
          }
          if (episode.done) {
            episode = createEpisode({
              task,
              backend,
              protocol,
              limits: { maxModelCalls: 1_000_000 },
            });
            episode.reset();
          }
        }
      }
    });
  },
);

describe.skipIf(hasSharedBfclData)(
  'safety: executor and episodes (needs shared data)',
  () => {
    it.skip(sharedDataSkipMessage, () => {});
  },
);

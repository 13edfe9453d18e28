import { readFileSync } from 'node:fs';
import { formatCall } from '@seal/python';
import { sharedFixture } from '@seal/spec/test';
import { describe, expect, it } from 'vitest';
import {
  createBfclPythonProtocol,
  decodeBfclPrompting,
} from './bfcl-python-protocol';
import { toToolCall } from './tool-call-protocol';

const casesFixture = sharedFixture({
  path: 'bfcl-checker/decode_prompting.jsonl',
});
const casesPath = casesFixture.path;
const haveCases = casesFixture.present;

type DecodeCase = {
  raw: string;
  ok: boolean;
  decoded?: string[];
  exception_type?: string;
};

describe.skipIf(!haveCases)(
  "decodeBfclPrompting against BFCL's decoder (../shared/bfcl-checker)",
  () => {
    const cases = haveCases
      ? readFileSync(casesPath, 'utf8')
          .split('\n')
          .filter((line) => line.trim() !== '')
          .map((line) => JSON.parse(line) as DecodeCase)
      : [];

    it('should have the 50 recorded cases', () => {
      expect(cases).toHaveLength(50);
    });

    it.each(cases.map((c) => [JSON.stringify(c.raw).slice(0, 60), c] as const))(
      'should decode %s as BFCL does',
      (_label, c) => {
        const decoded = decodeBfclPrompting(c.raw);
        if (!c.ok) expect(decoded).toBeUndefined();
        else
          expect(decoded?.map((call) => formatCall(call))).toEqual(c.decoded);
      },
    );
  },
);

describe.skipIf(haveCases)("decodeBfclPrompting against BFCL's decoder", () => {
  it.skip(`${casesFixture.skipMessage}`, () => {});
});

describe('bfcl-python protocol', () => {
  const protocol = createBfclPythonProtocol();

  it('should round-trip calls through renderCalls and parse', () => {
    const calls = [
      toToolCall({ name: 'cd', args: [], kwargs: [['folder', 'docs']] }),
      toToolCall({
        name: 'add',
        args: [],
        kwargs: [
          ['a', 1n],
          ['b', 2.5],
        ],
      }),
    ];
    const message = protocol.renderCalls({ calls });
    expect(message.content).toBe("[cd(folder='docs'), add(a=1, b=2.5)]");
    const parsed = protocol.parse(message);
    expect(parsed.kind).toBe('calls');
    if (parsed.kind === 'calls')
      expect(parsed.calls.map((c) => toToolCall(c).callText)).toEqual(
        calls.map((c) => c.callText),
      );
  });

  it('should treat free text as a reply that ends the turn', () => {
    expect(
      protocol.parse('I cannot do that: the function is missing.'),
    ).toEqual({
      kind: 'reply',
      content: 'I cannot do that: the function is missing.',
    });
    expect(protocol.parse('[]').kind).toBe('reply');
  });

  it("should put BFCL's prompt with the Python 3 note in the system prompt", () => {
    const prompt = protocol.renderSystemPrompt({
      tools: [
        {
          name: 'ls',
          description: 'List files.',
          parameters: { type: 'dict', properties: {}, required: [] },
        },
      ],
      mode: 'full',
      notes: [],
    });
    expect(prompt).toContain('You are an expert in composing functions.');
    expect(prompt).toContain(
      "[{'name': 'ls', 'description': 'List files. Note that the provided function is in Python 3 syntax.'",
    );
    expect(prompt.endsWith('\n\n')).toBe(true);
  });

  it('should render results as the repr of tool messages', () => {
    const call = toToolCall({ name: 'pwd', args: [], kwargs: [] });
    expect(
      protocol.renderResults([
        { call, result: '{"current_working_directory": "/a"}' },
      ])[0]!.content,
    ).toBe(
      `[{'role': 'tool', 'name': 'pwd()', 'content': '{"current_working_directory": "/a"}'}]`,
    );
  });
});

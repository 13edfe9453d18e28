import { describe, expect, it } from 'vitest';
import { createEnvTuningProtocol } from './envtuning-protocol';
import { createOpenAiToolsProtocol } from './openai-tools-protocol';
import { createQwenXmlProtocol } from './qwen-xml-protocol';
import { findTagPairs } from './tag-pairs';
import { toToolCall, type ToolCallProtocol } from './tool-call-protocol';

const calls = [
  toToolCall({
    name: 'set_budget_limit',
    args: [],
    kwargs: [
      ['access_token', 'abc'],
      ['budget_limit', 20000.0],
    ],
  }),
  toToolCall({
    name: 'post_tweet',
    args: [],
    kwargs: [
      ['content', 'hi "there"'],
      ['tags', ['#a']],
      ['mentions', []],
    ],
  }),
  toToolCall({
    name: 'place_order',
    args: [],
    kwargs: [
      ['amount', 100n],
      ['meta', null],
      ['ok', true],
    ],
  }),
];

function roundTrip(protocol: ToolCallProtocol) {
  const message = protocol.renderCalls({ calls, content: 'thinking' });
  const parsed = protocol.parse(message);
  expect(parsed.kind).toBe('calls');
  if (parsed.kind !== 'calls') return;
  expect(parsed.calls.map((call) => toToolCall(call).callText)).toEqual(
    calls.map((call) => call.callText),
  );
}

describe('qwen-xml protocol', () => {
  const protocol = createQwenXmlProtocol();

  it('should round-trip calls, keeping 20000.0 a float and 100 an int', () => {
    roundTrip(protocol);
    expect(calls[0]!.callText).toBe(
      "set_budget_limit(access_token='abc', budget_limit=20000.0)",
    );
  });

  it('should accept arguments given as a JSON string and text around blocks', () => {
    const parsed = protocol.parse(
      'Sure.\n<tool_call>\n{"name": "cd", "arguments": "{\\"folder\\": \\"a\\"}"}\n</tool_call>',
    );
    expect(parsed).toMatchObject({ kind: 'calls', content: 'Sure.' });
  });

  it('should treat text without blocks as a reply', () => {
    expect(protocol.parse('All done.')).toEqual({
      kind: 'reply',
      content: 'All done.',
    });
  });

  it.each([
    [
      '<tool_call>{"name": "cd", "arguments": {"folder": }}</tool_call>',
      'not valid JSON',
    ],
    ['<tool_call>{"arguments": {}}</tool_call>', "needs a string 'name'"],
    ['<tool_call>{"name": "cd"}</tool_call>', "has no 'arguments'"],
    [
      '<tool_call>{"name": "cd", "arguments": [1]}</tool_call>',
      'must be a JSON object',
    ],
    [
      '<tool_call>{"name": "cd", "arguments": {"a b": 1}}</tool_call>',
      'not an identifier',
    ],
    ['<tool_call>{"name": "cd", "arguments": {}}', 'unclosed'],
    [
      '<tool_call>{"name": "ls", "arguments": {}}</tool_call><tool_call>oops</tool_call>',
      'tool call 2',
    ],
  ])('should reject %s', (text, reason) => {
    const parsed = protocol.parse(text);
    expect(parsed.kind).toBe('error');
    if (parsed.kind === 'error') expect(parsed.message).toContain(reason);
  });

  it('should render results as tool_response blocks in one user message', () => {
    const observation = protocol.renderResults([
      { call: calls[0]!, result: 'a' },
      { call: calls[1]!, result: 'b' },
    ]);
    expect(observation).toEqual([
      {
        role: 'user',
        content:
          '<tool_response>\na\n</tool_response>\n<tool_response>\nb\n</tool_response>\n',
      },
    ]);
    expect(protocol.renderError('bad')[0]!.content).toBe(
      '[ERROR] Invalid tool call format: bad',
    );
  });
});

describe('findTagPairs', () => {
  it('should find what the lazy tag regex finds', () => {
    const texts = [
      'a<x>1</x>b<x>2</x>c',
      '<x><x>1</x></x>',
      '<x>open',
      '</x><x></x><x>',
      '<x>1</x><x>2',
      '',
      '<x></x></x></x>',
    ];
    for (const text of texts) {
      const expected = [...text.matchAll(/<x>([\s\S]*?)<\/x>/g)].map(
        (match) => [match[0], match[1], match.index],
      );
      const { open, pairs } = findTagPairs({ text, tag: 'x' });
      expect(pairs.map((pair) => [pair.text, pair.inner, pair.start])).toEqual(
        expected,
      );
      expect(open).toBe(text.split('<x>').length - 1);
    }
  });
});

describe('replies made of many opening tags', () => {
  // Regression (fuzz): the lazy tag regexes rescanned the rest of the reply
  // from every unclosed tag; 400 KB of '<think>' took 22 s in envtuning,
  // 400 KB of '<tool_call>' 3.4 s in qwen-xml. Linear now: milliseconds.
  it('should parse in linear time', () => {
    const started = performance.now();
    const qwen = createQwenXmlProtocol().parse('<tool_call>'.repeat(90_000));
    const qwenMixed = createQwenXmlProtocol().parse(
      '<tool_call>{"name": "ls", "arguments": {}}</tool_call>'.repeat(20_000),
    );
    const envtuning = createEnvTuningProtocol().parse(
      '<think>'.repeat(140_000),
    );
    expect(performance.now() - started).toBeLessThan(2_000);
    expect(qwen).toEqual({
      kind: 'error',
      message: 'unclosed <tool_call> tag',
    });
    expect(qwenMixed.kind).toBe('calls');
    expect(qwenMixed.kind === 'calls' && qwenMixed.calls.length).toBe(20_000);
    expect(envtuning.kind).toBe('error');
  });

  it('should keep the text around qwen-xml blocks as the content', () => {
    const parsed = createQwenXmlProtocol().parse(
      'a <tool_call>{"name": "ls", "arguments": {}}</tool_call> b <tool_call>{"name": "pwd", "arguments": {}}</tool_call> c',
    );
    expect(parsed).toMatchObject({ kind: 'calls', content: 'a  b  c' });
  });
});

describe('huge integers in JSON arguments', () => {
  // Regression (fuzz): a 5,000-digit int parsed, then threw a ValueError out
  // of the episode step when the call was printed (the service answered 500).
  const huge = '9'.repeat(5000);

  it('should be a malformed call in every JSON protocol, as json.loads refuses it', () => {
    const qwen = createQwenXmlProtocol().parse(
      `<tool_call>\n{"name": "cd", "arguments": {"folder": ${huge}}}\n</tool_call>`,
    );
    expect(qwen.kind).toBe('error');
    const envtuning = createEnvTuningProtocol().parse(
      `<think>x</think><tool_call>{"name": "cd", "arguments": {"folder": ${huge}}}</tool_call>`,
    );
    expect(envtuning.kind).toBe('error');
    const openai = createOpenAiToolsProtocol().parse({
      role: 'assistant',
      content: '',
      toolCalls: [
        {
          name: 'cd',
          arguments: {},
          argumentsText: `{"folder": ${huge}}`,
          callText: '',
        },
      ],
    });
    expect(openai.kind).toBe('error');
  });
});

describe('openai-tools protocol', () => {
  const protocol = createOpenAiToolsProtocol();

  it('should round-trip structured tool calls', () => {
    roundTrip(protocol);
  });

  it('should read raw JSON arguments with int/float preserved', () => {
    const parsed = protocol.parse({
      role: 'assistant',
      content: '',
      toolCalls: [
        {
          id: 'c1',
          name: 'fillFuelTank',
          arguments: {},
          argumentsText: '{"fuelAmount": 40.0}',
          callText: '',
        },
      ],
    });
    expect(parsed.kind).toBe('calls');
    if (parsed.kind === 'calls')
      expect(toToolCall(parsed.calls[0]!).callText).toBe(
        'fillFuelTank(fuelAmount=40.0)',
      );
  });

  it('should reject malformed arguments and treat plain text as a reply', () => {
    expect(
      protocol.parse({
        role: 'assistant',
        content: '',
        toolCalls: [
          { name: 'x', arguments: {}, argumentsText: '[1', callText: '' },
        ],
      }).kind,
    ).toBe('error');
    expect(protocol.parse({ role: 'assistant', content: 'hello' })).toEqual({
      kind: 'reply',
      content: 'hello',
    });
  });

  it('should return each result as a tool message with its call id', () => {
    const [message] = protocol.renderResults([
      { call: { ...calls[0]!, id: 'c9' }, result: 'ok' },
    ]);
    expect(message).toEqual({
      role: 'tool',
      content: 'ok',
      toolCallId: 'c9',
      name: 'set_budget_limit',
    });
  });
});

describe('envtuning protocol', () => {
  const protocol = createEnvTuningProtocol();

  it('should round-trip single and parallel calls', () => {
    roundTrip(protocol);
  });

  it('should end the turn on an answer', () => {
    expect(
      protocol.parse('<think>done</think>\n<answer>Booked.</answer>'),
    ).toEqual({ kind: 'reply', content: 'Booked.' });
  });

  it.each([
    ['<answer>x</answer>', 'Error: Missing <think></think> tags'],
    [
      '<think>a</think><think>b</think><answer>x</answer>',
      'Error: Multiple <think></think> tag pairs found. Only one pair is allowed.',
    ],
    [
      '<think>a</think><answer>x</answer><answer>y</answer>',
      'Error: Multiple <answer></answer> tag pairs found. Only one pair is allowed.',
    ],
    [
      '<think>a</think><tool_call>{}</tool_call><answer>x</answer>',
      'Error: Response cannot contain both <tool_call> and <answer> tags',
    ],
    [
      '<think>a</think>',
      'Error: Response must contain either <tool_call> or <answer> tags',
    ],
    [
      '<think>a</think> hello <answer>x</answer>',
      'Error: Response must not contain text outside the required XML tags',
    ],
  ])('should reject %s with its actionable message', (text, message) => {
    expect(protocol.parse(text)).toEqual({ kind: 'error', message });
  });

  it('should report invalid JSON inside tool_call', () => {
    const parsed = protocol.parse(
      '<think>a</think><tool_call>{"name": </tool_call>',
    );
    expect(parsed.kind).toBe('error');
    if (parsed.kind === 'error')
      expect(parsed.message).toMatch(
        /^Error: Invalid JSON inside <tool_call>: /,
      );
  });
});

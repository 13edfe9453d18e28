import { createBfclPythonProtocol, toOpenAiTool } from '@seal/env';
import type { ChatMessage, ToolDoc } from '@seal/spec';
import { describe, expect, it } from 'vitest';
import {
  createPolicyChatModel,
  fromOpenAiTool,
  renderForModel,
} from './policy-chat-model';
import { scriptedPolicy } from './scripted-policy.test-support';

const lsDoc: ToolDoc = {
  name: 'ls',
  description: 'List the files of the current directory. More text.',
  parameters: {
    type: 'dict',
    properties: {
      a: { type: 'boolean', description: 'Show hidden files.', default: false },
    },
    required: [],
  },
};
const mvDoc: ToolDoc = {
  name: 'mv',
  description: 'Move a file.',
  parameters: {
    type: 'dict',
    properties: {
      source: { type: 'string' },
      destination: { type: 'string' },
      ratio: { type: 'float' },
    },
    required: ['source', 'destination'],
  },
};

describe('fromOpenAiTool', () => {
  it('should give back the tool doc that toOpenAiTool converted', () => {
    const protocol = createBfclPythonProtocol();
    for (const doc of [lsDoc, mvDoc]) {
      const back = fromOpenAiTool(toOpenAiTool(doc));
      expect(
        protocol.renderSystemPrompt({
          tools: [back],
          mode: 'compact',
          notes: [],
        }),
      ).toBe(
        protocol.renderSystemPrompt({
          tools: [doc],
          mode: 'compact',
          notes: [],
        }),
      );
    }
  });
});

describe('renderForModel', () => {
  const protocol = createBfclPythonProtocol();

  it('should pass a prompting-mode conversation through unchanged', () => {
    const messages: ChatMessage[] = [
      { role: 'system', content: 'tools here' },
      { role: 'user', content: 'list' },
      { role: 'assistant', content: '[ls()]' },
      {
        role: 'user',
        content: "[{'role': 'tool', 'name': 'ls()', 'content': 'a.txt'}]",
      },
    ];
    expect(
      renderForModel({ messages, protocol, promptMode: 'compact' }),
    ).toEqual(messages.map(({ role, content }) => ({ role, content })));
  });

  it("should render tools, tool calls and tool results with the model's protocol", () => {
    const messages: ChatMessage[] = [
      { role: 'user', content: 'move a to b' },
      {
        role: 'assistant',
        content: '',
        toolCalls: [
          {
            id: 'c1',
            name: 'mv',
            arguments: {},
            argumentsText: '{"source": "a", "destination": "b", "ratio": 2.0}',
            callText: '',
          },
          {
            id: 'c2',
            name: 'ls',
            arguments: {},
            argumentsText: '{}',
            callText: '',
          },
        ],
      },
      { role: 'tool', content: 'moved', toolCallId: 'c1' },
      { role: 'tool', content: 'b', toolCallId: 'c2' },
    ];
    const rendered = renderForModel({
      messages,
      tools: [toOpenAiTool(mvDoc), toOpenAiTool(lsDoc)],
      protocol,
      promptMode: 'compact',
    });
    expect(rendered).toEqual([
      {
        role: 'system',
        content: protocol.renderSystemPrompt({
          tools: [mvDoc, lsDoc],
          mode: 'compact',
          notes: [],
        }),
      },
      { role: 'user', content: 'move a to b' },
      {
        role: 'assistant',
        content: "[mv(source='a', destination='b', ratio=2.0), ls()]",
      },
      {
        role: 'user',
        content:
          "[{'role': 'tool', 'name': \"mv(source='a', destination='b', ratio=2.0)\", 'content': 'moved'}, {'role': 'tool', 'name': 'ls()', 'content': 'b'}]",
      },
    ]);
  });
});

describe('createPolicyChatModel', () => {
  it('should decode the reply without its stop token, and cut it at a stop string', async () => {
    const policy = scriptedPolicy({ answer: () => 'Hello there. END more' });
    const model = createPolicyChatModel({ policy });
    const plain = await model.complete({
      messages: [{ role: 'user', content: 'hi' }],
      maxTokens: 64,
      temperature: 0,
    });
    expect(plain.message.content).toBe('Hello there. END more');
    expect(plain.finishReason).toBe('stop');
    expect(plain.usage.completionTokens).toBe(
      'Hello there. END more'.length + 1,
    );
    const cut = await model.complete({
      messages: [{ role: 'user', content: 'hi' }],
      maxTokens: 64,
      temperature: 0,
      stop: [' END'],
    });
    expect(cut.message.content).toBe('Hello there.');
    expect(cut.finishReason).toBe('stop');
    const short = await model.complete({
      messages: [{ role: 'user', content: 'hi' }],
      maxTokens: 5,
      temperature: 0,
    });
    expect(short).toMatchObject({
      message: { content: 'Hello' },
      finishReason: 'length',
    });
  });

  it('should parse the reply into tool calls when tools were offered, unless tool choice is none', async () => {
    const policy = scriptedPolicy({
      answer: () => "[mv(source='a', destination='b', ratio=2.0)]",
    });
    const model = createPolicyChatModel({ policy });
    const request = {
      messages: [{ role: 'user' as const, content: 'move' }],
      tools: [toOpenAiTool(mvDoc)],
      maxTokens: 64,
      temperature: 0,
    };
    const withTools = await model.complete(request);
    expect(withTools.finishReason).toBe('tool_calls');
    expect(withTools.message.content).toBe('');
    expect(withTools.message.toolCalls).toHaveLength(1);
    expect(withTools.message.toolCalls![0]).toMatchObject({
      name: 'mv',
      argumentsText: '{"source": "a", "destination": "b", "ratio": 2.0}',
    });
    const none = await model.complete(request, { toolChoice: 'none' });
    expect(none.message).toEqual({
      role: 'assistant',
      content: "[mv(source='a', destination='b', ratio=2.0)]",
    });
    const prompting = await model.complete({ ...request, tools: undefined });
    expect(prompting.message.toolCalls).toBeUndefined();
  });

  it('should batch greedy requests that wait, and run sampled ones alone with their seeds', async () => {
    const policy = scriptedPolicy({
      answer: (prompt) => `echo ${prompt.length}`,
      delayMs: 20,
    });
    const model = createPolicyChatModel({ policy, maxBatch: 3 });
    const ask = (
      content: string,
      extra: { temperature: number; seed?: number },
    ) =>
      model.complete({
        messages: [{ role: 'user', content }],
        maxTokens: 32,
        ...extra,
      });
    const replies = await Promise.all([
      ask('a', { temperature: 0 }),
      ask('bb', { temperature: 0 }),
      ask('ccc', { temperature: 0 }),
      ask('dddd', { temperature: 0 }),
      ask('e', { temperature: 0.7, seed: 11 }),
      ask('f', { temperature: 0.7, seed: 12 }),
    ]);
    expect(policy.calls.map((call) => call.prompts!.length)).toEqual([
      1, 3, 1, 1,
    ]);
    expect(
      policy.calls.slice(2).map((call) => [call.temperature, call.seed]),
    ).toEqual([
      [0.7, 11],
      [0.7, 12],
    ]);
    // Each reply belongs to its own request.
    expect(replies.map((r) => r.message.content)).toEqual(
      ['a', 'bb', 'ccc', 'dddd', 'e', 'f'].map((content) => {
        const prompt = `<|im_start|>user\n${content}<|im_end|>\n<|im_start|>assistant\n`;
        return `echo ${prompt.length}`;
      }),
    );
  });

  it('should not batch with maxBatch 1', async () => {
    const policy = scriptedPolicy({ answer: () => 'ok', delayMs: 5 });
    const model = createPolicyChatModel({ policy, maxBatch: 1 });
    await Promise.all(
      ['a', 'b', 'c'].map((content) =>
        model.complete({
          messages: [{ role: 'user', content }],
          maxTokens: 8,
          temperature: 0,
        }),
      ),
    );
    expect(policy.calls.map((call) => call.prompts!.length)).toEqual([1, 1, 1]);
  });

  it('should refuse a prompt that does not fit with a context-length error', async () => {
    const policy = scriptedPolicy({
      answer: () => 'ok',
      maxSequenceLength: 64,
    });
    const model = createPolicyChatModel({ policy });
    const messages = [{ role: 'user' as const, content: 'x'.repeat(40) }];
    await expect(
      model.complete({ messages, maxTokens: 32, temperature: 0 }),
    ).rejects.toMatchObject({
      code: 'CONTEXT_LENGTH_EXCEEDED',
      details: { maxTokens: 32, contextLength: 64 },
    });
    // Without max_tokens the reply gets the room that is left.
    await model.complete({ messages, temperature: 0 });
    expect(policy.calls.at(-1)!.maxTokens).toBe(
      64 - model.render({ messages, temperature: 0 }).tokenIds.length,
    );
  });
});

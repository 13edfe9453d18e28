import { SealError } from '@seal/spec';
import { describe, expect, it } from 'vitest';
import { MockPolicyV1, MockPolicyV1Tokenizer } from './mock-policy-v1';

describe('MockPolicyV1', () => {
  it('should return configured results in order and record calls', async () => {
    const generation = {
      tokenIds: [1],
      text: 'x',
      logprobs: [0],
      modelLogprobs: [0],
      finishReason: 'stop' as const,
      promptTokenIds: [2],
    };
    const mock = new MockPolicyV1({
      generate: [
        {
          generations: [generation],
          usage: { promptTokens: 1, completionTokens: 1 },
        },
        { generations: [], usage: { promptTokens: 0, completionTokens: 0 } },
      ],
      score: ({ sequences }) => ({
        logprobs: sequences.map((s) => s.map(() => -1)),
      }),
    });
    expect(
      (await mock.generate({ prompts: [[2]], maxTokens: 1 })).generations,
    ).toHaveLength(1);
    expect(
      (await mock.generate({ prompts: [[2]], maxTokens: 1 })).generations,
    ).toHaveLength(0);
    expect((await mock.score({ sequences: [[1, 2]] })).logprobs).toEqual([
      [-1, -1],
    ]);
    expect(mock.calls.generate).toHaveLength(2);
  });

  it('should throw INVALID_STATE for unconfigured methods', async () => {
    const mock = new MockPolicyV1();
    await expect(
      mock.train({
        objective: 'cross-entropy',
        sequences: [],
        options: { learningRate: 1 },
      }),
    ).rejects.toSatisfy(
      (error: unknown) =>
        SealError.isInstance(error) && error.code === 'INVALID_STATE',
    );
  });

  it('should render chat deltas that continue the token context', () => {
    const tokenizer = new MockPolicyV1Tokenizer();
    const messages = [
      { role: 'user', content: 'hi' },
      { role: 'assistant', content: 'yo' },
      { role: 'user', content: 'bye' },
    ];
    const prompt = tokenizer.renderChat({
      messages: messages.slice(0, 1),
      addGenerationPrompt: true,
    }).tokenIds;
    const generated = tokenizer.encode('yo<|im_end|>');
    const delta = tokenizer.renderChatDelta({
      messages,
      previousMessageCount: 2,
      addGenerationPrompt: true,
    }).tokenIds;
    expect([...prompt, ...generated, ...delta]).toEqual(
      tokenizer.renderChat({ messages, addGenerationPrompt: true }).tokenIds,
    );
  });
});

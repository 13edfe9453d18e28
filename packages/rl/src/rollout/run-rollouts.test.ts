import { createBfclBackend } from '@seal/bfcl';
import { createGeneratorRuntime, generateTasks } from '@seal/bfcl-tasks';
import { MockPolicyV1 } from '@seal/engine-ort/test';
import { createEpisode } from '@seal/env';
import type {
  PolicyV1GenerateOptions,
  PolicyV1GenerateResult,
} from '@seal/spec';
import { describe, expect, it } from 'vitest';
import { runRollouts } from './run-rollouts';

const backend = createBfclBackend({ runtime: createGeneratorRuntime() });
const task = generateTasks({
  seed: 1,
  split: 'train',
  count: 8,
  variants: ['multi_turn_base'],
}).find((t) => t.turns.length >= 2)!;

/** A policy that always ends its turn with a short reply (within maxTokens). */
function replyingPolicy(): MockPolicyV1 {
  const policy: MockPolicyV1 = new MockPolicyV1({
    maxSequenceLength: 1_000_000,
    generate: (request: PolicyV1GenerateOptions): PolicyV1GenerateResult => ({
      generations: (request.prompts ?? []).map((prompt) => {
        const tokenIds = [...policy.tokenizer.encode('Done.'), 257].slice(
          0,
          request.maxTokens,
        );
        return {
          tokenIds,
          text: 'Done.',
          logprobs: tokenIds.map(() => -0.25),
          modelLogprobs: tokenIds.map(() => -0.25),
          finishReason: 'stop' as const,
          promptTokenIds: prompt,
        };
      }),
      usage: { promptTokens: 0, completionTokens: 0 },
    }),
  });
  return policy;
}

async function rollout(maxSequenceLength: number) {
  const [result] = await runRollouts({
    policy: replyingPolicy(),
    tasks: [task],
    groupSize: 1,
    sampling: { maxTokens: 8, temperature: 1, seed: 3 },
    maxSequenceLength,
    createEpisode: ({ task: t }) =>
      createEpisode({
        task: t,
        backend,
        protocol: 'bfcl-python',
        promptMode: 'compact',
        mode: 'train',
      }),
  });
  return result!;
}

describe('runRollouts', () => {
  it('should keep a whole episode token-exact when it fits', async () => {
    const full = await rollout(1_000_000);
    expect(full.record.endReason).toBe('completed');
    expect(full.tokenIds).toHaveLength(full.generatedMask.length);
    expect(full.samplingLogprobs).toHaveLength(full.tokenIds.length);
  });

  it('should end with context-limit and never return more tokens than the model has positions', async () => {
    const full = await rollout(1_000_000);
    const firstPromptLength = full.generatedMask.indexOf(1);
    // Room for the first response only: the next question overflows.
    const limit = firstPromptLength + 8;
    const cut = await rollout(limit);
    expect(cut.record.endReason).toBe('context-limit');
    expect(cut.tokenIds.length).toBeLessThanOrEqual(limit);
    expect(cut.generatedMask).toHaveLength(cut.tokenIds.length);
    expect(cut.samplingLogprobs).toHaveLength(cut.tokenIds.length);
    // Every sampled token is kept, with its log-probability.
    const sampled = cut.generatedMask.reduce((a, b) => a + b, 0);
    expect(sampled).toBeGreaterThan(0);
    expect(cut.tokenIds.slice(0, firstPromptLength + sampled)).toEqual(
      full.tokenIds.slice(0, firstPromptLength + sampled),
    );
    expect(
      cut.samplingLogprobs
        .filter((_, i) => cut.generatedMask[i] === 1)
        .every((l) => l === -0.25),
    ).toBe(true);
  });
});

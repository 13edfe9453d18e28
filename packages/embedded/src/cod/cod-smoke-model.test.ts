import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  buildUpdateContextMessages,
  frozenLakeSystemPrompt,
  injectHintSection,
  initialHints,
} from '@seal/cod';
import { createOrtPolicy } from '@seal/engine-ort';
import { describe, expect, it, onTestFinished } from 'vitest';
import { prepareCodSmokeModel } from './cod-smoke-model';

describe('prepareCodSmokeModel', () => {
  it('should make a model whose update prompts leave room for the response, once', async () => {
    const cacheDirectory = mkdtempSync(join(tmpdir(), 'seal-cod-smoke-'));
    onTestFinished(() =>
      rmSync(cacheDirectory, { recursive: true, force: true }),
    );
    const directory = await prepareCodSmokeModel({ cacheDirectory });
    const written = statSync(join(directory, 'model.safetensors')).mtimeMs;
    expect(await prepareCodSmokeModel({ cacheDirectory })).toBe(directory);
    expect(statSync(join(directory, 'model.safetensors')).mtimeMs).toBe(
      written,
    );
    const policy = await createOrtPolicy({
      model: { directory },
      worker: false,
      threads: 1,
    });
    onTestFinished(() => policy.close());
    // An update after an eight-move failure, with a long previous hint.
    const systemPrompt = injectHintSection({
      systemPrompt: frozenLakeSystemPrompt(8),
      hints: initialHints,
    });
    const steps = Array.from({ length: 8 }, (_, k) => ({
      observation: `Direction ${(k % 4) + 1}: you moved from (1,2) to (2,2).`,
      action: `<answer>Direction ${(k % 4) + 1}</answer>`,
    }));
    const messages = buildUpdateContextMessages({
      previousHints: `Hints: ${'- Direction 2 seems to move left.\n'.repeat(8)}`,
      trajectory: {
        systemPrompt,
        steps,
        reward: 0,
        feedback: 'Failed: ran out of moves (8/8)',
      },
    });
    const prompt = policy.tokenizer.renderChat({
      messages,
      addGenerationPrompt: true,
    }).tokenIds;
    expect(prompt.length + 48).toBeLessThan(policy.maxSequenceLength);
  });
});

import { describe, expect, it } from 'vitest';
import { SeededRandom } from '../io/seeded-random';
import { createModelConfig } from '../model/model-config';
import { buildBpeTokenizer } from '../tokenizer/build-bpe-tokenizer';
import { createOrtPolicy } from './create-ort-policy';

// A short version of examples/engine-ort/copy-task.ts: the whole stack
// (BPE tokenizer, chat template, grad graph, AdamW, KV-cache generation) learns.
describe('supervised copy task', () => {
  it('should reach a low loss and copy held-out strings', async () => {
    const letters = 'abcdefghijklmnopqrstuvwxyz'.split('');
    const word = (r: SeededRandom): string =>
      Array.from({ length: 3 + r.nextInt(4) }, () => letters[r.nextInt(letters.length)]!).join(' ');
    const random = new SeededRandom(1);
    const corpus = Array.from({ length: 200 }, () => {
      const text = word(random);
      return `<|im_start|>user\ncopy: ${text}<|im_end|>\n<|im_start|>assistant\n${text}<|im_end|>\n`;
    });
    const tokenizer = buildBpeTokenizer({ corpus, vocabSize: 320 });
    const config = createModelConfig({
      vocabSize: 320,
      hiddenSize: 128,
      intermediateSize: 384,
      numLayers: 4,
      numHeads: 4,
      numKeyValueHeads: 2,
      maxPositionEmbeddings: 128,
    });
    const policy = await createOrtPolicy({ model: { config, seed: 1 }, tokenizer, worker: false });
    const chat = (text: string) => [{ role: 'user', content: `copy: ${text}` }];
    const example = (text: string) => {
      const prompt = policy.tokenizer.renderChat({ messages: chat(text), addGenerationPrompt: true }).tokenIds;
      const answer = policy.tokenizer.encode(`${text}<|im_end|>`);
      return { tokenIds: [...prompt, ...answer], tokenWeights: [...prompt.map(() => 0), ...answer.map(() => 1)] };
    };
    const steps = 200;
    let loss = Infinity;
    for (let step = 1; step <= steps; step++) {
      const batch = Array.from({ length: 32 }, () => example(word(random)));
      const total = batch.reduce((sum, item) => sum + item.tokenWeights.reduce((a, b) => a + b, 0), 0);
      const progress = Math.max(0, step - 20) / (steps - 20);
      const learningRate = step <= 20 ? (3e-3 * step) / 20 : 3e-3 * (0.05 + 0.475 * (1 + Math.cos(Math.PI * progress)));
      const result = await policy.train({
        objective: 'cross-entropy',
        sequences: batch.map((item) => ({ ...item, tokenWeights: item.tokenWeights.map((w) => w / total) })),
        options: { learningRate },
      });
      loss = result.loss;
    }
    expect(loss).toBeLessThan(0.1);
    const evalRandom = new SeededRandom(77);
    const words = Array.from({ length: 24 }, () => word(evalRandom));
    const { generations } = await policy.generate({
      chats: words.map((text) => ({ messages: chat(text) })),
      maxTokens: 20,
      temperature: 0,
    });
    const correct = generations.filter((generation, i) => generation.text === `${words[i]}<|im_end|>`).length;
    expect(correct / words.length).toBeGreaterThanOrEqual(0.9);
    await policy.close();
    // About 20 s on an idle 2-core machine; the margin covers a shared one.
  }, 300_000);
});

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

  // Decision 0013: with many embedding rows the model's initial scale decides
  // whether it learns to copy in a short run. The same task in a 1,024-row
  // model stays above a loss of 2 after 150 steps at initializer range 0.02
  // and learns it at 0.05 (the embedded default's setting).
  it('should learn to copy in a model with 1,024 embedding rows at initializer range 0.05', async () => {
    const letters = 'abcdefghijklmnopqrstuvwxyz'.split('');
    const random = new SeededRandom(2);
    const word = (): string => Array.from({ length: 3 + random.nextInt(4) }, () => letters[random.nextInt(letters.length)]!).join(' ');
    const corpus = Array.from({ length: 200 }, () => {
      const text = word();
      return `<|im_start|>user\ncopy: ${text}<|im_end|>\n<|im_start|>assistant\n${text}<|im_end|>\n`;
    });
    const tokenizer = buildBpeTokenizer({ corpus, vocabSize: 320 });
    const lossAfter = async (initializerRange: number): Promise<number> => {
      const config = createModelConfig({
        vocabSize: 1024,
        hiddenSize: 128,
        intermediateSize: 384,
        numLayers: 4,
        numHeads: 4,
        numKeyValueHeads: 2,
        maxPositionEmbeddings: 128,
        initializerRange,
      });
      const policy = await createOrtPolicy({ model: { config, seed: 1 }, tokenizer, worker: false });
      const batchRandom = new SeededRandom(3);
      const text = (): string => Array.from({ length: 3 + batchRandom.nextInt(4) }, () => letters[batchRandom.nextInt(letters.length)]!).join(' ');
      let loss = Infinity;
      const steps = 150;
      for (let step = 1; step <= steps; step++) {
        const batch = Array.from({ length: 32 }, () => {
          const value = text();
          const prompt = policy.tokenizer.renderChat({ messages: [{ role: 'user', content: `copy: ${value}` }], addGenerationPrompt: true }).tokenIds;
          const answer = policy.tokenizer.encode(`${value}<|im_end|>`);
          return { tokenIds: [...prompt, ...answer], tokenWeights: [...prompt.map(() => 0), ...answer.map(() => 1)] };
        });
        const total = batch.reduce((sum, item) => sum + item.tokenWeights.reduce((a, b) => a + b, 0), 0);
        const learningRate = step <= 10 ? (3e-3 * step) / 10 : 3e-3 * (0.1 + 0.45 * (1 + Math.cos((Math.PI * (step - 10)) / (steps - 10))));
        const result = await policy.train({
          objective: 'cross-entropy',
          sequences: batch.map((item) => ({ ...item, tokenWeights: item.tokenWeights.map((w) => w / total) })),
          options: { learningRate },
        });
        loss = result.loss;
      }
      await policy.close();
      return loss;
    };
    expect(await lossAfter(0.05)).toBeLessThan(0.2);
    expect(await lossAfter(0.02)).toBeGreaterThan(1);
    // About 30 s for both models on an idle 2-core machine.
  }, 300_000);
});

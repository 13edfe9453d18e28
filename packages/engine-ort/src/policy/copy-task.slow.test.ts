import { describe, expect, it } from 'vitest';
import { SeededRandom } from '../io/seeded-random';
import { createModelConfig } from '../model/model-config';
import { buildBpeTokenizer } from '../tokenizer/build-bpe-tokenizer';
import { createOrtPolicy } from './create-ort-policy';

const letters = 'abcdefghijklmnopqrstuvwxyz'.split('');

/** 3 to 6 random letters separated by spaces. */
const word = (random: SeededRandom): string =>
  Array.from(
    { length: 3 + random.nextInt(4) },
    () => letters[random.nextInt(letters.length)]!,
  ).join(' ');

const chat = (text: string) => [{ role: 'user', content: `copy: ${text}` }];

/** A tokenizer trained on 200 copy conversations drawn from `random`. */
function copyTokenizer(random: SeededRandom) {
  const corpus = Array.from({ length: 200 }, () => {
    const text = word(random);
    return `<|im_start|>user\ncopy: ${text}<|im_end|>\n<|im_start|>assistant\n${text}<|im_end|>\n`;
  });
  return buildBpeTokenizer({ corpus, vocabSize: 320 });
}

/** A 4-layer Qwen2 model for the copy task. */
function createCopyPolicy({
  tokenizer,
  vocabSize,
  initializerRange,
}: {
  tokenizer: ReturnType<typeof buildBpeTokenizer>;
  vocabSize: number;
  initializerRange?: number;
}) {
  const config = createModelConfig({
    vocabSize,
    hiddenSize: 128,
    intermediateSize: 384,
    numLayers: 4,
    numHeads: 4,
    numKeyValueHeads: 2,
    maxPositionEmbeddings: 128,
    ...(initializerRange === undefined ? {} : { initializerRange }),
  });
  return createOrtPolicy({
    model: { config, seed: 1 },
    tokenizer,
    worker: false,
  });
}

/**
 * Trains `steps` batches of 32 copy examples drawn from `random` (linear
 * warm-up to 3e-3, cosine decay to `floor` × 3e-3) and returns the last loss.
 */
async function trainCopy({
  policy,
  random,
  steps,
  warmupSteps,
  floor,
}: {
  policy: Awaited<ReturnType<typeof createCopyPolicy>>;
  random: SeededRandom;
  steps: number;
  warmupSteps: number;
  floor: number;
}): Promise<number> {
  const example = (text: string) => {
    const prompt = policy.tokenizer.renderChat({
      messages: chat(text),
      addGenerationPrompt: true,
    }).tokenIds;
    const answer = policy.tokenizer.encode(`${text}<|im_end|>`);
    return {
      tokenIds: [...prompt, ...answer],
      tokenWeights: [...prompt.map(() => 0), ...answer.map(() => 1)],
    };
  };
  let loss = Infinity;
  for (let step = 1; step <= steps; step++) {
    const batch = Array.from({ length: 32 }, () => example(word(random)));
    const total = batch.reduce(
      (sum, item) => sum + item.tokenWeights.reduce((a, b) => a + b, 0),
      0,
    );
    const progress = (step - warmupSteps) / (steps - warmupSteps);
    const learningRate =
      step <= warmupSteps
        ? (3e-3 * step) / warmupSteps
        : 3e-3 *
          (floor + ((1 - floor) / 2) * (1 + Math.cos(Math.PI * progress)));
    const result = await policy.train({
      objective: 'cross-entropy',
      sequences: batch.map((item) => ({
        ...item,
        tokenWeights: item.tokenWeights.map((w) => w / total),
      })),
      options: { learningRate },
    });
    loss = result.loss;
  }
  return loss;
}

// A short version of examples/engine-ort/copy-task.ts: the whole stack
// (BPE tokenizer, chat template, grad graph, AdamW, KV-cache generation) learns.
describe('supervised copy task', () => {
  it('should reach a low loss and copy held-out strings', async () => {
    const random = new SeededRandom(1);
    const tokenizer = copyTokenizer(random);
    const policy = await createCopyPolicy({ tokenizer, vocabSize: 320 });
    const loss = await trainCopy({
      policy,
      random,
      steps: 200,
      warmupSteps: 20,
      floor: 0.05,
    });
    expect(loss).toBeLessThan(0.1);
    const evalRandom = new SeededRandom(77);
    const words = Array.from({ length: 24 }, () => word(evalRandom));
    const { generations } = await policy.generate({
      chats: words.map((text) => ({ messages: chat(text) })),
      maxTokens: 20,
      temperature: 0,
    });
    const correct = generations.filter(
      (generation, i) => generation.text === `${words[i]}<|im_end|>`,
    ).length;
    expect(correct / words.length).toBeGreaterThanOrEqual(0.9);
    await policy.close();
    // About 20 s on an idle 2-core machine; the margin covers a shared one.
  }, 300_000);

  // Decision 0013: with many embedding rows the model's initial scale decides
  // whether it learns to copy in a short run. The same task in a 1,024-row
  // model stays above a loss of 2 after 150 steps at initializer range 0.02
  // and learns it at 0.05 (the embedded default's setting).
  it('should learn to copy in a model with 1,024 embedding rows at initializer range 0.05', async () => {
    const tokenizer = copyTokenizer(new SeededRandom(2));
    const lossAfter = async (initializerRange: number): Promise<number> => {
      const policy = await createCopyPolicy({
        tokenizer,
        vocabSize: 1024,
        initializerRange,
      });
      try {
        return await trainCopy({
          policy,
          random: new SeededRandom(3),
          steps: 150,
          warmupSteps: 10,
          floor: 0.1,
        });
      } finally {
        await policy.close();
      }
    };
    expect(await lossAfter(0.05)).toBeLessThan(0.2);
    expect(await lossAfter(0.02)).toBeGreaterThan(1);
    // About 30 s for both models on an idle 2-core machine.
  }, 300_000);
});

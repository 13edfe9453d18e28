/**
 * The whole stack learns: a supervised run on a synthetic copy task.
 *
 * A small Qwen2-style model (from scratch, seeded), a byte-level BPE
 * tokenizer built for the task, and the ChatML template. Each example asks
 * `copy: <letters>` and the assistant must answer the same letters. Training
 * uses the cross-entropy objective on the answer tokens only (token-mean
 * weights), AdamW with warmup and cosine decay; then greedy generation on
 * held-out strings measures exact-match accuracy.
 *
 * Run: node --conditions=@seal/source --import tsx examples/engine-ort/copy-task.ts [--steps 1500]
 */
import {
  buildBpeTokenizer,
  createModelConfig,
  createOrtPolicy,
  countParameters,
  SeededRandom,
} from '../../packages/engine-ort/src/index';
import type { PolicyV1ChatMessage } from '../../packages/spec/src/index';
import { run } from './lib/run';

const letters = 'abcdefghijklmnopqrstuvwxyz'.split('');

function randomString(random: SeededRandom): string {
  const length = 3 + random.nextInt(6);
  return Array.from(
    { length },
    () => letters[random.nextInt(letters.length)]!,
  ).join(' ');
}

function argument(name: string, fallback: number): number {
  const index = process.argv.indexOf(`--${name}`);
  return index >= 0 ? Number(process.argv[index + 1]) : fallback;
}

run(async () => {
  const steps = argument('steps', 600);
  const batchSize = argument('batch', 32);
  const evalCount = argument('eval', 200);
  const started = performance.now();
  const random = new SeededRandom(1);
  const chat = (word: string): PolicyV1ChatMessage[] => [
    { role: 'user', content: `copy: ${word}` },
  ];

  const corpus = Array.from({ length: 400 }, () => {
    const word = randomString(random);
    return `<|im_start|>user\ncopy: ${word}<|im_end|>\n<|im_start|>assistant\n${word}<|im_end|>\n`;
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
  const policy = await createOrtPolicy({
    model: { config, seed: 1 },
    tokenizer,
    policyId: 'copy-task',
  });
  console.log(
    `model: ${countParameters(config).toLocaleString()} parameters, vocab ${config.vocabSize}`,
  );

  const example = (
    word: string,
  ): { tokenIds: number[]; tokenWeights: number[] } => {
    const prompt = policy.tokenizer.renderChat({
      messages: chat(word),
      addGenerationPrompt: true,
    }).tokenIds;
    const answer = policy.tokenizer.encode(`${word}<|im_end|>`);
    return {
      tokenIds: [...prompt, ...answer],
      tokenWeights: [...prompt.map(() => 0), ...answer.map(() => 1)],
    };
  };

  const peak = 3e-3;
  const warmup = Math.min(100, Math.floor(steps / 10));
  console.log('step   loss     grad-norm  lr        elapsed');
  for (let step = 1; step <= steps; step++) {
    const batch = Array.from({ length: batchSize }, () =>
      example(randomString(random)),
    );
    const total = batch.reduce(
      (sum, item) => sum + item.tokenWeights.reduce((a, b) => a + b, 0),
      0,
    );
    const sequences = batch.map((item) => ({
      ...item,
      tokenWeights: item.tokenWeights.map((w) => w / total),
    }));
    const progress = Math.max(0, step - warmup) / Math.max(1, steps - warmup);
    const learningRate =
      step <= warmup
        ? (peak * step) / warmup
        : peak * (0.05 + 0.95 * 0.5 * (1 + Math.cos(Math.PI * progress)));
    const result = await policy.train({
      objective: 'cross-entropy',
      sequences,
      options: { learningRate, weightDecay: 0.01 },
    });
    if (step === 1 || step % 50 === 0 || step === steps) {
      const elapsed = ((performance.now() - started) / 1000).toFixed(1);
      console.log(
        `${String(step).padStart(5)}  ${result.loss.toFixed(4).padStart(7)}  ${result.gradNorm.toFixed(3).padStart(9)}  ${learningRate.toExponential(2)}  ${elapsed}s`,
      );
    }
  }

  const evalRandom = new SeededRandom(12345);
  const words = Array.from({ length: evalCount }, () =>
    randomString(evalRandom),
  );
  const { generations } = await policy.generate({
    chats: words.map((word) => ({ messages: chat(word) })),
    maxTokens: 24,
    temperature: 0,
  });
  let correct = 0;
  generations.forEach((generation, i) => {
    if (generation.text === `${words[i]}<|im_end|>`) correct++;
  });
  console.log(
    `\nheld-out exact match: ${correct}/${evalCount} = ${((100 * correct) / evalCount).toFixed(1)}%`,
  );
  for (const [i, generation] of generations.slice(0, 3).entries()) {
    console.log(`  copy: ${words[i]}  ->  ${JSON.stringify(generation.text)}`);
  }
  console.log(
    `total time ${((performance.now() - started) / 1000).toFixed(1)}s`,
  );
  await policy.close();
});

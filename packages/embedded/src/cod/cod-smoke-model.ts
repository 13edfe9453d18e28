import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, rename, rm } from 'node:fs/promises';
import { join } from 'node:path';
import {
  buildUpdateContextMessages,
  createFrozenLakeEnvironment,
  generateFrozenLakeTasks,
  hintEndDelimiter,
  hintStartDelimiter,
  injectHintSection,
  initialHints,
} from '@seal/cod';
import {
  buildBpeTokenizer,
  copyFriendlyPretokenizerPattern,
  createModelConfig,
  createOrtPolicy,
} from '@seal/engine-ort';

/** Shape of the smoke model: tiny, with room for an update prompt and its response. */
const smokeModel = {
  vocabSize: 1024,
  hiddenSize: 64,
  intermediateSize: 128,
  numLayers: 2,
  numHeads: 2,
  numKeyValueHeads: 1,
  maxPositionEmbeddings: 2048,
  initializerRange: 0.05,
};

/**
 * Texts of FrozenLake-Obscure pack runs: solve prompts with a hint section,
 * answers, the environment's feedback, and update prompts over random
 * trajectories, so the tokenizer covers what the smoke run will show it.
 */
function frozenLakeCorpus(): string[] {
  const environment = createFrozenLakeEnvironment();
  const corpus: string[] = [];
  for (const [index, task] of generateFrozenLakeTasks({
    seed: 424_242,
    count: 24,
  }).entries()) {
    const episode = environment.startSolve({
      task,
      packSeed: index,
      episodeId: `corpus-${index}`,
    });
    const [system, ...rest] = episode.reset();
    const systemPrompt = injectHintSection({
      systemPrompt: system?.content ?? '',
      hints:
        index % 2 === 0
          ? initialHints
          : `Hints: - Direction ${(index % 4) + 1} may move up`,
    });
    const steps: { observation: string; action: string }[] = [];
    let observation = rest.map((message) => message.content).join('\n');
    for (let move = 0; !episode.done; move++) {
      const action = `<answer>Direction ${((index + move) % 4) + 1}</answer>`;
      steps.push({ observation, action });
      observation = episode
        .step(action)
        .observation.map((message) => message.content)
        .join('\n');
      corpus.push(observation);
    }
    const feedback =
      index % 3 === 0
        ? 'Success! Reached the goal'
        : 'Failed: fell into a hole';
    const update = buildUpdateContextMessages({
      previousHints: initialHints,
      trajectory: { systemPrompt, steps, reward: 0, feedback },
    });
    corpus.push(
      systemPrompt,
      ...update.map((message) => message.content),
      `${hintStartDelimiter}\n- Direction 2 seems to move left.\n${hintEndDelimiter}`,
    );
  }
  return corpus;
}

/**
 * The starting model of `seal train --method cod --preset smoke` on
 * FrozenLake-Obscure: a tiny random model whose tokenizer is trained on the
 * pack prompts, made in seconds and cached under `cacheDirectory`. The
 * embedded BFCL warm start does not serve here: its tokenizer spends over
 * 1,000 of its 1,024 positions on one update prompt, so no update-context
 * call would ever run. A plumbing check: it learns little.
 */
export async function prepareCodSmokeModel({
  cacheDirectory,
}: {
  cacheDirectory: string;
}): Promise<string> {
  const corpus = frozenLakeCorpus();
  const key = createHash('sha256')
    .update(JSON.stringify({ smokeModel, corpus }))
    .digest('hex')
    .slice(0, 16);
  const directory = join(cacheDirectory, `cod-smoke-${key}`);
  if (existsSync(join(directory, 'model.safetensors'))) return directory;
  const tokenizer = buildBpeTokenizer({
    corpus,
    vocabSize: smokeModel.vocabSize,
    pattern: copyFriendlyPretokenizerPattern,
  });
  const policy = await createOrtPolicy({
    model: { config: createModelConfig(smokeModel), seed: 1 },
    tokenizer,
    worker: false,
  });
  // A temporary directory renamed at the end: a crash never leaves a half cache.
  const temporary = `${directory}.tmp-${process.pid}`;
  try {
    await rm(temporary, { recursive: true, force: true });
    await mkdir(cacheDirectory, { recursive: true });
    await policy.save({ directory: temporary });
  } finally {
    await policy.close();
  }
  await rename(temporary, directory);
  return directory;
}

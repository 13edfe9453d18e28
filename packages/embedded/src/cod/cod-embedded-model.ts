import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { mkdir, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import {
  buildPacks,
  compactUpdateContextSystemPrompt,
  demonstrationTokens,
  fallbackHints,
  generateFrozenLakeTasks,
  playFrozenLakeExpertPack,
  trainPackSize,
  type CodDemonstration,
  type FrozenLakeDemonstrationConversation,
  type FrozenLakeObservations,
} from '@seal/cod';
import {
  buildBpeTokenizer,
  createModelConfig,
  createOrtPolicy,
  HuggingFaceTokenizer,
  type TokenizerFiles,
} from '@seal/engine-ort';
import { runSupervised } from '@seal/rl';
import { parseJsonText } from '@seal/spec';

/**
 * The embedded CoD model: small enough to train in minutes on two cores,
 * with a 1,024-token context that holds a compact update prompt (at most
 * about 760 tokens with this tokenizer, after an eight-move task) and its
 * reply (at most about 240: a line per move, then the hint block).
 */
export const codEmbeddedModel = {
  vocabSize: 640,
  hiddenSize: 128,
  intermediateSize: 384,
  numLayers: 4,
  numHeads: 4,
  numKeyValueHeads: 2,
  maxPositionEmbeddings: 1024,
  initializerRange: 0.02,
} as const;

/**
 * The literal setting's model (decision 0041): the embedded CoD model's
 * shape with decision 0013's wider initialisation (0.05), with which that
 * decision's copy test learns in 150 steps and at 0.02 does not. At 0.02
 * and this width the CoD model learned the form of every reply and copied
 * nothing from its context (decision 0024; here 24.1% of the facts its hints
 * stated were facts of the trajectory shown, chance 21.3%, with each fact
 * one token).
 */
export const codLiteralModel = {
  ...codEmbeddedModel,
  initializerRange: 0.05,
} as const;

/**
 * Split of the embedded CoD tokenizer: capitals alone (each map tile is one
 * token), lowercase words with their leading space, digits alone.
 */
export const codEmbeddedPretokenizerPattern =
  '\\p{Lu}| ?\\p{Ll}+|\\p{N}|[^\\s\\p{L}\\p{N}]|\\s+';

/**
 * Tokens the embedded CoD model may sample per solve action and per update
 * reply (`--max-tokens`, `--update-max-tokens` of the embedded preset): room
 * for the demonstrator's longest replies (25 and 236 tokens with the stop
 * token, decision 0024's addendum), and the longest update prompt of
 * evaluation packs of 8 plus `updateMaxTokens` stays within the 1,024-token
 * context (checked in `cod-embedded-model.slow.test.ts`).
 */
export const codEmbeddedSampling = {
  maxTokens: 32,
  updateMaxTokens: 240,
} as const;

/** The warm-start recipe: demonstration packs, their noise, and the supervised schedule. */
export const codEmbeddedRecipe = {
  /**
   * Which demonstrations: 2 reason first (a line before each answer, a line
   * per move before the hint block; decision 0024's addendum), 1 (before the
   * field existed) answered bare. Part of the cache key, like the corpus.
   */
  demonstrations: 2,
  /** Seed of the demonstration maps and pack seeds (apart from the train and eval splits of `cod-packs.ts`). */
  seed: 5_000_011,
  /** Demonstration packs of 4 tasks (4 solves and 3 hint updates each). */
  packs: 320,
  /** Every third pack takes a random (untrained) move at this rate, so hint demonstrations also read clumsy trajectories. */
  randomMoveRate: 0.25,
  /** Chance that an update's hints are replaced by `Hints: no hint available.` for the next solve. */
  fallbackRate: 0.1,
  epochs: 2,
  batchSize: 8,
  learningRate: 3e-3,
  warmupSteps: 10,
  modelSeed: 1,
} as const;

/**
 * The warm-start recipe of the `frozen-lake-literal` setting (decision
 * 0041): the same model, packs, noise and schedule as
 * {@link codEmbeddedRecipe}, on FrozenLake-Obscure whose observations name
 * the real move (`Direction 2 = up: you moved from (1,3) to (0,3).`). An
 * update writes the hint block alone, a bullet for each direction (a copy
 * of a span of the trajectory or of the previous hints, or `unknown`), and
 * the loss also weighs the
 * prompt tokens a little (`contextWeight`): predicting a repeated
 * `Direction k = move` in the context is the same lookup as copying it.
 */
export const codLiteralRecipe = {
  observations: 'literal',
  demonstrations: 1,
  seed: codEmbeddedRecipe.seed,
  packs: codEmbeddedRecipe.packs,
  randomMoveRate: codEmbeddedRecipe.randomMoveRate,
  fallbackRate: codEmbeddedRecipe.fallbackRate,
  epochs: 2,
  batchSize: 8,
  learningRate: 3e-3,
  warmupSteps: 10,
  contextWeight: 0.1,
  modelSeed: 1,
} as const;

/**
 * Tokens the literal-setting model samples per solve action and per update
 * reply: the solve reply is as in {@link codEmbeddedSampling}; the update
 * reply is the hint block alone (at most 50 tokens in the demonstrations).
 */
export const codLiteralSampling = {
  maxTokens: 32,
  updateMaxTokens: 96,
} as const;

/** The CoD settings an embedded model is warm-started for: their observations. */
export type CodEmbeddedSetting = FrozenLakeObservations;

type CodRecipe = typeof codEmbeddedRecipe | typeof codLiteralRecipe;

const recipeOf = (setting: CodEmbeddedSetting): CodRecipe =>
  setting === 'literal' ? codLiteralRecipe : codEmbeddedRecipe;

/** What `cod-warmstart.json` in the warm-start directory records. */
export type CodEmbeddedManifest = {
  schemaVersion: 1;
  model: typeof codEmbeddedModel | typeof codLiteralModel;
  recipe: CodRecipe;
  demonstrations: {
    solve: number;
    update: number;
    tokens: number;
    expertSuccessByPosition: number[];
  };
  losses: { first: number; last: number; steps: number };
  seconds: number;
  /** The literal setting's drill stages ({@link codLiteralDrills}), in order. */
  drills?: {
    conversations: number;
    losses: { first: number; last: number; steps: number };
    seconds: number;
  }[];
};

/** The demonstration conversations of the setting's recipe, deterministic. */
export async function codEmbeddedConversations(
  setting: CodEmbeddedSetting = 'positions',
  /** Another seed of maps and pack seeds (the literal setting's copy drills); default the recipe's. */
  seedOverride?: number,
): Promise<FrozenLakeDemonstrationConversation[]> {
  const recipe = recipeOf(setting);
  const seed = seedOverride ?? recipe.seed;
  const count = recipe.packs;
  const tasks = generateFrozenLakeTasks({ seed, count: count * trainPackSize });
  const packs = buildPacks({
    tasks,
    taskId: (t) => t.taskId,
    tasksetId: (t) => t.tasksetId,
    packSize: trainPackSize,
    strategy: 'cod',
    seed,
  }).slice(0, count);
  const conversations: FrozenLakeDemonstrationConversation[] = [];
  for (const pack of packs) {
    conversations.push(
      ...(await playFrozenLakeExpertPack({
        pack,
        settings: {
          format: 'compact',
          randomMoveRate: pack.packIndex % 3 === 2 ? recipe.randomMoveRate : 0,
          fallbackRate: recipe.fallbackRate,
          seed,
          ...(setting === 'literal' ? { observations: 'literal' } : {}),
        },
      })),
    );
  }
  return conversations;
}

/** The corpus of the embedded tokenizer: every message of the demonstrations, the update instructions and the fallback context. */
export function codEmbeddedCorpus(
  conversations: readonly FrozenLakeDemonstrationConversation[],
): string[] {
  return [
    ...conversations.flatMap((conversation) =>
      conversation.messages.map((message) => message.content),
    ),
    compactUpdateContextSystemPrompt,
    fallbackHints,
  ];
}

/** The embedded CoD tokenizer's files, trained on {@link codEmbeddedCorpus}. */
export function buildCodEmbeddedTokenizer(
  corpus: readonly string[],
  setting: CodEmbeddedSetting = 'positions',
): TokenizerFiles {
  return setting === 'literal'
    ? buildBpeTokenizer({
        corpus,
        vocabSize: codEmbeddedModel.vocabSize,
        pattern: codLiteralPretokenizerPattern,
        wholeTokens: codLiteralFactTokens,
      })
    : buildBpeTokenizer({
        corpus,
        vocabSize: codEmbeddedModel.vocabSize,
        pattern: codEmbeddedPretokenizerPattern,
      });
}

/**
 * The sixteen facts of the literal setting, `Direction k = move`: each one
 * token of its tokenizer (decision 0041), as an observation states it and a
 * hint bullet restates it, so carrying a fact is copying one token of the
 * context (split, it is seven: `D`, `irection`, ` `, `2`, ` `, `=`, ` up`,
 * and the copied token sits two places after the number that selects it).
 * One of the three changes (with the initialisation of
 * {@link codLiteralModel} and the drills of {@link codLiteralDrills}) after
 * which the model restated what it saw; none of them alone was tried.
 */
export const codLiteralFactTokens: readonly string[] = [1, 2, 3, 4].flatMap(
  (k) =>
    ['up', 'down', 'left', 'right'].map((move) => `Direction ${k} = ${move}`),
);

/** The literal setting's pre-tokenizer: a fact ({@link codLiteralFactTokens}) first, else as {@link codEmbeddedPretokenizerPattern}. */
export const codLiteralPretokenizerPattern = `Direction [1-4] = (?:up|down|left|right)|${codEmbeddedPretokenizerPattern}`;

/**
 * The starting model of `seal train --method cod --preset embedded` on
 * FrozenLake-Obscure in the compact prompt format: a small model with a
 * tokenizer trained on the pack prompts, warm-started by cross-entropy on
 * demonstration packs in which a demonstrator solves with and without hints
 * and writes hints that state the direction mapping a trajectory revealed.
 * Deterministic from its recipe; cached under `cacheDirectory` by a hash of
 * the recipe and the demonstrations. Trains in a few minutes on two cores.
 */
export async function prepareCodEmbeddedModel(options: {
  cacheDirectory: string;
  onProgress?: (line: string) => void;
  /** `positions` (default; `--preset embedded`) or `literal` (`--preset literal`: {@link codLiteralRecipe}, then {@link codLiteralDrills}). */
  setting?: CodEmbeddedSetting;
}): Promise<{ directory: string; manifest: CodEmbeddedManifest }> {
  const stage = await prepareDemonstrationStage(options);
  if (options.setting !== 'literal') return stage;
  return prepareLiteralDrills({ ...options, stage });
}

/** The warm start on the demonstrations alone (the whole recipe of `positions`; the first stage of `literal`). */
async function prepareDemonstrationStage({
  cacheDirectory,
  onProgress,
  setting = 'positions',
}: {
  cacheDirectory: string;
  onProgress?: (line: string) => void;
  /** `positions` (default; `--preset embedded`) or `literal` (`--preset literal`, {@link codLiteralRecipe}). */
  setting?: CodEmbeddedSetting;
}): Promise<{ directory: string; manifest: CodEmbeddedManifest }> {
  const recipe = recipeOf(setting);
  const conversations = await codEmbeddedConversations(setting);
  const corpus = codEmbeddedCorpus(conversations);
  const key = createHash('sha256')
    .update(
      JSON.stringify(
        setting === 'literal'
          ? {
              codLiteralModel,
              codLiteralRecipe,
              codLiteralPretokenizerPattern,
              codLiteralFactTokens,
              corpus,
            }
          : {
              codEmbeddedModel,
              codEmbeddedRecipe,
              codEmbeddedPretokenizerPattern,
              corpus,
            },
      ),
    )
    .digest('hex')
    .slice(0, 16);
  const directory = join(
    cacheDirectory,
    `${setting === 'literal' ? 'cod-literal' : 'cod-embedded'}-${key}`,
  );
  const manifestPath = join(directory, 'cod-warmstart.json');
  if (
    existsSync(join(directory, 'model.safetensors')) &&
    existsSync(manifestPath)
  ) {
    return {
      directory,
      manifest: parseJsonText({
        text: readFileSync(manifestPath, 'utf8'),
        source: manifestPath,
      }) as CodEmbeddedManifest,
    };
  }
  const started = performance.now();
  const files = buildCodEmbeddedTokenizer(corpus, setting);
  const tokenizer = new HuggingFaceTokenizer(files);
  const demonstrations: CodDemonstration[] = conversations.map((conversation) =>
    demonstrationTokens({ tokenizer, conversation }),
  );
  const policy = await createOrtPolicy({
    model: {
      config: createModelConfig(
        setting === 'literal' ? codLiteralModel : codEmbeddedModel,
      ),
      seed: recipe.modelSeed,
    },
    tokenizer: files,
    worker: false,
    threads: 1,
  });
  const temporary = `${directory}.tmp-${process.pid}`;
  let losses: number[];
  try {
    losses = await runSupervised({
      policy,
      demonstrations,
      epochs: recipe.epochs,
      batchSize: recipe.batchSize,
      learningRate: recipe.learningRate,
      warmupSteps: recipe.warmupSteps,
      seed: recipe.modelSeed,
      ...('contextWeight' in recipe
        ? { contextWeight: recipe.contextWeight }
        : {}),
      onProgress: ({ step, steps, loss }) => {
        if (step === 1 || step % 20 === 0 || step === steps)
          onProgress?.(
            `  warm start step ${step}/${steps}: loss ${loss.toFixed(3)} (${((performance.now() - started) / 1000).toFixed(0)} s)`,
          );
      },
    });
    await rm(temporary, { recursive: true, force: true });
    await mkdir(cacheDirectory, { recursive: true });
    await policy.save({ directory: temporary });
  } finally {
    await policy.close();
  }
  const solves = conversations.filter(
    (conversation) => conversation.kind === 'solve',
  );
  const positions = trainPackSize;
  const manifest: CodEmbeddedManifest = {
    schemaVersion: 1,
    model: setting === 'literal' ? codLiteralModel : codEmbeddedModel,
    recipe,
    demonstrations: {
      solve: solves.length,
      update: conversations.length - solves.length,
      tokens: demonstrations.reduce(
        (total, demonstration) => total + demonstration.tokenIds.length,
        0,
      ),
      expertSuccessByPosition: Array.from(
        { length: positions },
        (_, position) => {
          const at = solves.filter((solve) => solve.position === position);
          return (
            at.filter((solve) => solve.success === true).length /
            Math.max(1, at.length)
          );
        },
      ),
    },
    losses: {
      first: losses[0] ?? Number.NaN,
      last: losses.at(-1) ?? Number.NaN,
      steps: losses.length,
    },
    seconds: (performance.now() - started) / 1000,
  };
  await writeFile(
    join(temporary, 'cod-warmstart.json'),
    `${JSON.stringify(manifest, null, 2)}\n`,
  );
  // RL starts with fresh Adam moments: the supervised ones (gradients orders of magnitude larger than
  // RL's) would shrink every RL step about tenfold (weights moved 9e-5 rms in 6 steps at lr 2e-4).
  await rm(join(temporary, 'optimizer.safetensors'), { force: true });
  await rm(directory, { recursive: true, force: true });
  await rename(temporary, directory);
  return { directory, manifest };
}

/**
 * The stages after the demonstrations in the literal setting's warm start
 * (decision 0041), each from the one before: 600 lookup drills, then the
 * demonstrations again for 150 steps (the drills alone unlearn the solve
 * replies, which then answer with a hint block). A lookup drill is an update
 * demonstration cut down to what the lookup needs: the update instructions,
 * the previous hints and the trajectory's observation lines alone
 * (`Moves:`), answered by the demonstrator's hint block; short, so many fit
 * a step (decision 0010's recipe for the BFCL model, here on this setting).
 * Trained on the demonstrations alone the model wrote blocks of the right
 * form whose moves it did not copy (24.3% restated, chance 25.7%).
 */
export const codLiteralDrills: readonly CodLiteralDrillStage[] = [
  {
    seeds: [5_000_011, 5_000_023, 5_000_029],
    steps: 600,
    batchSize: 16,
    learningRate: 2e-3,
    warmupSteps: 20,
    contextWeight: 0.1,
    seed: 2,
  },
  {
    seeds: [5_000_011],
    steps: 150,
    batchSize: 8,
    learningRate: 1e-3,
    warmupSteps: 10,
    contextWeight: 0.1,
    seed: 4,
    demonstrations: true,
  },
];

/** One stage of {@link codLiteralDrills}. */
type CodLiteralDrillStage = {
  seeds: readonly number[];
  steps: number;
  batchSize: number;
  learningRate: number;
  warmupSteps: number;
  contextWeight: number;
  seed: number;
  demonstrations?: true;
};

const literalObservationLine =
  /Direction [1-4] = (?:up|down|left|right): [^\n]*/g;

/** A drill from an update demonstration of the literal setting: instructions, previous hints, the observation lines, the hint block. */
export function codLiteralDrill(
  conversation: FrozenLakeDemonstrationConversation,
): FrozenLakeDemonstrationConversation {
  const user = conversation.messages.find((m) => m.role === 'user')!.content;
  const reply = conversation.messages.find(
    (m) => m.role === 'assistant',
  )!.content;
  const previous = user.slice(0, user.indexOf('\n\n'));
  const lines = [...user.matchAll(literalObservationLine)].map((m) => m[0]);
  return {
    kind: 'update',
    position: conversation.position,
    taskId: conversation.taskId,
    messages: [
      { role: 'system', content: compactUpdateContextSystemPrompt },
      { role: 'user', content: `${previous}\n\nMoves:\n${lines.join('\n')}` },
      { role: 'assistant', content: reply },
    ],
    trained: [true],
  };
}

async function prepareLiteralDrills({
  cacheDirectory,
  onProgress,
  stage,
}: {
  cacheDirectory: string;
  onProgress?: (line: string) => void;
  stage: { directory: string; manifest: CodEmbeddedManifest };
}): Promise<{ directory: string; manifest: CodEmbeddedManifest }> {
  let current = stage;
  for (const drills of codLiteralDrills)
    current = await prepareDrillStage({
      cacheDirectory,
      ...(onProgress === undefined ? {} : { onProgress }),
      stage: current,
      drills,
    });
  return current;
}

/** One drill stage from the stage before it, cached by that stage's directory and its settings. */
async function prepareDrillStage({
  cacheDirectory,
  onProgress,
  stage,
  drills: codLiteralDrills,
}: {
  cacheDirectory: string;
  onProgress?: (line: string) => void;
  stage: { directory: string; manifest: CodEmbeddedManifest };
  drills: CodLiteralDrillStage;
}): Promise<{ directory: string; manifest: CodEmbeddedManifest }> {
  const key = createHash('sha256')
    .update(
      JSON.stringify({
        stage: stage.directory.split(/[\\/]/).at(-1),
        codLiteralDrills,
      }),
    )
    .digest('hex')
    .slice(0, 16);
  const directory = join(cacheDirectory, `cod-literal-drilled-${key}`);
  const manifestPath = join(directory, 'cod-warmstart.json');
  if (
    existsSync(join(directory, 'model.safetensors')) &&
    existsSync(manifestPath)
  )
    return {
      directory,
      manifest: parseJsonText({
        text: readFileSync(manifestPath, 'utf8'),
        source: manifestPath,
      }) as CodEmbeddedManifest,
    };
  const started = performance.now();
  const drills: FrozenLakeDemonstrationConversation[] = [];
  for (const seed of codLiteralDrills.seeds)
    for (const conversation of await codEmbeddedConversations(
      'literal',
      seed,
    )) {
      if (codLiteralDrills.demonstrations === true) drills.push(conversation);
      else if (conversation.kind === 'update')
        drills.push(codLiteralDrill(conversation));
    }
  const policy = await createOrtPolicy({
    model: { directory: stage.directory },
    worker: false,
    threads: 1,
  });
  const temporary = `${directory}.tmp-${process.pid}`;
  let losses: number[];
  try {
    const demonstrations = drills.map((conversation) =>
      demonstrationTokens({ tokenizer: policy.tokenizer, conversation }),
    );
    losses = await runSupervised({
      policy,
      demonstrations,
      epochs: Math.ceil(
        (codLiteralDrills.steps * codLiteralDrills.batchSize) /
          demonstrations.length,
      ),
      maxSteps: codLiteralDrills.steps,
      batchSize: codLiteralDrills.batchSize,
      learningRate: codLiteralDrills.learningRate,
      warmupSteps: codLiteralDrills.warmupSteps,
      contextWeight: codLiteralDrills.contextWeight,
      seed: codLiteralDrills.seed,
      onProgress: ({ step, steps, loss }) => {
        if (step === 1 || step % 20 === 0 || step === steps)
          onProgress?.(
            `  copy drill step ${step}/${steps}: loss ${loss.toFixed(3)} (${((performance.now() - started) / 1000).toFixed(0)} s)`,
          );
      },
    });
    await rm(temporary, { recursive: true, force: true });
    await policy.save({ directory: temporary });
  } finally {
    await policy.close();
  }
  const manifest: CodEmbeddedManifest = {
    ...stage.manifest,
    drills: [
      // A first stage written before the stages were a list holds one object.
      ...[stage.manifest.drills ?? []].flat(),
      {
        conversations: drills.length,
        losses: {
          first: losses[0] ?? Number.NaN,
          last: losses.at(-1) ?? Number.NaN,
          steps: losses.length,
        },
        seconds: (performance.now() - started) / 1000,
      },
    ],
  };
  await writeFile(
    join(temporary, 'cod-warmstart.json'),
    `${JSON.stringify(manifest, null, 2)}\n`,
  );
  await rm(join(temporary, 'optimizer.safetensors'), { force: true });
  await rm(directory, { recursive: true, force: true });
  await rename(temporary, directory);
  return { directory, manifest };
}

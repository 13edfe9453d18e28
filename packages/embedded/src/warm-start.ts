import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import {
  copyFile,
  mkdir,
  readFile,
  readdir,
  rename,
  rm,
} from 'node:fs/promises';
import { join } from 'node:path';
import { createBfclBackend } from '@seal/bfcl';
import { createGeneratorRuntime } from '@seal/bfcl-tasks';
import {
  buildBpeTokenizer,
  createModelConfig,
  createOrtPolicy,
  numberGroupPretokenizerPattern,
  numberTokens,
} from '@seal/engine-ort';
import {
  buildCopyDrills,
  buildDemonstration,
  buildToolListDemonstrations,
  demonstrationText,
  randomSealOverlay,
  runSupervised,
  writeJsonAtomic,
  type Demonstration,
  type EvalSet,
} from '@seal/rl';
import { PyRandom } from '@seal/python';
import {
  SealError,
  parseJsonWithSchema,
  warmStartManifestFile,
  warmStartManifestSchema,
  type PolicyV1,
  type Task,
  type WarmStartManifest,
} from '@seal/spec';
import {
  embeddedEpisode,
  embeddedTasks,
  warmStartKey,
  type EmbeddedPreset,
} from './embedded-preset';

/** SHA-256 of a file, hex. */
export async function fileSha256(path: string): Promise<string> {
  return createHash('sha256')
    .update(await readFile(path))
    .digest('hex');
}

/** What a warm start's `warmstart.json` records (`@seal/spec`'s `warmStartManifestSchema`). */
export type { WarmStartManifest };

/**
 * Reads the `warmstart.json` of a warm-start directory (FILE_NOT_FOUND
 * without one, INVALID_DATA naming the field when it is not JSON or not a
 * manifest).
 */
export async function readWarmStartManifest(
  directory: string,
): Promise<WarmStartManifest> {
  const file = join(directory, warmStartManifestFile);
  if (!existsSync(file)) {
    throw new SealError({
      code: 'FILE_NOT_FOUND',
      message: `${directory} holds no warmstart.json`,
      details: { file },
    });
  }
  return parseJsonWithSchema({
    text: await readFile(file, 'utf8'),
    schema: warmStartManifestSchema,
    source: file,
  });
}

/** Copies a flat directory through a temporary sibling and a rename: a crash never leaves half a copy. */
export async function copyDirectory(from: string, to: string): Promise<void> {
  const temporary = `${to}.tmp-${process.pid}`;
  await rm(temporary, { recursive: true, force: true });
  await mkdir(temporary, { recursive: true });
  for (const name of await readdir(from))
    await copyFile(join(from, name), join(temporary, name));
  await rm(to, { recursive: true, force: true });
  await rename(temporary, to);
}

/** What {@link prepareEmbedded} produces. */
export type EmbeddedAssets = {
  /** The warm-started checkpoint (model, tokenizer), cached by config hash. */
  warmStartDirectory: string;
  /** Whether the warm start came from the cache (or the shipped base). */
  cached: boolean;
  /** Where the warm start came from. */
  source: 'cache' | 'shipped' | 'trained';
  trainTasks: Task[];
  evalSets: EvalSet[];
  /** Supervised losses (empty when cached). */
  warmupLosses: number[];
};

/** Progress of {@link prepareEmbedded}. */
export type EmbeddedProgress =
  | { type: 'phase'; phase: string }
  | {
      type: 'warmup-step';
      stage: 'drill' | 'demonstrations' | 'consolidation';
      step: number;
      steps: number;
      loss: number;
    };
/**
 * Prepares the embedded default: generated tasks, a byte-level BPE tokenizer
 * trained on demonstration conversations, a small Qwen2-style model, and its
 * supervised warm start on base-style demonstrations from the disjoint warmup
 * pool. The warm start is cached under `cacheDirectory` by config hash; a
 * run whose preset has the warm-start key of the shipped base model in
 * `shippedDirectory` copies it instead of training one.
 */
export async function prepareEmbedded({
  preset,
  cacheDirectory,
  onProgress,
  shippedDirectory,
}: {
  preset: EmbeddedPreset;
  cacheDirectory: string;
  onProgress?: (progress: EmbeddedProgress) => void;
  /**
   * A shipped base model (a warm-start directory with its `warmstart.json`),
   * used when its key matches the preset's; without it, a warm start missing
   * from the cache is trained (what `seal warmstart` does).
   */
  shippedDirectory?: string;
}): Promise<EmbeddedAssets> {
  const backend = createBfclBackend({ runtime: createGeneratorRuntime() });
  onProgress?.({ type: 'phase', phase: 'generating tasks' });
  const tasks = embeddedTasks(preset);
  const evalSets: EvalSet[] = [
    { name: 'test-id', tasks: tasks.testId },
    { name: 'test-ood', tasks: tasks.testOod },
  ];
  const warmStartDirectory = join(
    cacheDirectory,
    `warmstart-${warmStartKey(preset)}`,
  );
  if (existsSync(join(warmStartDirectory, 'model.safetensors'))) {
    return {
      warmStartDirectory,
      cached: true,
      source: 'cache',
      trainTasks: tasks.train,
      evalSets,
      warmupLosses: [],
    };
  }
  const shipped =
    shippedDirectory !== undefined &&
    existsSync(join(shippedDirectory, warmStartManifestFile))
      ? shippedDirectory
      : undefined;
  if (shipped) {
    const manifest = await readWarmStartManifest(shipped);
    if (manifest.key === warmStartKey(preset)) {
      const actual = await fileSha256(join(shipped, 'model.safetensors'));
      if (
        manifest.modelSha256 !== undefined &&
        actual !== manifest.modelSha256
      ) {
        throw new SealError({
          code: 'INVALID_DATA',
          message: `the shipped base model in ${shipped} does not match its recorded SHA-256 (${actual.slice(0, 12)}… instead of ${manifest.modelSha256.slice(0, 12)}…); restore it with git or rebuild it with seal warmstart --preset base`,
        });
      }
      onProgress?.({ type: 'phase', phase: 'using the shipped base model' });
      await mkdir(cacheDirectory, { recursive: true });
      await copyDirectory(shipped, warmStartDirectory);
      return {
        warmStartDirectory,
        cached: true,
        source: 'shipped',
        trainTasks: tasks.train,
        evalSets,
        warmupLosses: [],
      };
    }
  }
  const started = Date.now();

  const consolidation = preset.warmup.consolidation;
  if (consolidation !== undefined) {
    // The stage starts from the same preset's warm start without it (cached,
    // shipped or trained first), so only the stage itself is trained here.
    const { consolidation: _stage, ...parentWarmup } = preset.warmup;
    const parent = await prepareEmbedded({
      preset: { ...preset, warmup: parentWarmup },
      cacheDirectory,
      ...(onProgress ? { onProgress } : {}),
      ...(shippedDirectory === undefined ? {} : { shippedDirectory }),
    });
    onProgress?.({ type: 'phase', phase: 'consolidation' });
    const policy = await createOrtPolicy({
      model: { directory: parent.warmStartDirectory },
    });
    try {
      const losses = await runConsolidation({
        policy,
        warmup: tasks.warmup,
        backend,
        stage: consolidation,
        onProgress,
      });
      await saveWarmStart({
        policy,
        warmStartDirectory,
        manifest: {
          key: warmStartKey(preset),
          preset,
          drillLosses: [],
          losses,
        },
        started,
      });
    } finally {
      await policy.close();
    }
    return {
      warmStartDirectory,
      cached: false,
      source: 'trained',
      trainTasks: tasks.train,
      evalSets,
      warmupLosses: [],
    };
  }

  onProgress?.({ type: 'phase', phase: 'training the tokenizer' });
  // The tokenizer learns from demonstrations of the warmup and training
  // pools (prompts, calls, results): no test task is seen.
  const corpus = [...tasks.warmup, ...tasks.train].map((task) =>
    demonstrationText({ task, backend, ...embeddedEpisode }),
  );
  // Numbers split into groups of up to three digits, each group one token:
  // an id or amount is copied as one or two tokens (decision 0010).
  const tokenizer = buildBpeTokenizer({
    corpus,
    vocabSize: preset.model.vocabSize,
    pattern: numberGroupPretokenizerPattern,
    wholeTokens: numberTokens(3),
  });

  onProgress?.({ type: 'phase', phase: 'warm start' });
  const config = createModelConfig(preset.model);
  const policy: PolicyV1 = await createOrtPolicy({
    model: { config, seed: preset.seed },
    tokenizer,
  });
  try {
    const drill = preset.warmup.drill;
    let drillLosses: number[] = [];
    if (drill !== undefined) {
      onProgress?.({ type: 'phase', phase: 'copy drills' });
      const drills = buildCopyDrills({
        tasks: tasks.warmup,
        tokenizer: policy.tokenizer,
        repeats: drill.repeats,
        seed: preset.seed,
      });
      drillLosses = await runSupervised({
        policy,
        demonstrations: drills,
        // As many passes as the steps need; maxSteps ends the last one.
        epochs: Math.ceil((drill.steps * drill.batchSize) / drills.length),
        maxSteps: drill.steps,
        batchSize: drill.batchSize,
        learningRate: drill.learningRate,
        seed: preset.seed,
        onProgress: ({ step, steps, loss }) =>
          onProgress?.({
            type: 'warmup-step',
            stage: 'drill',
            step,
            steps,
            loss,
          }),
      });
    }
    onProgress?.({ type: 'phase', phase: 'demonstrations' });
    const demonstrations = warmupDemonstrations({
      tasks: tasks.warmup,
      tokenizer: policy.tokenizer,
      backend,
      seed: preset.seed,
      overlayShare: preset.warmup.overlayShare ?? 0,
    });
    const warmupLosses = await runSupervised({
      policy,
      demonstrations,
      epochs: preset.warmup.epochs,
      batchSize: preset.warmup.batchSize,
      learningRate: preset.warmup.learningRate,
      contextWeight: preset.warmup.contextWeight ?? 0,
      seed: preset.seed,
      onProgress: ({ step, steps, loss }) =>
        onProgress?.({
          type: 'warmup-step',
          stage: 'demonstrations',
          step,
          steps,
          loss,
        }),
    });
    await saveWarmStart({
      policy,
      warmStartDirectory,
      manifest: {
        key: warmStartKey(preset),
        preset,
        drillLosses,
        losses: warmupLosses,
      },
      started,
    });
    return {
      warmStartDirectory,
      cached: false,
      source: 'trained',
      trainTasks: tasks.train,
      evalSets,
      warmupLosses,
    };
  } finally {
    await policy.close();
  }
}

/**
 * Writes a warm start through a temporary directory and a rename (a crash
 * never leaves a half cache), without optimiser state: a warm start is
 * weights, not an optimiser run to continue, so RL starts with fresh Adam
 * moments whether the base came from the cache, the shipped copy or a
 * rebuild.
 */
async function saveWarmStart({
  policy,
  warmStartDirectory,
  manifest,
  started,
}: {
  policy: PolicyV1;
  warmStartDirectory: string;
  manifest: Omit<WarmStartManifest, 'modelSha256' | 'seconds'>;
  started: number;
}): Promise<void> {
  const temporary = `${warmStartDirectory}.tmp-${process.pid}`;
  await rm(temporary, { recursive: true, force: true });
  await mkdir(temporary, { recursive: true });
  await policy.save({ directory: temporary });
  await rm(join(temporary, 'optimizer.safetensors'), { force: true });
  await writeJsonAtomic(join(temporary, warmStartManifestFile), {
    ...manifest,
    modelSha256: await fileSha256(join(temporary, 'model.safetensors')),
    seconds: Math.round((Date.now() - started) / 1000),
  } satisfies WarmStartManifest);
  await rm(warmStartDirectory, { recursive: true, force: true });
  await rename(temporary, warmStartDirectory);
}

/**
 * The consolidation stage (decision 0042): `steps` batches drawn with
 * replacement from copy drills (a `drillShare` of the examples) and the
 * warmup pool's demonstrations (half under a random SEAL overlay), trained
 * with the warm start's supervised schedule. With a `toolListShare`, that
 * share of the examples comes first from the pool's tool-list
 * demonstrations (base first turns with the needed tools offered and
 * withheld, half under a random overlay), and `drillShare` splits the rest.
 * Seeded by the stage's own seed.
 */
async function runConsolidation({
  policy,
  warmup,
  backend,
  stage,
  onProgress,
}: {
  policy: PolicyV1;
  warmup: readonly Task[];
  backend: ReturnType<typeof createBfclBackend>;
  stage: NonNullable<EmbeddedPreset['warmup']['consolidation']>;
  onProgress?: (progress: EmbeddedProgress) => void;
}): Promise<number[]> {
  const drills = buildCopyDrills({
    tasks: warmup,
    tokenizer: policy.tokenizer,
    repeats: stage.repeats,
    seed: stage.seed,
  });
  const demonstrations = warmupDemonstrations({
    tasks: warmup,
    tokenizer: policy.tokenizer,
    backend,
    seed: stage.seed,
    overlayShare: 0.5,
  });
  const toolListShare = stage.toolListShare ?? 0;
  const toolList =
    toolListShare > 0
      ? buildToolListDemonstrations({
          tasks: warmup,
          tokenizer: policy.tokenizer,
          backend,
          seed: stage.seed,
          overlayShare: 0.5,
          ...embeddedEpisode,
          recovery: stage.toolListRecovery === true,
        })
      : [];
  const mixed = drawConsolidationExamples({
    drills,
    demonstrations,
    toolList,
    stage,
  });
  return runSupervised({
    policy,
    demonstrations: mixed,
    epochs: 1,
    maxSteps: stage.steps,
    batchSize: stage.batchSize,
    learningRate: stage.learningRate,
    contextWeight: 0.1,
    seed: stage.seed,
    onProgress: ({ step, steps, loss }) =>
      onProgress?.({
        type: 'warmup-step',
        stage: 'consolidation',
        step,
        steps,
        loss,
      }),
  });
}

/**
 * The examples of a consolidation stage, `steps × batchSize` drawn with
 * replacement (seeded by the stage's seed): a `toolListShare` of them from
 * the tool-list demonstrations, then of the rest a `drillShare` from the
 * drills and the others from the demonstrations. Without a share (absent or
 * 0) the draws are exactly the stage's before the share existed: the same
 * counts, order and random stream. `runSupervised` shuffles them.
 *
 * @internal
 */
export function drawConsolidationExamples<TExample>({
  drills,
  demonstrations,
  toolList,
  stage,
}: {
  drills: readonly TExample[];
  demonstrations: readonly TExample[];
  toolList: readonly TExample[];
  stage: Pick<
    NonNullable<EmbeddedPreset['warmup']['consolidation']>,
    'steps' | 'batchSize' | 'drillShare' | 'seed' | 'toolListShare'
  >;
}): TExample[] {
  const toolListShare = stage.toolListShare ?? 0;
  if (!(toolListShare >= 0 && toolListShare <= 1)) {
    throw new SealError({
      code: 'INVALID_ARGUMENT',
      message: `the consolidation stage's toolListShare must be between 0 and 1, got ${toolListShare}`,
    });
  }
  const total = stage.steps * stage.batchSize;
  const toolListCount = Math.round(total * toolListShare);
  if (toolListCount > 0 && toolList.length === 0) {
    throw new SealError({
      code: 'INVALID_ARGUMENT',
      message:
        'the consolidation stage asks for tool-list examples, but the warmup pool has no base task whose first turn calls a tool',
    });
  }
  const rest = total - toolListCount;
  const pick = new PyRandom(BigInt(stage.seed) + 99n);
  const drillCount = Math.round(rest * stage.drillShare);
  return [
    ...Array.from({ length: drillCount }, () => pick.choice(drills)),
    ...Array.from({ length: rest - drillCount }, () =>
      pick.choice(demonstrations),
    ),
    ...Array.from({ length: toolListCount }, () => pick.choice(toolList)),
  ];
}

/**
 * The warmup pool's demonstrations, each rendered under a random SEAL
 * training overlay with probability `overlayShare` (seeded), else under none.
 */
function warmupDemonstrations({
  tasks,
  tokenizer,
  backend,
  seed,
  overlayShare,
}: {
  tasks: readonly Task[];
  tokenizer: PolicyV1['tokenizer'];
  backend: ReturnType<typeof createBfclBackend>;
  seed: number;
  overlayShare: number;
}): Demonstration[] {
  const overlayRandom = new PyRandom(BigInt(seed) * 7919n + 17n);
  return tasks.map((task) =>
    buildDemonstration({
      task,
      tokenizer,
      backend,
      ...embeddedEpisode,
      ...(overlayShare > 0 && overlayRandom.random() < overlayShare
        ? {
            overlay: randomSealOverlay({
              tools: task.tools,
              random: overlayRandom,
            }),
          }
        : {}),
    }),
  );
}

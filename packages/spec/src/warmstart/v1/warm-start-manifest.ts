import * as z from 'zod';

/** The small Qwen2-style model a warm start trains (Hugging Face `config.json` in its own words). */
export const warmStartModelShapeSchema = z.object({
  vocabSize: z.number().int().positive(),
  hiddenSize: z.number().int().positive(),
  intermediateSize: z.number().int().positive(),
  numLayers: z.number().int().positive(),
  numHeads: z.number().int().positive(),
  numKeyValueHeads: z.number().int().positive(),
  maxPositionEmbeddings: z.number().int().positive(),
  /** Standard deviation of the initial weights (`initializer_range`; default 0.02). */
  initializerRange: z.number().positive().optional(),
});

/**
 * An embedded preset as a warm start records it: the suite (seed,
 * difficulties, task counts), the model, the supervised warm-up and the RL
 * settings of the runs that start from it. `apps/cli`'s `EmbeddedPreset`
 * documents each field.
 */
export const warmStartPresetSchema = z.object({
  name: z.string().min(1),
  seed: z.number().int(),
  model: warmStartModelShapeSchema,
  difficulties: z.array(z.enum(['easy', 'medium', 'hard'])).readonly(),
  warmup: z.object({
    tasks: z.number().int().nonnegative(),
    epochs: z.number().int().nonnegative(),
    batchSize: z.number().int().positive(),
    learningRate: z.number().nonnegative(),
    contextWeight: z.number().nonnegative().optional(),
    drill: z
      .object({
        steps: z.number().int().nonnegative(),
        batchSize: z.number().int().positive(),
        learningRate: z.number().nonnegative(),
        repeats: z.number().int().nonnegative(),
      })
      .optional(),
    missing: z.number().int().nonnegative().optional(),
    overlayShare: z.number().min(0).max(1).optional(),
    consolidation: z
      .object({
        steps: z.number().int().positive(),
        batchSize: z.number().int().positive(),
        learningRate: z.number().nonnegative(),
        drillShare: z.number().min(0).max(1),
        /** The share of the stage's examples from tool-list pairs (offered / withheld; preset `readslist`). */
        toolListShare: z.number().min(0).max(1).optional(),
        /** Tool-list demonstrations also recover from a call of the missing tool. */
        toolListRecovery: z.boolean().optional(),
        repeats: z.number().int().nonnegative(),
        seed: z.number().int(),
      })
      .optional(),
  }),
  tasks: z.object({
    train: z.number().int().nonnegative(),
    testId: z.number().int().nonnegative(),
    testOod: z.number().int().nonnegative(),
  }),
  rl: z.object({
    steps: z.number().int().positive(),
    tasksPerStep: z.number().int().positive(),
    groupSize: z.number().int().positive(),
    optimizerStepsPerStep: z.number().int().positive(),
    learningRate: z.number().nonnegative(),
    embeddingLearningRateScale: z.number().optional(),
    outputNormLearningRateScale: z.number().optional(),
    vectorLearningRateScale: z.number().optional(),
    outputNormUniform: z.boolean().optional(),
    warmupSteps: z.number().int().nonnegative().optional(),
    zeroAdvantageShare: z.number().optional(),
    progressWeight: z.number().optional(),
    turnAdvantageWeight: z.number().optional(),
    strictAbstention: z.boolean().optional(),
    maxTokens: z.number().int().positive(),
    klCoef: z.number().nonnegative(),
    evalEvery: z.number().int().nonnegative(),
    maxModelCalls: z.number().int().positive(),
    frozenBaseline: z.boolean().optional(),
    evalSamples: z.number().int().nonnegative().optional(),
    batchOrder: z.enum(['shuffle', 'stratified']).optional(),
    gapMonitor: z
      .object({
        window: z.number().optional(),
        threshold: z.number().optional(),
        learningRateFactor: z.number().optional(),
        maxRollbacks: z.number().optional(),
      })
      .optional(),
  }),
});

/** See {@link warmStartPresetSchema}. */
export type WarmStartPreset = z.infer<typeof warmStartPresetSchema>;

/**
 * A warm start's `warmstart.json` (written by `seal train` and `seal
 * warmstart` beside the model, and shipped with the base model): the cache
 * key of its recipe, the preset, the supervised losses and the SHA-256 of
 * its weights.
 */
export const warmStartManifestSchema = z.object({
  /** The cache key: a hash of everything that changes the weights. */
  key: z.string().min(1),
  preset: warmStartPresetSchema,
  /** Copy-drill losses, one per step. */
  drillLosses: z.array(z.number()).default([]),
  /** Demonstration losses, one per step. */
  losses: z.array(z.number()),
  /** SHA-256 of `model.safetensors` (recorded since the shipped base). */
  modelSha256: z.string().optional(),
  /** Seconds the warm start took to train, where recorded. */
  seconds: z.number().nonnegative().optional(),
});

/** See {@link warmStartManifestSchema}. */
export type WarmStartManifest = z.infer<typeof warmStartManifestSchema>;

/** The warm start's manifest file, beside its model. */
export const warmStartManifestFile = 'warmstart.json';

/** Greedy copy figures of a warm start on held-out turn drills. */
export const warmStartCopyFiguresSchema = z.object({
  /** Held-out turn drills tried. */
  drills: z.number().int().nonnegative(),
  /** Drills answered with exactly the ground-truth call. */
  exact: z.number().int().nonnegative(),
  /** Literal values the ground-truth calls hold. */
  literals: z.number().int().nonnegative(),
  /** Of those, how many the answer holds verbatim. */
  literalsCopied: z.number().int().nonnegative(),
});

/**
 * A warm start's `figures.json` (written by `seal warmstart`, shipped with
 * the base model): copy drills, first turns, greedy success on held-out
 * tasks per category and under each SEAL training overlay.
 */
export const warmStartFiguresSchema = z.object({
  copy: warmStartCopyFiguresSchema,
  firstTurn: warmStartCopyFiguresSchema,
  heldOut: z.record(
    z.string(),
    z.object({
      correct: z.number().int().nonnegative(),
      total: z.number().int().nonnegative(),
    }),
  ),
  overlays: z
    .record(
      z.string(),
      z.object({
        correct: z.number().int().nonnegative(),
        total: z.number().int().nonnegative(),
        won: z.number().int().nonnegative(),
        lost: z.number().int().nonnegative(),
      }),
    )
    .optional(),
});

/** See {@link warmStartFiguresSchema}. */
export type WarmStartFiguresRecord = z.infer<typeof warmStartFiguresSchema>;

/** The warm start's figures file, beside its model. */
export const warmStartFiguresFile = 'figures.json';

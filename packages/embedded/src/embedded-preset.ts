import { createHash } from 'node:crypto';
import { generateTasks, taskFamilies, taskGeneratorId } from '@seal/bfcl-tasks';
import type { TrainConfigInput, TrainMethod } from '@seal/rl';
import type { Task } from '@seal/spec';

/** A named configuration of the embedded default: model, tokenizer, data, warm start and RL sizes. */
export type EmbeddedPreset = {
  name: string;
  seed: number;
  model: {
    vocabSize: number;
    hiddenSize: number;
    intermediateSize: number;
    numLayers: number;
    numHeads: number;
    numKeyValueHeads: number;
    maxPositionEmbeddings: number;
    /**
     * Standard deviation of the initial weights (Hugging Face
     * `initializer_range`; default 0.02). Qwen2's 0.02 suits its hidden
     * sizes of 896 and up; at 160 it leaves token embeddings too small for
     * the model to learn to copy values in a short warm start (decision 0013).
     */
    initializerRange?: number;
  };
  /** Task-family difficulties the suite draws from (every split, the warmup pool included). */
  difficulties: readonly ('easy' | 'medium' | 'hard')[];
  /**
   * Warm-start demonstrations (base-style tasks of the disjoint warmup pool)
   * and supervised schedule, optionally preceded by copy drills (short
   * question → call and repeat exercises from the same pool, see
   * `buildCopyDrills`) that teach the model from scratch to copy values.
   */
  warmup: {
    tasks: number;
    epochs: number;
    batchSize: number;
    learningRate: number;
    contextWeight?: number;
    drill?: {
      steps: number;
      batchSize: number;
      learningRate: number;
      repeats: number;
    };
    /**
     * Extra demonstrations of missing-parameter and missing-function tasks
     * (half each) from the warmup pool, answered by asking for the value or
     * saying no tool fits: a base that sometimes asks and waits, so that RL
     * groups on those categories have mixed outcomes. Default 0.
     */
    missing?: number;
    /**
     * Share of demonstrations rendered under a random SEAL training overlay
     * (schema cues, notes, guidelines; the rest under none), so that the base
     * reads cues when present and works without them. Default 0.
     */
    overlayShare?: number;
    /**
     * A last supervised stage from the finished warm start, with fresh Adam
     * moments: batches drawn from copy drills (share `drillShare`) and
     * demonstrations (half under random SEAL overlays), so that the model
     * copies a turn's values when the request is asked alone as well as in
     * its episode (decision 0042). The stage starts from the warm start of
     * the same preset without it (cached or shipped), so only it is trained.
     */
    consolidation?: {
      steps: number;
      batchSize: number;
      learningRate: number;
      drillShare: number;
      repeats: number;
      seed: number;
      /**
       * Share of the stage's examples drawn from the tool-list
       * demonstrations (`buildToolListDemonstrations`, issue 44): each base
       * task's first turn with its needed tools offered (answered by the
       * calls) and withheld (answered in plain text), so that the base
       * conditions its call on the tool list. The rest split as without it
       * between drills (`drillShare`) and demonstrations. Default 0: the
       * stage draws exactly as before, and the warm-start key is unchanged.
       */
      toolListShare?: number;
      /**
       * With a `toolListShare`: the tool-list demonstrations also hold each
       * withheld turn recovered from a call of the missing tool (the call,
       * its `not available` error, then the plain-text reply; only the reply
       * trained), so that a model that calls a missing tool stops instead of
       * retrying. Default false: the keys of the stages before it stay.
       */
      toolListRecovery?: boolean;
    };
  };
  /** Generated task counts per split (split evenly over the four categories). */
  tasks: { train: number; testId: number; testOod: number };
  rl: {
    steps: number;
    tasksPerStep: number;
    groupSize: number;
    optimizerStepsPerStep: number;
    learningRate: number;
    /** Learning-rate multiplier of the token embeddings in RL (0 freezes them; default 1). */
    embeddingLearningRateScale?: number;
    /** Learning-rate multiplier of the final norm's gain, the policy's inverse temperature (`ppo.outputNormLearningRateScale`; default 1). */
    outputNormLearningRateScale?: number;
    /** Learning-rate multiplier of the other norm gains and the attention biases (`ppo.vectorLearningRateScale`; default 1). */
    vectorLearningRateScale?: number;
    /** The final norm's gain learns only as a whole, one logit scale (`ppo.outputNormUniform`; default false). */
    outputNormUniform?: boolean;
    /** Linear learning-rate warm-up over the first N RL steps (`ppo.warmupSteps`; default 0). */
    warmupSteps?: number;
    /** The share of zero-advantage rollouts in each update, weighted by its inverse (`ppo.zeroAdvantageShare`; default 1, all). */
    zeroAdvantageShare?: number;
    /** Weight of the dense per-turn progress reward beside the binary verdict (`progressWeight`; default 0). */
    progressWeight?: number;
    /** Weight of turn-level credit beside the episode's advantage (`turnAdvantageWeight`; default 0). */
    turnAdvantageWeight?: number;
    /** Fail the training reward of an episode that calls a tool where the ground truth is empty (`strictAbstention`; default false). */
    strictAbstention?: boolean;
    maxTokens: number;
    klCoef: number;
    evalEvery: number;
    maxModelCalls: number;
    /**
     * Roll out the frozen warm start beside the policy on every step's tasks
     * (`frozenBaseline`): the run then shows what RL gained on the same
     * tasks, which the step-to-step success rate cannot (decision 0015).
     */
    frozenBaseline?: boolean;
    /** Sampled pass@1 samples per evaluation task beside greedy (`evalSamples`); 0 or absent: greedy only. */
    evalSamples?: number;
    /** How each epoch's tasks are ordered into steps (default: shuffle, as in the papers). */
    batchOrder?: 'shuffle' | 'stratified';
    /** The task mix: a weight per category, unnamed categories not trained on (`taskMix`; default: every task, by `batchOrder`). */
    taskMix?: Record<string, number>;
    /** The gap monitor (needs the frozen baseline). */
    gapMonitor?: {
      window?: number;
      threshold?: number;
      learningRateFactor?: number;
      maxRollbacks?: number;
    };
  };
};

/** The default's model shape (Qwen2-style: 4 layers, hidden size 160, grouped-query attention). */
const defaultModelShape = {
  vocabSize: 2048,
  hiddenSize: 160,
  intermediateSize: 448,
  numLayers: 4,
  numHeads: 4,
  numKeyValueHeads: 2,
  maxPositionEmbeddings: 1024,
};

/**
 * The recipe of the shipped base model (`base`, and the warm start of
 * `default`, `extended` and `study`): 1,000 copy-drill steps, then 6,000
 * base demonstrations and 1,500 missing-value/missing-tool demonstrations,
 * half of them under random SEAL overlays. About 40 minutes on 2 cores; it
 * ships in apps/cli/assets/base, so runs start from it (decision 0019).
 */
const baseWarmup: EmbeddedPreset['warmup'] = {
  tasks: 6000,
  epochs: 1,
  batchSize: 8,
  learningRate: 2e-3,
  contextWeight: 0.1,
  drill: { steps: 1000, batchSize: 32, learningRate: 2e-3, repeats: 8000 },
  missing: 1500,
  overlayShare: 0.5,
};

/**
 * The embedded presets. `default` starts from the shipped base model and
 * spends `seal train`'s 15 minutes on 2 CPU cores on RL; `smoke` trains its
 * own tiny warm start and runs within a minute (a plumbing check: it learns
 * little); `base` names the base model's recipe (`seal warmstart`);
 * `extended` runs RL longer with the frozen baseline and the gap monitor;
 * `study` is the learning study's preset (larger test sets, 32 steps of
 * 64 episodes). All use the same code.
 */
const defaultPreset: EmbeddedPreset = {
  name: 'default',
  seed: 1,
  model: { ...defaultModelShape, initializerRange: 0.05 },
  difficulties: ['easy', 'medium'],
  warmup: baseWarmup,
  tasks: { train: 400, testId: 64, testOod: 32 },
  rl: {
    // Decision 0031: from base v6, 14 steps lose greedy success on every one
    // of 12 seeds (−7.4 points on average); 40 steps recover most of it and
    // gain sampled pass@1 (seeds 1–4: +3.3 [+0.0, +6.5]). About 12 minutes.
    steps: 40,
    tasksPerStep: 8,
    groupSize: 8,
    optimizerStepsPerStep: 2,
    // Decision 0023: from the shipped base, 3e-4's first Adam step moves the
    // policy 0.97 nats per token from the base and loses held-out success;
    // 1e-4 stays near it (step-1 KL 0.013) and gains on the same tasks.
    learningRate: 1e-4,
    maxTokens: 96,
    // Decision 0020: at 0.001 the reply tokens no reward constrains drift (the
    // chat template's control tokens appear in replies) and miss_param
    // collapses; 0.05 keeps the policy near the base.
    klCoef: 0.05,
    // Decision 0036: BFCL's irrelevance check in the training reward, so an
    // invented call in a turn that should ask earns nothing. Over seeds 1–4,
    // paired with the lenient reward: +2.5 [−1.0, +6.2] points of test-id
    // sampled pass@1, higher on every seed, miss_param greedy +9.4.
    strictAbstention: true,
    // Decision 0038: the final norm's gain learns as one logit scale, at
    // 100 × the rate. At the plain rate Adam moves it by 0.1% over the run,
    // so RL could not sharpen the policy; sampled from the warm start at
    // temperature 1, test-id succeeds 20 points less often than greedy.
    outputNormUniform: true,
    outputNormLearningRateScale: 100,
    // Steps 14 and 28 as well as the last: the curve, for 2 × 40 s.
    evalEvery: 14,
    maxModelCalls: 14,
    frozenBaseline: false,
    evalSamples: 4,
  },
};

// The study of record ran before decisions 0036 and 0038: lenient reward, no
// learned logit scale.
const {
  strictAbstention: _strict,
  outputNormUniform: _uniform,
  outputNormLearningRateScale: _outputNormRate,
  ...lenientRl
} = defaultPreset.rl;

/**
 * The consolidated base (decision 0042): the shipped base's recipe, then 400
 * mixed steps of copy drills and demonstrations. It copies on held-out turn
 * drills asked alone (92.5% exact calls, 97.2% of literals; the shipped base
 * 40% / 48%) at the same held-out success. Not the default's warm start until
 * RL from it is measured over seeds.
 */
const consolidationStage = {
  steps: 400,
  batchSize: 16,
  learningRate: 1e-3,
  drillShare: 0.5,
  repeats: 4000,
  seed: 7,
};
const consolidatedWarmup: EmbeddedPreset['warmup'] = {
  ...baseWarmup,
  consolidation: consolidationStage,
};

/**
 * The consolidated base taught to read its tool list (issue 44, report
 * 0043: the shipped base calls a tool missing from its list in 30 of 32
 * held-out base first turns): the consolidation stage with a quarter of its
 * examples from contrastive first turns, the needed tool offered (call it)
 * or withheld (reply in text). Not the default's warm start until the probe
 * and RL from it are measured.
 */
const readsListWarmup: EmbeddedPreset['warmup'] = {
  ...baseWarmup,
  consolidation: { ...consolidationStage, toolListShare: 0.25 },
};

/**
 * The readslist base that also recovers (issue 44, report 0044): its
 * tool-list demonstrations add each withheld turn in which the missing tool
 * is called anyway, the error comes back and the model replies in plain
 * text (only the reply trained). A miss_func task is lost by the retry loop
 * after that error, not by the call; one build from the shipped base fails
 * none of the held-out miss_func tasks at the context limit (10 of 13 for
 * the shipped base). Not the default's warm start until RL from it is
 * measured over seeds.
 */
const recoversWarmup: EmbeddedPreset['warmup'] = {
  ...baseWarmup,
  consolidation: {
    ...consolidationStage,
    toolListShare: 0.25,
    toolListRecovery: true,
  },
};

/** The embedded presets' names, the values `--preset` takes (`base` only where a base is built). */
export const embeddedPresetNames = [
  'base',
  'default',
  'smoke',
  'study',
  'extended',
  'consolidated',
  'readslist',
  'recovers',
] as const;

export const embeddedPresets: Record<
  (typeof embeddedPresetNames)[number],
  EmbeddedPreset
> = {
  default: defaultPreset,
  smoke: {
    name: 'smoke',
    seed: 1,
    model: {
      vocabSize: 1536,
      hiddenSize: 96,
      intermediateSize: 256,
      numLayers: 2,
      numHeads: 4,
      numKeyValueHeads: 2,
      maxPositionEmbeddings: 1024,
      initializerRange: 0.05,
    },
    difficulties: ['easy', 'medium'],
    warmup: {
      tasks: 64,
      epochs: 2,
      batchSize: 16,
      learningRate: 3e-3,
      contextWeight: 0.1,
      drill: { steps: 16, batchSize: 16, learningRate: 3e-3, repeats: 64 },
    },
    tasks: { train: 400, testId: 16, testOod: 16 },
    rl: {
      steps: 2,
      tasksPerStep: 4,
      groupSize: 2,
      optimizerStepsPerStep: 1,
      learningRate: 2e-5,
      maxTokens: 32,
      klCoef: 0.001,
      evalEvery: 2,
      maxModelCalls: 10,
      frozenBaseline: true,
    },
  },
  base: { ...defaultPreset, name: 'base' },
  consolidated: {
    ...defaultPreset,
    name: 'consolidated',
    warmup: consolidatedWarmup,
  },
  readslist: {
    ...defaultPreset,
    name: 'readslist',
    warmup: readsListWarmup,
  },
  recovers: {
    ...defaultPreset,
    name: 'recovers',
    warmup: recoversWarmup,
  },
  extended: {
    ...defaultPreset,
    name: 'extended',
    rl: {
      ...defaultPreset.rl,
      steps: 48,
      evalEvery: 16,
      frozenBaseline: true,
      gapMonitor: {},
    },
  },
  study: {
    ...defaultPreset,
    name: 'study',
    tasks: { train: 400, testId: 192, testOod: 192 },
    // 2,048 episodes a run; evaluations at 0 (shared by a seed's arms), 11, 22
    // and 32: four points, three of them run per arm (decision 0032).
    // The lenient reward the study of record ran with (decision 0036 made the
    // default strict after it): the setting is left out, as it was then, so
    // the archive's recorded setup still matches and resumes.
    rl: { ...lenientRl, steps: 32, evalEvery: 11 },
  },
};

/** The protocol and prompt mode of the embedded suite (compact prompts for a small model). */
export const embeddedEpisode = {
  protocol: 'bfcl-python',
  promptMode: 'compact',
} as const;

/** The RL configuration of an embedded run (what `seal train` and the benchmarks use). */
export function embeddedTrainConfig({
  preset,
  method,
  steps,
  temperature = 1,
  seed = preset.seed,
}: {
  preset: EmbeddedPreset;
  method: TrainMethod;
  steps?: number;
  temperature?: number;
  /** The RL seed (default: the preset's); the tasks and warm start stay the preset's. */
  seed?: number;
}): TrainConfigInput {
  return {
    runId: `${preset.name}-${method}-s${seed}`,
    seed,
    initialPolicy: `warmstart-${warmStartKey(preset)}`,
    method,
    steps: steps ?? preset.rl.steps,
    tasksPerStep: preset.rl.tasksPerStep,
    ...(preset.rl.batchOrder === undefined
      ? {}
      : { batchOrder: preset.rl.batchOrder }),
    ...(preset.rl.taskMix === undefined ? {} : { taskMix: preset.rl.taskMix }),
    groupSize: preset.rl.groupSize,
    optimizerStepsPerStep: preset.rl.optimizerStepsPerStep,
    sampling: { maxTokens: preset.rl.maxTokens, temperature },
    episode: { ...embeddedEpisode, maxModelCalls: preset.rl.maxModelCalls },
    ppo: {
      learningRate: preset.rl.learningRate,
      klCoef: preset.rl.klCoef,
      ...(preset.rl.embeddingLearningRateScale === undefined
        ? {}
        : { embeddingLearningRateScale: preset.rl.embeddingLearningRateScale }),
      ...(preset.rl.outputNormLearningRateScale === undefined
        ? {}
        : {
            outputNormLearningRateScale: preset.rl.outputNormLearningRateScale,
          }),
      ...(preset.rl.vectorLearningRateScale === undefined
        ? {}
        : { vectorLearningRateScale: preset.rl.vectorLearningRateScale }),
      ...(preset.rl.outputNormUniform === undefined
        ? {}
        : { outputNormUniform: preset.rl.outputNormUniform }),
      ...(preset.rl.warmupSteps === undefined
        ? {}
        : { warmupSteps: preset.rl.warmupSteps }),
      ...(preset.rl.zeroAdvantageShare === undefined
        ? {}
        : { zeroAdvantageShare: preset.rl.zeroAdvantageShare }),
    },
    evalEvery: preset.rl.evalEvery,
    ...(preset.rl.progressWeight === undefined
      ? {}
      : { progressWeight: preset.rl.progressWeight }),
    ...(preset.rl.turnAdvantageWeight === undefined
      ? {}
      : { turnAdvantageWeight: preset.rl.turnAdvantageWeight }),
    ...(preset.rl.strictAbstention === undefined
      ? {}
      : { strictAbstention: preset.rl.strictAbstention }),
    frozenBaseline: preset.rl.frozenBaseline ?? false,
    evalSamples: preset.rl.evalSamples ?? 0,
    ...(preset.rl.gapMonitor && preset.rl.frozenBaseline
      ? { gapMonitor: preset.rl.gapMonitor }
      : {}),
    checkpointEvery: 1,
  };
}

/** The cache key of a warm start: everything that changes its weights. */
export function warmStartKey(preset: EmbeddedPreset): string {
  const identity = JSON.stringify({
    v: 6,
    generator: taskGeneratorId,
    seed: preset.seed,
    difficulties: preset.difficulties,
    model: preset.model,
    warmup: warmupIdentity(preset.warmup),
    episode: embeddedEpisode,
  });
  return createHash('sha256').update(identity).digest('hex').slice(0, 16);
}

/**
 * The warm-up settings as the cache key hashes them: a consolidation stage's
 * `toolListShare` of 0 and `toolListRecovery` of false train the same
 * weights as none, so they are left out and the keys of the presets before
 * them (the shipped base's among them) stay valid.
 */
function warmupIdentity(
  warmup: EmbeddedPreset['warmup'],
): EmbeddedPreset['warmup'] {
  if (warmup.consolidation === undefined) return warmup;
  const { toolListShare, toolListRecovery, ...consolidation } =
    warmup.consolidation;
  return {
    ...warmup,
    consolidation: {
      ...consolidation,
      ...(toolListShare === undefined || toolListShare === 0
        ? {}
        : { toolListShare }),
      ...(toolListRecovery === true ? { toolListRecovery } : {}),
    },
  };
}

/**
 * Generates the embedded suite's tasks (deterministic for the preset's
 * seed). The warmup pool (thousands of tasks) is drawn on first use only: a
 * run that starts from a cached or shipped warm start never needs it.
 */
export function embeddedTasks(preset: EmbeddedPreset): {
  readonly warmup: Task[];
  train: Task[];
  testId: Task[];
  testOod: Task[];
} {
  const families = taskFamilies
    .filter((family) => preset.difficulties.includes(family.difficulty))
    .map((family) => family.id);
  const missing = preset.warmup.missing ?? 0;
  let warmup: Task[] | undefined;
  return {
    get warmup(): Task[] {
      warmup ??= [
        ...generateTasks({
          seed: preset.seed,
          split: 'warmup',
          count: preset.warmup.tasks,
          families,
        }),
        ...(missing > 0
          ? generateTasks({
              seed: preset.seed,
              split: 'warmup',
              count: missing,
              families,
              variants: ['multi_turn_miss_param', 'multi_turn_miss_func'],
            })
          : []),
      ];
      return warmup;
    },
    train: generateTasks({
      seed: preset.seed,
      split: 'train',
      count: preset.tasks.train,
      families,
    }),
    testId: generateTasks({
      seed: preset.seed,
      split: 'test-id',
      count: preset.tasks.testId,
      families,
    }),
    testOod: generateTasks({
      seed: preset.seed,
      split: 'test-ood',
      count: preset.tasks.testOod,
      families,
    }),
  };
}

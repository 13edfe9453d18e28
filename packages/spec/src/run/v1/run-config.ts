import * as z from 'zod';
import {
  overlayModuleNames,
  overlayModuleSchema,
} from '../../overlay/v1/overlay-module';
import { promptModeSchema } from '../../prompt/v1/prompt-mode';

/*
 * A run directory's `config.json`: the resolved configuration of a training
 * run, written by `@seal/rl`'s `runTraining` and read back on resume, by
 * `seal eval`'s model hints and by `@seal/report`.
 */

/**
 * Settings of the gap monitor: with the frozen baseline on, the run watches
 * the policy's paired gain over the frozen warm start (same tasks, same
 * sampling seeds) and rolls back to its best weights when the gain, averaged
 * over a window of steps, falls below a threshold.
 */
export const gapMonitorSettingsSchema = z
  .object({
    /** Steps the gain is averaged over (the trailing window). */
    window: z.number().int().min(1).max(1000).default(4),
    /** Roll back when the window's mean gain (a fraction, e.g. -0.05 for −5 points) falls below this. */
    threshold: z.number().min(-1).max(1).default(-0.05),
    /** The learning rate is multiplied by this at each rollback. */
    learningRateFactor: z.number().gt(0).lte(1).default(0.5),
    /** At most this many rollbacks in a run (then the monitor only records). */
    maxRollbacks: z.number().int().nonnegative().default(3),
  })
  .strict();

/** See {@link gapMonitorSettingsSchema}. */
export type GapMonitorSettings = z.output<typeof gapMonitorSettingsSchema>;

/**
 * DAPO's dynamic sampling: a group (one task's rollouts) that carries no
 * gradient (its rewards all equal and, under turn-level credit, each turn's
 * verdicts too) is left out of the update and replaced by a fresh group,
 * drawn from a seeded order of further training tasks, until the step holds
 * as many groups that carry gradient as it scheduled. At most
 * `maxRefillRounds` rounds of draws; then the step trains on what it has.
 */
export const dynamicSamplingSettingsSchema = z.strictObject({
  /** Off: every group trains, as without the setting. */
  enabled: z.boolean().default(true),
  /**
   * Rounds of fresh draws per step (each draws one task per group still
   * missing). 0: groups without gradient are dropped and not replaced.
   */
  maxRefillRounds: z.number().int().min(0).max(16).default(3),
});

/** The written form of {@link dynamicSamplingSettingsSchema}. */
export type DynamicSamplingSettingsInput = z.input<
  typeof dynamicSamplingSettingsSchema
>;
/** The resolved form. */
export type DynamicSamplingSettings = z.output<
  typeof dynamicSamplingSettingsSchema
>;

/** The training methods: SEAL, vanilla GRPO, SEAL's single-sided ablations, and Environment Tuning. */
export const trainMethodSchema = z.enum([
  'seal',
  'grpo',
  'no-env',
  'no-reweight',
  'no-loop',
  'envtuning',
]);
/** See {@link trainMethodSchema}. */
export type TrainMethod = z.infer<typeof trainMethodSchema>;

/** How a run samples its rollouts. */
export const samplingSettingsSchema = z.object({
  /** Tokens per model response. */
  maxTokens: z.number().int().positive().default(64),
  /**
   * Sampling temperature (SEAL trains at 1.0 and evaluates greedily). The
   * PPO ratio and KL use log-probabilities at this temperature too (1 when 0).
   */
  temperature: z.number().nonnegative().default(1),
  topP: z.number().gt(0).lte(1).default(1),
  topK: z.number().int().nonnegative().default(0),
});

/**
 * Environment Tuning's curriculum (method `envtuning` only; other methods
 * ignore it): a validation split carved out of the training tasks and
 * evaluated greedily on the standard interface, the plateau rule on its
 * score, a step budget per stage as the fallback, and the per-turn attempt
 * cap. The defaults take the embedded default (12 steps) through all four
 * stages: an `auto` budget of 3 steps per stage.
 */
export const curriculumSettingsSchema = z.strictObject({
  /** Training tasks set aside as the validation split (never trained on). */
  validationTasks: z.number().int().min(1).max(10_000).default(16),
  /** Validate every N steps (and before the first). */
  validateEvery: z.number().int().min(1).max(10_000).default(1),
  /** Validations without a new best (by more than `minDelta`) that end a stage. */
  patience: z.number().int().min(1).max(1_000).default(2),
  /** The validation gain (a share of tasks, 0–1) that counts as progress. */
  minDelta: z.number().min(0).max(1).default(0.01),
  /** Validations a stage gets before a plateau can end it (the score it was entered with counts). */
  minEvaluations: z.number().int().min(1).max(1_000).default(3),
  /**
   * Training steps a stage gets at most (the last stage never ends), or
   * `auto`: the run's steps split evenly over the stages (at least 1).
   */
  maxStepsPerStage: z
    .union([z.literal('auto'), z.number().int().min(1).max(1_000_000)], {
      error: "expected 'auto' or a whole number of steps from 1 to 1000000",
    })
    .default('auto'),
  /** Actions per turn before the environment moves on to the next turn (Environment Tuning: 5). */
  maxAttemptsPerTurn: z.number().int().min(1).max(100).default(5),
});

/** The written form of {@link curriculumSettingsSchema}. */
export type CurriculumSettingsInput = z.input<typeof curriculumSettingsSchema>;
/** The resolved form. */
export type CurriculumSettings = z.output<typeof curriculumSettingsSchema>;

/**
 * The resolved configuration of a training run (written to the run directory
 * as `config.json`). Defaults follow SEAL's Table 4 where they make sense at
 * this scale; the embedded presets override sizes.
 */
export const runConfigSchema = z
  .object({
    schemaVersion: z.literal(1).default(1),
    /** Names the run (and its directory). */
    runId: z.string().min(1),
    /** Every random choice derives from it. */
    seed: z.number().int().default(0),
    /**
     * Names the weights the run starts from (a warm-start key, a model
     * directory). A run resumes only with the same value, so a checkpoint is
     * never continued from other starting weights.
     */
    initialPolicy: z.string().optional(),
    method: trainMethodSchema.default('seal'),
    /** Training steps (each: one batch of rollouts and one policy update). */
    steps: z.number().int().positive(),
    /** Tasks per step (SEAL: 32). */
    tasksPerStep: z.number().int().positive().default(32),
    /**
     * How an epoch's tasks are ordered into steps. `shuffle` (the papers'
     * data loader): one seeded shuffle of the pool. `stratified`: each
     * category shuffled on its own, then dealt one per category in turn, so
     * every step holds the categories in the pool's proportions (exactly, when
     * they are equal and `tasksPerStep` is a multiple of their number). The
     * expected update is the same; its variance between steps is lower.
     */
    batchOrder: z.enum(['shuffle', 'stratified']).default('shuffle'),
    /**
     * The task mix: a weight per task category (a category left out weighs
     * 0 and is not trained on). Set, it replaces `batchOrder`: every step's
     * tasks are dealt by category in the weights' proportions (smooth
     * weighted round robin, the same positions every step), each category's
     * tasks from its own seeded shuffle, reshuffled when spent, never twice
     * in one step. Unset: every task of the pool, ordered by `batchOrder`.
     */
    taskMix: z
      .record(z.string().min(1), z.number().nonnegative().finite())
      .refine((mix) => Object.values(mix).some((weight) => weight > 0), {
        message: 'taskMix needs at least one category with a positive weight',
      })
      .optional(),
    /** Rollouts per task, GRPO's n (SEAL: 8). */
    groupSize: z.number().int().min(1).default(8),
    /** Optimizer steps per training step; the batch is split into that many mini-batches (SEAL: 4). */
    optimizerStepsPerStep: z.number().int().positive().default(4),
    sampling: samplingSettingsSchema.default({
      maxTokens: 64,
      temperature: 1,
      topP: 1,
      topK: 0,
    }),
    episode: z
      .object({
        /** Tool-call protocol. */
        protocol: z
          .enum(['qwen-xml', 'bfcl-python', 'openai-tools', 'envtuning'])
          .default('qwen-xml'),
        /** How tools are rendered. */
        promptMode: promptModeSchema.default('full'),
        /** Model calls per episode (SEAL: 20). */
        maxModelCalls: z.number().int().positive().default(20),
        /** BFCL's per-turn step limit, when wanted. */
        maxStepsPerTurn: z.number().int().positive().optional(),
        /** Clip each observation to this many (estimated) tokens. */
        maxObservationTokens: z.number().int().positive().optional(),
      })
      .default({ protocol: 'qwen-xml', promptMode: 'full', maxModelCalls: 20 }),
    ppo: z
      .object({
        /** 0 freezes the policy: a control run with the same rollouts, verdicts and bookkeeping. */
        learningRate: z.number().nonnegative().default(1e-6),
        clipLow: z.number().nonnegative().default(0.2),
        clipHigh: z.number().nonnegative().default(0.2),
        dualClipC: z.number().gt(1).default(10),
        /** Low-variance KL coefficient (SEAL: 0.001); needs a reference policy when > 0. */
        klCoef: z.number().nonnegative().default(0.001),
        maxGradNorm: z.number().positive().default(1),
        weightDecay: z.number().nonnegative().default(0.01),
        /**
         * Learning-rate multiplier of the token-embedding matrix (tied to the
         * output head in the embedded model). 0 freezes it, so that RL's noisy
         * advantages cannot move the rows the model copies values through.
         */
        embeddingLearningRateScale: z.number().min(0).max(1).default(1),
        /**
         * Learning-rate multiplier of the final norm's gain, the policy's
         * inverse temperature (decision 0038). Adam moves a weight by about the
         * learning rate per step, so at 1e-4 a gain near 1.7 would need
         * thousands of steps to sharpen the policy by a tenth; 1 keeps the
         * plain rate.
         */
        outputNormLearningRateScale: z.number().min(0).max(10000).default(1),
        /**
         * Learning-rate multiplier of the other vectors: the layers' norm
         * gains and the attention biases. With a small `learningRate`, the
         * update lives in that low-dimensional subspace (decision 0040).
         */
        vectorLearningRateScale: z.number().min(0).max(10000).default(1),
        /**
         * Learning-rate multiplier of the weight matrices. 0 with the
         * embeddings and vectors frozen leaves only the final norm's gain to
         * learn: temperature-only RL, the control arm that any claim of
         * learning must beat (issue 44). Absent: 1.
         */
        matrixLearningRateScale: z.number().min(0).max(1).optional(),
        /**
         * The final norm's gain moves only as a whole, as one learned logit
         * scale, stepped multiplicatively (decision 0038).
         */
        outputNormUniform: z.boolean().default(false),
        /** Passes over each step's rollouts (PPO epochs; SEAL: 1). */
        epochs: z.number().int().min(1).max(16).default(1),
        /**
         * Linear learning-rate warm-up over the first N training steps (step k
         * uses k/N of the rate). Adam's first steps from fresh moments move
         * every weight by about the full rate whatever the gradient's size, which
         * is harmless from a random start and destructive from a trained base
         * (decision 0023). 0: no warm-up.
         */
        warmupSteps: z.number().int().min(0).max(1_000_000).default(0),
        /**
         * Where PPO's old log-probabilities come from. `rollout`: the ones the
         * rollouts were sampled with (the behaviour policy's, at the sampling
         * temperature; the same weights as the update's first pass). `rescore`:
         * a score pass over every sequence before the update (as verl does,
         * whose sampler is a different engine). `auto` (the default): `rollout`
         * when sampling is untruncated (top-p 1, top-k 0, temperature > 0), where
         * the two agree to float rounding and the score pass is saved;
         * `rescore` otherwise, because truncated sampling reports the
         * log-probabilities of the truncated distribution.
         */
        oldLogprobs: z.enum(['auto', 'rollout', 'rescore']).default('auto'),
        /**
         * Truncated importance sampling (TIS; Yao et al. 2025, "Your
         * efficient RL framework secretly brings you off-policy RL
         * training"), for rollouts sampled by another engine (`seal train
         * --sampler-url`): the old log-probabilities are the trainer's (a
         * score pass, whatever `oldLogprobs` says), and each generated
         * token's loss weight is multiplied by `min(exp(old - sampler), cap)`,
         * the trainer-to-sampler probability ratio truncated at this cap
         * (verl's and the paper's default: 2). Absent: off (the rollouts
         * come from the trainer itself).
         */
        truncatedImportanceSamplingCap: z.number().min(1).max(1000).optional(),
        /**
         * The share of zero-advantage rollouts that go into the update. Such a
         * rollout moves the policy only through the KL term, yet costs a
         * reference score and a forward and backward pass like any other (41–52%
         * of a study run's rollouts). Each is kept with this probability and
         * weighted by its inverse, so the KL term's expected gradient is the
         * whole batch's (an unbiased estimate with more variance). 1 (the
         * default) keeps them all, as before. With `klCoef` 0 they carry no
         * gradient and are left out whatever this share.
         */
        zeroAdvantageShare: z
          .number()
          .gt(0, { message: 'zeroAdvantageShare must be in (0, 1]' })
          .max(1, { message: 'zeroAdvantageShare must be in (0, 1]' })
          .default(1),
      })
      .default({
        learningRate: 1e-6,
        clipLow: 0.2,
        clipHigh: 0.2,
        dualClipC: 10,
        klCoef: 0.001,
        maxGradNorm: 1,
        weightDecay: 0.01,
        embeddingLearningRateScale: 1,
        outputNormLearningRateScale: 1,
        vectorLearningRateScale: 1,
        outputNormUniform: false,
        epochs: 1,
        warmupSteps: 0,
        oldLogprobs: 'auto',
        zeroAdvantageShare: 1,
      }),
    /**
     * SEAL's interface modules switched on in training (`schema` φ_schema,
     * `err` φ_err, `cap` φ_cap), for methods with environment-side adaptation
     * (seal, no-reweight, no-loop). Absent: SEAL's headline configuration,
     * φ_schema alone. An empty list switches the interface off: the training
     * prompt is then the untouched one, byte for byte.
     */
    overlays: z
      .array(overlayModuleSchema, {
        error: `overlays: each module is one of ${overlayModuleNames.map((name) => `'${name}'`).join(', ')}`,
      })
      .refine((modules) => new Set(modules).size === modules.length, {
        message: 'overlays: a module is named twice',
      })
      .optional(),
    /**
     * Weight of the dense per-turn progress reward (the share of turns the
     * verifier passes, as SEAL's dense grader and Environment Tuning use)
     * added to the binary task verdict: reward = binary + w · progress. 0 (the
     * default): the binary verdict alone. Environment Tuning's stages set
     * their own reward. Success rates always count the binary verdict.
     */
    progressWeight: z.number().min(0).max(10).default(0),
    /**
     * The training reward also applies BFCL's irrelevance check, which BFCL's
     * runner leaves commented out: an episode that calls a tool in a turn whose
     * ground truth is empty (a missing parameter or a missing function: SEAL's
     * `spurious_tool_call`) earns 0 even where BFCL's verdict passes it, as it
     * does when the invented call happens to leave the state unchanged.
     * Evaluation and the reported success rates keep BFCL's verdict. Default
     * false: the reward is BFCL's verdict, as in the papers (decision 0030).
     */
    strictAbstention: z.boolean().default(false),
    /**
     * Turn-level credit beside the episode's: each generated token's advantage
     * is the episode's GRPO advantage (after A-Patch) plus w times its turn's
     * advantage, the turn verdict (passed or correctly abstained: 1, else 0)
     * normalised over the group's rollouts at the same turn. A turn the group
     * all passed or all failed adds nothing. So an invented call in a turn
     * that should ask is pushed down even in an episode that passes, and a
     * turn done right is pushed up in a group whose episodes all fail. 0 (the
     * default): the episode's advantage alone, as in the papers.
     */
    turnAdvantageWeight: z.number().min(0).max(10).default(0),
    /**
     * DAPO's dynamic sampling (see {@link dynamicSamplingSettingsSchema}).
     * `false` (the default): off, every group trains. `true`, the earlier
     * form: groups whose rewards are all equal are dropped and not replaced
     * (`maxRefillRounds` 0). The settings object refills the step's batch
     * with fresh groups.
     */
    dynamicSampling: z
      .union([z.boolean(), dynamicSamplingSettingsSchema], {
        error:
          'dynamicSampling: expected true, false or { enabled, maxRefillRounds }',
      })
      .default(false),
    /**
     * Also roll out the frozen reference policy on each step's tasks, with the
     * same interface and sampling seeds, and record its success beside the
     * policy's (`TrainStepEvent.baseline`). Not trained on: a control that
     * separates what the policy learned from how hard the step's tasks are.
     * Needs a reference policy; costs about half again a step's generation.
     */
    frozenBaseline: z.boolean().default(false),
    /**
     * The gap monitor (needs `frozenBaseline`): when the policy's paired gain
     * over the frozen warm start, averaged over a window of steps, falls below
     * a threshold, the run restores its best weights and lowers the learning
     * rate. Absent: off.
     */
    gapMonitor: gapMonitorSettingsSchema.optional(),
    /**
     * Besides the greedy evaluation, sample each evaluation task this many
     * times at temperature 1 (sampled pass@1, `EvalEvent.sampled`). 0: greedy only.
     */
    evalSamples: z.number().int().nonnegative().max(64).default(0),
    /** Evaluate every N steps (and before training and at the end). 0 disables periodic evaluation. */
    evalEvery: z.number().int().nonnegative().default(10),
    /** Checkpoint every N steps (and at the end). */
    checkpointEvery: z.number().int().positive().default(1),
    /** Episode records of training steps are kept (`episodes/step-N.jsonl`). */
    keepEpisodes: z.boolean().default(true),
    /** Environment Tuning's curriculum (see {@link curriculumSettingsSchema}). */
    curriculum: curriculumSettingsSchema.prefault({}),
  })
  .superRefine((config, context) => {
    const { temperature, topP, topK } = config.sampling;
    if (
      config.ppo.oldLogprobs === 'rollout' &&
      config.ppo.truncatedImportanceSamplingCap !== undefined
    ) {
      context.addIssue({
        code: 'custom',
        path: ['ppo', 'oldLogprobs'],
        message:
          "ppo.oldLogprobs 'rollout' contradicts ppo.truncatedImportanceSamplingCap: truncated importance sampling takes the old log-probabilities from the trainer (use 'rescore' or 'auto')",
      });
    }
    if (
      config.ppo.oldLogprobs === 'rollout' &&
      !(temperature > 0 && topP === 1 && topK === 0)
    ) {
      context.addIssue({
        code: 'custom',
        path: ['ppo', 'oldLogprobs'],
        message: `ppo.oldLogprobs 'rollout' needs untruncated sampling at a temperature above 0 (got temperature ${temperature}, topP ${topP}, topK ${topK}); use 'rescore' or 'auto'`,
      });
    }
  });

/** The written form of {@link runConfigSchema}. */
export type RunConfigInput = z.input<typeof runConfigSchema>;
/** The resolved form. */
export type RunConfig = z.output<typeof runConfigSchema>;

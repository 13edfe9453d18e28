import { rm } from 'node:fs/promises';
import { basename, join, resolve } from 'node:path';
import {
  bfclTasks,
  createBfclBackend,
  loadBfclData,
  resolveBfclDataDir,
  type BfclRuntimeData,
} from '@seal/bfcl';
import { createGeneratorRuntime } from '@seal/bfcl-tasks';
import {
  embeddedPresetNames,
  embeddedPresets,
  embeddedTasks,
  embeddedTrainConfig,
  readPolicyHints,
  type EmbeddedPreset,
} from '@seal/embedded';
import { createOrtPolicy, learnedLogitScale } from '@seal/engine-ort';
import {
  checkTaskMix,
  RunDirectory,
  bfclTrainingEnvironment,
  runTraining,
  trainMethodSchema,
  type EvalSet,
  type TrainingEnvironment,
  type TrainConfigInput,
  type TrainSummary,
} from '@seal/rl';
import {
  SealError,
  overlayModuleNames,
  type EvalEvent,
  type OverlayModule,
  type PolicyV1,
  type Task,
  type TrainStepEvent,
} from '@seal/spec';
import { createBfclVerifier } from '@seal/verifier';
import * as z from 'zod';
import { parseFlags } from '../args';
import type { CommandContext } from '../command';
import {
  deviceFlagHelp,
  deviceFlagOption,
  deviceFlagSchema,
  precisionFlagHelp,
  precisionFlagOption,
  precisionFlagSchema,
  precisionSetting,
  resolveDevice,
} from '../device-flag';
import { exitCodes } from '../exit-codes';
import { prepareEmbedded } from '../shipped-base';
import { requestsCod, runTrainCod, trainCodHelp } from './train-cod';
import {
  envFlagHelp,
  envFlagOptions,
  envFlagSchemas,
  prepareEnvTraining,
  type EnvTraining,
} from './train-env';
import {
  checkTrainerFlags,
  createTrainerPolicies,
  probeTrainerService,
  trainerFlagHelp,
  trainerFlagOptions,
  trainerFlagSchemas,
  withSamplerCorrection,
} from './train-trainer';
import { formatLogitScale, summaryHeadline } from './train-summary';
import type { Output } from '../ui/output';

/**
 * The credit modes of `--credit`: `episode`, the episode's advantage alone
 * (turn-level weight 0); `turn`, turn-level credit beside it at the weight of
 * `--turn-advantage` (default 1, decision 0037's w = 1).
 */
export const creditModes = ['episode', 'turn'] as const;

/**
 * The turn-level advantage weight `--credit` and `--turn-advantage` ask
 * for (undefined: the preset's). `--credit episode` with a positive weight
 * contradicts itself: one clear error.
 */
export function turnAdvantageWeightOf({
  credit,
  weight,
}: {
  credit: (typeof creditModes)[number] | undefined;
  weight: number | undefined;
}): number | undefined {
  if (credit === 'episode' && weight !== undefined && weight > 0)
    throw new SealError({
      code: 'INVALID_ARGUMENT',
      message: `--credit episode takes no turn-level weight, got --turn-advantage ${weight} (use --credit turn)`,
    });
  if (credit === 'episode') return 0;
  if (credit === 'turn') return weight ?? 1;
  return weight;
}

/**
 * `--task-mix`'s text: `name[=weight],...` (a bare name weighs 1; weights
 * non-negative). BFCL's four categories may be named short (`miss_func` for
 * `multi_turn_miss_func`). A category listed twice, a bad weight or no
 * positive weight is one clear error.
 */
export function parseTaskMix(text: string): Record<string, number> {
  const mix: Record<string, number> = {};
  for (const part of text.split(',').map((entry) => entry.trim())) {
    const [rawName = '', rawWeight, extra] = part.split('=');
    const name = bfclShortCategories.includes(rawName)
      ? `multi_turn_${rawName}`
      : rawName;
    const weight = rawWeight === undefined ? 1 : Number(rawWeight);
    if (
      name === '' ||
      extra !== undefined ||
      !(weight >= 0) ||
      !Number.isFinite(weight)
    )
      throw new SealError({
        code: 'INVALID_ARGUMENT',
        message: `--task-mix: '${part}' is not name or name=weight (a weight ≥ 0), in '${text}'`,
      });
    if (name in mix)
      throw new SealError({
        code: 'INVALID_ARGUMENT',
        message: `--task-mix: category '${rawName}' is listed twice in '${text}'`,
      });
    mix[name] = weight;
  }
  if (!Object.values(mix).some((weight) => weight > 0))
    throw new SealError({
      code: 'INVALID_ARGUMENT',
      message: `--task-mix: no category has a positive weight in '${text}'`,
    });
  return mix;
}

const bfclShortCategories: readonly string[] = [
  'base',
  'miss_func',
  'miss_param',
  'long_context',
];

const flagsSchema = z.object({
  preset: z
    .enum(embeddedPresetNames.filter((name) => name !== 'base'))
    .default('default'),
  method: trainMethodSchema.default('seal'),
  seed: z.coerce.number().int().optional(),
  steps: z.coerce.number().int().positive().optional(),
  temperature: z.coerce.number().positive().optional(),
  overlays: z.string().optional(),
  lr: z.coerce.number().nonnegative().optional(),
  kl: z.coerce.number().nonnegative().optional(),
  'embedding-lr-scale': z.coerce.number().min(0).max(1).optional(),
  'output-norm-lr-scale': z.coerce.number().min(0).max(10000).optional(),
  'vector-lr-scale': z.coerce.number().min(0).max(10000).optional(),
  'output-norm': z.enum(['free', 'uniform']).optional(),
  'progress-weight': z.coerce.number().min(0).max(10).optional(),
  'turn-advantage': z.coerce.number().min(0).max(10).optional(),
  'dynamic-sampling': z.boolean().optional(),
  'refill-rounds': z.coerce.number().int().min(0).max(16).optional(),
  credit: z
    .enum(creditModes, {
      error: (issue) =>
        `unknown credit mode '${String(issue.input)}' (valid modes: ${creditModes.join(', ')})`,
    })
    .optional(),
  'warmup-steps': z.coerce.number().int().min(0).optional(),
  'zero-advantage-share': z.coerce.number().gt(0).max(1).optional(),
  'strict-abstention': z.enum(['on', 'off']).optional(),
  'tasks-per-step': z.coerce.number().int().positive().max(256).optional(),
  'test-id': z.coerce.number().int().min(4).max(2000).optional(),
  'test-ood': z.coerce.number().int().min(4).max(2000).optional(),
  'updates-per-step': z.coerce.number().int().positive().max(64).optional(),
  'eval-every': z.coerce.number().int().positive().optional(),
  'batch-order': z.enum(['shuffle', 'stratified']).optional(),
  'task-mix': z.string().transform(parseTaskMix).optional(),
  baseline: z.enum(['on', 'off']).optional(),
  'run-dir': z.string().optional(),
  cache: z.string().default('.seal-cache'),
  fresh: z.boolean().default(false),
  'task-source': z.enum(['generated', 'bfcl']).default('generated'),
  data: z.string().optional(),
  model: z.string().optional(),
  json: z.boolean().optional(),
  device: deviceFlagSchema,
  precision: precisionFlagSchema,
  ...trainerFlagSchemas,
  ...envFlagSchemas,
});

/**
 * BFCL (or the generated suite, on BFCL's classes) as the loop's training
 * environment: the generic dispatch over BFCL's backend and verifier.
 */
function bfclEnvironment(runtime: BfclRuntimeData): TrainingEnvironment {
  return bfclTrainingEnvironment({
    backend: createBfclBackend({ runtime }),
    verifier: createBfclVerifier({ runtime }),
  });
}

export const trainHelp = `usage: seal train [--preset default|smoke|extended|consolidated|readslist|recovers] [--method seal|grpo|no-env|no-reweight|no-loop|envtuning]
                  [--seed N] [--steps N] [--temperature T] [--lr X] [--kl X] [--embedding-lr-scale X] [--output-norm-lr-scale X] [--output-norm free|uniform]
                  [--vector-lr-scale X]
                  [--progress-weight W] [--credit episode|turn] [--turn-advantage W] [--dynamic-sampling [--refill-rounds N]]
                  [--warmup-steps N] [--strict-abstention on|off] [--zero-advantage-share P]
                  [--tasks-per-step N] [--updates-per-step N] [--test-id N] [--test-ood N] [--task-mix MIX]
                  [--eval-every N] [--batch-order shuffle|stratified] [--baseline on|off] [--overlays schema,err,cap|none]
                  [--run-dir DIR] [--cache DIR] [--fresh] [--json] [--device cpu|webgpu|cuda|auto]
                  [--trainer local|tinker [--trainer-url URL] [--base-model NAME] [--lora-rank R]]
                  [--sampler-url URL [--sampler-model NAME] [--sampler-sync disk|none] [--tis-cap C]]
       seal train --task-source bfcl --data DIR --model DIR [--method ...] [--steps N]
       seal train --env SPEC --tasks FILE [--preset smoke | --model DIR] [--eval-tasks N] [--method ...]
       seal train --method cod [...]   (Connect the Dots; see below)

Runs the closed co-evolution loop. With no arguments: the embedded default on
CPU — procedurally generated BFCL-style tasks, a small Qwen2-style model with
its own tokenizer, a supervised warm start (cached by config hash), then RL
with the chosen method, evaluated on the untouched interface (in-distribution
and out-of-distribution test splits). A run resumes from its last checkpoint
unless --fresh is given.

  --preset         default (≤ 15 min on 2 cores), smoke (< 3 min) or extended
                   (48 steps from the same base, with the frozen baseline and
                   the gap monitor; about 21 min on 2 cores), or
                   consolidated (the default's RL from the consolidated base,
                   decision 0042: its first run trains the base's last stage
                   from the shipped base, about 20 minutes more), or
                   readslist (the same from the base consolidated with
                   tool-list pairs, issue 44), or recovers (readslist whose
                   withheld turns also recover after calling the missing
                   tool, report 0044)
  --method         seal (default), grpo, no-env, no-reweight, no-loop, envtuning
  --temperature    rollout sampling temperature (default 1); the PPO ratio and
                   KL use log-probabilities at the same temperature
  --seed N         the RL seed (sampling and batch order); tasks and the
                   warm start stay the preset's
  --lr X, --kl X   override the preset's RL learning rate and KL coefficient
  --embedding-lr-scale X
                   the token embeddings' learning rate as a share of --lr
                   (0 freezes them)
  --output-norm-lr-scale X
                   the final norm's gain (the logits' scale: the policy's
                   inverse temperature) learns at X × --lr (the default and
                   extended presets: 100; else 1)
  --output-norm free|uniform
                   uniform: that gain moves only as a whole, one learned
                   scale of every logit (the default and extended presets;
                   else free, per element). --output-norm free
                   --output-norm-lr-scale 1 is the setting before decision 0038
  --vector-lr-scale X
                   the other norm gains and the attention biases (2,560
                   weights in the embedded model) learn at X × --lr (default
                   1). With a small --lr, RL moves only those vectors and the
                   logits' scale (decision 0040)
  --progress-weight W
                   add W × the share of turns the verifier passes (the dense
                   per-turn progress reward) to the binary verdict
  --credit episode|turn
                   episode: the episode's advantage alone (turn-level weight
                   0); turn: turn-level credit at the --turn-advantage weight
                   (default 1)
  --turn-advantage W
                   turn-level credit: each token's advantage is its episode's
                   plus W × its turn's (the turn verdict normalised over the
                   group at that turn), so a wrong turn in a passing episode
                   and a right turn in a failing one get their own sign
                   (default 0: the episode's advantage alone, as in the papers)
  --dynamic-sampling [--refill-rounds N]
                   DAPO's dynamic sampling: a group whose rewards all agree
                   (no gradient) is left out and replaced by a fresh group of
                   further training tasks (a seeded order per step), until
                   the step holds as many groups with gradient as it
                   scheduled or N rounds of draws are spent (default 3; 0
                   only drops them). The step's event records the groups
                   refilled and dropped. Not yet measured; off by default
  --warmup-steps N raise the RL learning rate linearly over the first N steps
  --zero-advantage-share P
                   put each zero-advantage rollout (it moves the policy only
                   through the KL term) into the update with probability P,
                   weighted 1/P: the same expected update for less reference
                   scoring and training (default 1: all of them)
  --strict-abstention on|off
                   on: the training reward also fails an episode that calls
                   a tool in a turn whose ground truth is empty (BFCL's
                   irrelevance check, which BFCL's runner leaves out);
                   evaluation keeps BFCL's verdict (the embedded default
                   and extended presets: on, decision 0036)
  --tasks-per-step N, --updates-per-step N
                   tasks drawn per RL step (each rolled out as a group), and
                   optimizer updates the step's episodes are split into
  --test-id N, --test-ood N
                   held-out evaluation tasks (default 64 and 32; more
                   narrows the gain's interval and costs evaluation time)
  --eval-every N   evaluate the held-out sets every N steps (default: the
                   preset's; the last step is always evaluated)
  --task-mix MIX   the task mix: name[=weight],... (a bare name weighs 1),
                   e.g. miss_func=2,base,miss_param,long_context; each step's
                   tasks come from those categories in those proportions, a
                   category left out is not trained on (BFCL's categories
                   may be named short: base, miss_func, miss_param,
                   long_context). Default: every task, by --batch-order.
                   The held-out evaluations keep every category
  --batch-order shuffle|stratified
                   how each epoch's training tasks fill the steps: one
                   shuffle (the papers), or every step with the categories in
                   equal shares (stratified)
  --overlays       SEAL's interface modules in training: a comma list of
                   schema (φ_schema cues), err (φ_err hints), cap (φ_cap
                   guidelines), or none (the untouched interface); default:
                   schema, SEAL's headline. Recorded in the run's config.
  --baseline       on: also roll out the frozen starting policy on every step's
                   tasks with the same seeds and report the policy's gain over
                   it (default: on for --preset smoke and extended, off for
                   the default preset, whose time budget it would strain, and
                   for bfcl, where it doubles the cost of a large model)
  --task-source    generated (default) or bfcl (needs --data and --model)
  --model DIR      a Hugging Face-format model directory (config.json, model.safetensors, tokenizer files)
${envFlagHelp}
${deviceFlagHelp}
${precisionFlagHelp}
                   (the RL policy and its reference; the embedded warm start
                   trains on the CPU)
${trainerFlagHelp}

${trainCodHelp}`;

/** `--dynamic-sampling [--refill-rounds N]` as the run config's `dynamicSampling`. */
export function dynamicSamplingConfig(flags: {
  'dynamic-sampling'?: boolean | undefined;
  'refill-rounds'?: number | undefined;
}): { dynamicSampling?: { enabled: true; maxRefillRounds?: number } } {
  if (flags['refill-rounds'] !== undefined && !flags['dynamic-sampling']) {
    throw new SealError({
      code: 'INVALID_ARGUMENT',
      message: '--refill-rounds needs --dynamic-sampling',
    });
  }
  if (!flags['dynamic-sampling']) return {};
  return {
    dynamicSampling: {
      enabled: true,
      ...(flags['refill-rounds'] === undefined
        ? {}
        : { maxRefillRounds: flags['refill-rounds'] }),
    },
  };
}

function formatDuration(ms: number): string {
  const seconds = Math.round(ms / 1000);
  return `${Math.floor(seconds / 60)}m${String(seconds % 60).padStart(2, '0')}s`;
}

function pct(value: number | undefined): string {
  return value === undefined
    ? '   -'
    : `${(value * 100).toFixed(1).padStart(5)}%`;
}

/** The summary table: accuracy per eval set and category, before and after training. */
export function summaryTable(evaluations: readonly EvalEvent[]): string[] {
  const sets = [...new Set(evaluations.map((e) => e.set))];
  const lines = [
    '| eval set | category | before | after |',
    '| --- | --- | ---: | ---: |',
  ];
  for (const set of sets) {
    const events = evaluations.filter((e) => e.set === set);
    const first = events[0]!;
    const last = events[events.length - 1]!;
    const categories = [
      ...new Set([
        ...Object.keys(first.categories),
        ...Object.keys(last.categories),
      ]),
    ].sort();
    for (const category of categories) {
      lines.push(
        `| ${set} | ${category.replace('multi_turn_', '')} | ${pct(first.categories[category]?.accuracy)} | ${pct(last.categories[category]?.accuracy)} |`,
      );
    }
    lines.push(
      `| ${set} | **overall** | ${pct(first.overall)} | ${pct(last.overall)} |`,
    );
  }
  return lines;
}

async function runLoop({
  output,
  config,
  policy,
  referencePolicy,
  trainTasks,
  evalSets,
  environment,
  runDirectory,
}: {
  output: Output;
  config: TrainConfigInput;
  policy: PolicyV1;
  referencePolicy?: PolicyV1;
  trainTasks: Task[];
  evalSets: EvalSet[];
  /** The generic dispatch: BFCL's classes, or a v2 environment (`--env`). */
  environment: TrainingEnvironment;
  runDirectory: string;
}): Promise<TrainSummary> {
  const steps = config.steps;
  let bar = output.progress('train', steps);
  let evalBar: ReturnType<Output['progress']> | undefined;
  // Per-step success is noisy at a few dozen episodes: show a moving mean too.
  const recent: number[] = [];
  const window = 4;
  const baselineGains: number[] = [];
  let stepped = false;
  return runTraining({
    config,
    policy,
    ...(referencePolicy ? { referencePolicy } : {}),
    trainTasks,
    evalSets,
    environment,
    runDirectory,
    onProgress: (progress) => {
      switch (progress.type) {
        case 'eval-start':
          bar.done();
          evalBar = output.progress(`eval ${progress.set}`, 1);
          break;
        case 'eval-end':
          evalBar?.tick(1);
          evalBar?.done();
          output.line(
            `eval step ${progress.step} ${progress.set}: accuracy ${pct(progress.evaluation.accuracy)} (overall ${pct(progress.evaluation.scores.overall)})`,
          );
          bar = output.progress('train', steps);
          bar.tick(progress.step);
          break;
        case 'step-start':
          // A resumed run starts its bar at the steps already done.
          if (!stepped && progress.step > 1) bar.tick(progress.step - 1);
          stepped = true;
          break;
        case 'rollout-round':
          bar.tick(
            0,
            `rollouts ${progress.total - progress.active}/${progress.total}`,
          );
          break;
        case 'step-end': {
          const e = progress.event;
          recent.push(e.successRate);
          if (recent.length > window) recent.shift();
          const moving = `last ${recent.length}: ${pct(recent.reduce((a, b) => a + b, 0) / recent.length)}`;
          if (e.baselineSuccessRate !== undefined)
            baselineGains.push(e.successRate - e.baselineSuccessRate);
          // With the frozen baseline: the step's warm-start success on the same
          // tasks and seeds, and the policy's mean gain over it so far.
          const versus =
            e.baselineSuccessRate === undefined
              ? ''
              : `, warm start ${pct(e.baselineSuccessRate)} (gain so far ${points(baselineGains.reduce((a, b) => a + b, 0) / baselineGains.length)})`;
          bar.tick(1, `success ${pct(e.successRate)} (${moving})${versus}`);
          if (!output.json && !output.interactive) {
            output.line(
              `step ${e.step}/${steps}: success ${pct(e.successRate)} (${moving})${versus}, loss ${e.loss.toFixed(4)}, ${(e.timing.total / 1000).toFixed(1)}s`,
            );
          }
          break;
        }
        default:
          break;
      }
    },
  })
    .catch((error: unknown) => {
      if (error instanceof SealError && error.code === 'INVALID_STATE') {
        throw new SealError({
          code: error.code,
          message: `${error.message}: seal train --fresh, or --run-dir DIR`,
          details: error.details,
          cause: error,
        });
      }
      throw error;
    })
    .finally(() => bar.done());
}

/** `seal train`. */
export async function runTrain({
  argv,
  output,
}: CommandContext): Promise<number> {
  // Connect the Dots has its own loop and flags (@seal/cod).
  if (requestsCod(argv)) return runTrainCod({ argv, output });
  const { flags } = parseFlags({
    argv,
    options: {
      preset: { type: 'string' },
      method: { type: 'string' },
      seed: { type: 'string' },
      steps: { type: 'string' },
      temperature: { type: 'string' },
      overlays: { type: 'string' },
      lr: { type: 'string' },
      kl: { type: 'string' },
      'embedding-lr-scale': { type: 'string' },
      'output-norm-lr-scale': { type: 'string' },
      'vector-lr-scale': { type: 'string' },
      'output-norm': { type: 'string' },
      'progress-weight': { type: 'string' },
      'turn-advantage': { type: 'string' },
      'dynamic-sampling': { type: 'boolean' },
      'refill-rounds': { type: 'string' },
      credit: { type: 'string' },
      'warmup-steps': { type: 'string' },
      'zero-advantage-share': { type: 'string' },
      'strict-abstention': { type: 'string' },
      'tasks-per-step': { type: 'string' },
      'test-id': { type: 'string' },
      'test-ood': { type: 'string' },
      'updates-per-step': { type: 'string' },
      'eval-every': { type: 'string' },
      'batch-order': { type: 'string' },
      'task-mix': { type: 'string' },
      baseline: { type: 'string' },
      'run-dir': { type: 'string' },
      cache: { type: 'string' },
      fresh: { type: 'boolean' },
      'task-source': { type: 'string' },
      data: { type: 'string' },
      model: { type: 'string' },
      json: { type: 'boolean' },
      ...deviceFlagOption,
      ...precisionFlagOption,
      ...trainerFlagOptions,
      ...envFlagOptions,
    },
    schema: flagsSchema,
  });
  checkTrainerFlags(flags);
  await probeTrainerService(flags);
  // Checked before any model loads: --refill-rounds without --dynamic-sampling.
  const dynamicSampling = dynamicSamplingConfig(flags);
  const turnAdvantageWeight = turnAdvantageWeightOf({
    credit: flags.credit,
    weight: flags['turn-advantage'],
  });
  const device = await resolveDevice({ flag: flags.device, output });
  const precision = precisionSetting({ flag: flags.precision, device, output });
  const started = Date.now();

  if (flags.env !== undefined && flags['task-source'] === 'bfcl')
    throw new SealError({
      code: 'INVALID_ARGUMENT',
      message:
        '--env trains on your environment; --task-source bfcl on BFCL: pass one of them',
    });
  if (flags['task-source'] === 'bfcl') {
    if (!flags.model) {
      throw new SealError({
        code: 'INVALID_ARGUMENT',
        message:
          '--task-source bfcl needs --model DIR (a Hugging Face-format model directory)',
      });
    }
    const dataset = await loadBfclData({
      dir: resolveBfclDataDir({ flag: flags.data }),
    });
    const runDirectory = resolve(
      flags['run-dir'] ??
        join('runs', `bfcl-${flags.method}-s${flags.seed ?? 0}`),
    );
    if (flags.fresh) await rm(runDirectory, { recursive: true, force: true });
    const { policy, referencePolicy } = await createTrainerPolicies({
      flags,
      directory: resolve(flags.model),
      defaultBaseModel: basename(resolve(flags.model)),
      withReference: true,
      createLocal: () =>
        createOrtPolicy({
          model: { directory: resolve(flags.model!) },
          executionProvider: device,
          ...precision,
        }),
      samplerSyncDirectory: join(runDirectory, 'sampler-weights'),
    });
    try {
      const summary = await runLoop({
        output,
        config: withSamplerCorrection(flags, {
          runId: `bfcl-${flags.method}`,
          seed: flags.seed ?? 0,
          initialPolicy: resolve(flags.model),
          method: flags.method,
          steps: flags.steps ?? 72,
          episode: {
            protocol: 'qwen-xml',
            promptMode: 'full',
            maxModelCalls: 20,
          },
          sampling: { maxTokens: 512, temperature: flags.temperature ?? 1 },
          frozenBaseline: flags.baseline === 'on',
          ...dynamicSampling,
        }),
        policy,
        referencePolicy,
        trainTasks: bfclTasks({ dataset, split: 'train' }),
        evalSets: [
          { name: 'eval', tasks: bfclTasks({ dataset, split: 'eval' }) },
        ],
        environment: bfclEnvironment(dataset.runtime),
        runDirectory,
      });
      report({ output, summary, started, runDirectory, seed: flags.seed ?? 0 });
    } finally {
      await Promise.all([policy.close(), referencePolicy?.close()]);
    }
    return exitCodes.success;
  }

  const overlays =
    flags.overlays === undefined ? undefined : parseOverlays(flags.overlays);
  if (overlays && !['seal', 'no-reweight', 'no-loop'].includes(flags.method)) {
    throw new SealError({
      code: 'INVALID_ARGUMENT',
      message: `--overlays: method ${flags.method} has no environment-side adaptation (use seal, no-reweight or no-loop)`,
    });
  }
  if (flags.env !== undefined && flags.model !== undefined) {
    // A model directory on your environment: its training run's (or warm
    // start's) protocol and limits when it names them, else BFCL's setting.
    const directory = resolve(flags.model);
    const hints = await readPolicyHints(directory);
    const seed = flags.seed ?? 0;
    const env = await prepareEnvTraining({
      flags,
      defaultEvalCount: 16,
      seed,
    });
    try {
      const runId = `env-${basename(directory)}-${flags.method}-s${seed}`;
      const runDirectory = resolve(flags['run-dir'] ?? join('runs', runId));
      if (flags.fresh) await rm(runDirectory, { recursive: true, force: true });
      output.line(
        `seal train: ${directory} on environment ${env.environment.environmentId} (${env.trainTasks.length} training tasks, ${env.evalSets[0]?.tasks.length ?? 0} held out), method ${flags.method}, seed ${seed}, run ${runDirectory}`,
      );
      const { policy, referencePolicy } = await createTrainerPolicies({
        flags,
        directory,
        defaultBaseModel: basename(directory),
        withReference: true,
        createLocal: () =>
          createOrtPolicy({
            model: { directory },
            executionProvider: device,
            ...precision,
          }),
        samplerSyncDirectory: join(runDirectory, 'sampler-weights'),
      });
      try {
        const summary = await runLoop({
          output,
          config: withSamplerCorrection(flags, {
            runId,
            seed,
            initialPolicy: directory,
            method: flags.method,
            steps: flags.steps ?? 24,
            ...(flags['tasks-per-step'] === undefined
              ? {}
              : { tasksPerStep: flags['tasks-per-step'] }),
            ...(flags['task-mix'] === undefined
              ? {}
              : { taskMix: flags['task-mix'] }),
            episode: {
              protocol: hints.protocol ?? 'qwen-xml',
              promptMode: hints.promptMode ?? 'full',
              maxModelCalls: hints.maxModelCalls ?? 20,
            },
            sampling: {
              maxTokens: hints.maxTokens ?? 512,
              temperature: flags.temperature ?? 1,
            },
            frozenBaseline: flags.baseline === 'on',
            ...(flags['eval-every'] === undefined
              ? {}
              : { evalEvery: flags['eval-every'] }),
            ...(overlays ? { overlays } : {}),
            ...dynamicSampling,
          }),
          policy,
          referencePolicy,
          trainTasks: env.trainTasks,
          evalSets: env.evalSets,
          environment: env.training,
          runDirectory,
        });
        report({ output, summary, started, runDirectory, seed });
      } finally {
        await Promise.all([policy.close(), referencePolicy?.close()]);
      }
    } finally {
      await env.close();
    }
    return exitCodes.success;
  }
  const chosen = embeddedPresets[flags.preset];
  // --seed is the RL seed (sampling, batch order); the tasks and the warm
  // start stay the preset's, so every seed starts from the same base model.
  const preset: EmbeddedPreset = {
    ...chosen,
    tasks: {
      ...chosen.tasks,
      ...(flags['test-id'] === undefined ? {} : { testId: flags['test-id'] }),
      ...(flags['test-ood'] === undefined
        ? {}
        : { testOod: flags['test-ood'] }),
    },
    rl: {
      ...chosen.rl,
      ...(flags.baseline === undefined
        ? {}
        : { frozenBaseline: flags.baseline === 'on' }),
      ...(flags.lr === undefined ? {} : { learningRate: flags.lr }),
      ...(flags.kl === undefined ? {} : { klCoef: flags.kl }),
      ...(flags['embedding-lr-scale'] === undefined
        ? {}
        : { embeddingLearningRateScale: flags['embedding-lr-scale'] }),
      ...(flags['output-norm-lr-scale'] === undefined
        ? {}
        : { outputNormLearningRateScale: flags['output-norm-lr-scale'] }),
      ...(flags['vector-lr-scale'] === undefined
        ? {}
        : { vectorLearningRateScale: flags['vector-lr-scale'] }),
      ...(flags['output-norm'] === undefined
        ? {}
        : { outputNormUniform: flags['output-norm'] === 'uniform' }),
      ...(flags['progress-weight'] === undefined
        ? {}
        : { progressWeight: flags['progress-weight'] }),
      ...(turnAdvantageWeight === undefined ? {} : { turnAdvantageWeight }),
      ...(flags['warmup-steps'] === undefined
        ? {}
        : { warmupSteps: flags['warmup-steps'] }),
      ...(flags['zero-advantage-share'] === undefined
        ? {}
        : { zeroAdvantageShare: flags['zero-advantage-share'] }),
      ...(flags['strict-abstention'] === undefined
        ? {}
        : { strictAbstention: flags['strict-abstention'] === 'on' }),
      ...(flags['tasks-per-step'] === undefined
        ? {}
        : { tasksPerStep: flags['tasks-per-step'] }),
      ...(flags['updates-per-step'] === undefined
        ? {}
        : { optimizerStepsPerStep: flags['updates-per-step'] }),
      ...(flags['eval-every'] === undefined
        ? {}
        : { evalEvery: flags['eval-every'] }),
      ...(flags['batch-order'] === undefined
        ? {}
        : { batchOrder: flags['batch-order'] }),
      ...(flags['task-mix'] === undefined
        ? {}
        : { taskMix: flags['task-mix'] }),
    },
  };
  const rlSeed = flags.seed ?? preset.seed;
  // --env: SEAL's loop on a bring-your-own environment, loaded (and its
  // tasks checked) before any model work.
  const envTraining: EnvTraining | undefined = flags.env
    ? await prepareEnvTraining({
        flags,
        defaultEvalCount: preset.tasks.testId,
        seed: preset.seed,
      })
    : undefined;
  if (!flags.env && flags.tasks !== undefined)
    throw new SealError({
      code: 'INVALID_ARGUMENT',
      message: '--tasks needs --env SPEC (the environment the tasks run on)',
    });
  const runName = `${envTraining ? 'env-' : ''}${preset.name}-${flags.method}-s${rlSeed}`;
  const runDirectory = resolve(flags['run-dir'] ?? join('runs', runName));
  try {
    if (flags.fresh) await rm(runDirectory, { recursive: true, force: true });
    output.line(
      `seal train: preset ${preset.name}, method ${flags.method}, seed ${rlSeed}, run ${runDirectory}`,
    );
    if (envTraining)
      output.line(
        `  environment ${envTraining.environment.environmentId}: ${envTraining.trainTasks.length} training tasks, ${envTraining.evalSets[0]?.tasks.length ?? 0} held out`,
      );
    // The task mix against the training tasks, before any model work.
    if (preset.rl.taskMix !== undefined)
      checkTaskMix({
        tasks: envTraining?.trainTasks ?? embeddedTasks(preset).train,
        mix: preset.rl.taskMix,
        tasksPerStep: preset.rl.tasksPerStep,
      });
    let warmBar: ReturnType<Output['progress']> | undefined;
    const assets = await prepareEmbedded({
      preset,
      cacheDirectory: resolve(flags.cache),
      onProgress: (progress) => {
        if (progress.type === 'phase') output.line(`  ${progress.phase}…`);
        else {
          if (progress.step === 1)
            warmBar = output.progress(
              progress.stage === 'drill' ? 'copy drills' : 'warm start',
              progress.steps,
            );
          warmBar?.tick(1, `loss ${progress.loss.toFixed(3)}`);
          if (progress.step === progress.steps) warmBar?.done();
        }
      },
    });
    warmBar?.done();
    output.line(
      assets.source === 'shipped'
        ? '  starting from the shipped base model (apps/cli/assets/base; seal warmstart --preset base rebuilds it)'
        : assets.cached
          ? '  warm start loaded from the cache'
          : `  warm start done (final loss ${assets.warmupLosses.at(-1)?.toFixed(3)})`,
    );
    // The policy in process, or (--trainer tinker) in a Tinker service.
    const { policy, referencePolicy } = await createTrainerPolicies({
      flags,
      directory: assets.warmStartDirectory,
      defaultBaseModel: `seal-${preset.name}`,
      withReference: preset.rl.klCoef > 0 || preset.rl.frozenBaseline === true,
      createLocal: () =>
        createOrtPolicy({
          model: { directory: assets.warmStartDirectory },
          executionProvider: device,
          ...precision,
        }),
      samplerSyncDirectory: join(runDirectory, 'sampler-weights'),
    });
    if (flags.trainer === 'tinker')
      output.line(
        `  trainer: ${policy.policyId} at ${flags['trainer-url']}${'exact' in policy && policy.exact ? " (SEAL's exact extension: the local run's episodes and weights)" : ''}`,
      );
    if (flags['sampler-url'] !== undefined)
      output.line(
        `  sampler: ${flags['sampler-url']} (token-exact rollouts, truncated importance sampling at ${flags['tis-cap'] ?? 2}, weights sync ${flags['sampler-sync'] ?? 'disk'})`,
      );
    try {
      const summary = await runLoop({
        output,
        config: withSamplerCorrection(flags, {
          ...embeddedTrainConfig({
            preset,
            method: flags.method,
            seed: rlSeed,
            ...(flags.steps ? { steps: flags.steps } : {}),
            ...(flags.temperature ? { temperature: flags.temperature } : {}),
          }),
          ...(envTraining ? { runId: runName } : {}),
          ...(overlays ? { overlays } : {}),
          ...dynamicSampling,
        }),
        policy,
        ...(referencePolicy ? { referencePolicy } : {}),
        trainTasks: envTraining?.trainTasks ?? assets.trainTasks,
        evalSets: envTraining?.evalSets ?? assets.evalSets,
        environment:
          envTraining?.training ?? bfclEnvironment(createGeneratorRuntime()),
        runDirectory,
      });
      const ppo = summary.config.ppo;
      const scaleLine =
        ppo.outputNormUniform || ppo.outputNormLearningRateScale !== 1
          ? await logitScaleLine({
              warmStartDirectory: assets.warmStartDirectory,
              runDirectory,
            })
          : undefined;
      report({
        output,
        summary,
        started,
        runDirectory,
        seed: rlSeed,
        ...(scaleLine ? { logitScaleLine: scaleLine } : {}),
      });
    } finally {
      await Promise.all([policy.close(), referencePolicy?.close()]);
    }
  } finally {
    await envTraining?.close();
  }
  return exitCodes.success;
}

/**
 * The logits' scale the run learned: the mean of the final norm's gain in
 * the last checkpoint over the warm start's. Multiplying that gain by s is
 * sampling the warm start at temperature 1/s, so the line names the control
 * for how much of a sampled gain is the scale alone (decision 0038).
 * Undefined when either file is missing or unreadable.
 */
export async function logitScaleLine({
  warmStartDirectory,
  runDirectory,
}: {
  warmStartDirectory: string;
  runDirectory: string;
}): Promise<string | undefined> {
  try {
    const run = new RunDirectory(runDirectory);
    const step = await run.latestCheckpoint();
    if (step === undefined) return undefined;
    const scale = learnedLogitScale({
      baseModelFile: join(warmStartDirectory, 'model.safetensors'),
      modelFile: join(run.checkpointPath(step), 'model.safetensors'),
    });
    if (scale === undefined) return undefined;
    return formatLogitScale({ scale, step });
  } catch {
    return undefined;
  }
}

/** Parses `--overlays`: a comma list of schema, err, cap, or `none`. */
export function parseOverlays(value: string): OverlayModule[] {
  const names = value
    .split(',')
    .map((name) => name.trim())
    .filter((name) => name.length > 0);
  if (names.length === 1 && names[0] === 'none') return [];
  const unknown = names.filter(
    (name) => !(overlayModuleNames as readonly string[]).includes(name),
  );
  if (names.length === 0 || unknown.length > 0) {
    throw new SealError({
      code: 'INVALID_ARGUMENT',
      message: `--overlays: unknown overlay module ${unknown.length > 0 ? unknown.map((name) => `'${name}'`).join(', ') : "''"} (known: ${overlayModuleNames.join(', ')}, or none alone)`,
    });
  }
  return [...new Set(names)] as OverlayModule[];
}

/** A difference of rates in percentage points, signed. */
function points(value: number): string {
  const rounded = Math.round(value * 1000) / 10;
  return `${rounded > 0 ? '+' : rounded < 0 ? '−' : '±'}${Math.abs(rounded).toFixed(1)} points`;
}

/**
 * The policy against the frozen warm start on the same tasks and seeds, step
 * by step: success of both and the policy's cumulative gain (decision 0015).
 */
export function baselineSummary(steps: readonly TrainStepEvent[]): string[] {
  const mean = (xs: number[]) =>
    xs.reduce((a, b) => a + b, 0) / Math.max(1, xs.length);
  const policy = mean(steps.map((s) => s.successRate));
  const baseline = mean(steps.map((s) => s.baselineSuccessRate ?? 0));
  const ahead = steps.filter(
    (s) => s.successRate > (s.baselineSuccessRate ?? 0),
  ).length;
  const behind = steps.filter(
    (s) => s.successRate < (s.baselineSuccessRate ?? 0),
  ).length;
  const lines = [
    `training success on the same tasks and seeds: policy ${pct(policy)}, frozen warm start ${pct(baseline)} (${points(policy - baseline)}; ahead on ${ahead} of ${steps.length} steps, behind on ${behind})`,
    '| step | policy | warm start | gain so far |',
    '| ---: | ---: | ---: | ---: |',
  ];
  let gain = 0;
  steps.forEach((s, i) => {
    gain += s.successRate - (s.baselineSuccessRate ?? 0);
    lines.push(
      `| ${s.step} | ${pct(s.successRate)} | ${pct(s.baselineSuccessRate)} | ${points(gain / (i + 1))} |`,
    );
  });
  return lines;
}

function report({
  output,
  summary,
  started,
  runDirectory,
  seed,
  logitScaleLine,
}: {
  output: Output;
  summary: TrainSummary;
  started: number;
  runDirectory: string;
  /** The run's RL seed (its figures are one seed's). */
  seed: number;
  /** The learned logit scale as a temperature, when the run learned one. */
  logitScaleLine?: string;
}): void {
  const steps = summary.steps;
  output.line();
  output.line(
    `method ${summary.config.method} · ${summary.config.steps} steps · ${formatDuration(Date.now() - started)} · run ${runDirectory}`,
  );
  if (summary.resumedFrom > 0) {
    output.line(
      summary.resumedFrom >= summary.config.steps
        ? `the run was already complete: its recorded results below (--fresh starts it over)`
        : `resumed after step ${summary.resumedFrom} (--fresh starts it over)`,
    );
  }
  // Greedy held-out success leads (issue 44): before → after, one seed's.
  for (const line of summaryHeadline({
    evaluations: summary.evaluations,
    seed,
    ...(logitScaleLine ? { logitScaleLine } : {}),
  }))
    output.line(line);
  output.line();
  const paired = steps.filter((s) => s.baselineSuccessRate !== undefined);
  if (paired.length > 0) {
    for (const line of baselineSummary(paired)) output.line(line);
  } else if (steps.length > 0) {
    const third = Math.max(1, Math.floor(steps.length / 3));
    const mean = (xs: number[]) =>
      xs.reduce((a, b) => a + b, 0) / Math.max(1, xs.length);
    output.line(
      `training success: first ${third} steps ${pct(mean(steps.slice(0, third).map((s) => s.successRate)))}, last ${third} steps ${pct(mean(steps.slice(-third).map((s) => s.successRate)))}`,
    );
    // Each step draws other tasks, so this comparison mixes learning with task
    // difficulty (decision 0014); the evaluation table compares the same tasks.
    output.line(
      '(each step draws other training tasks; the table below evaluates the same tasks before and after)',
    );
  }
  for (const line of summaryTable(summary.evaluations)) output.line(line);
  for (const rollback of summary.rollbacks) {
    output.line(
      `gap monitor: after step ${rollback.step} the gain over the warm start fell to ${points(rollback.windowGain)}; weights restored to step ${rollback.toStep}, learning rate now ${rollback.learningRate}`,
    );
  }
  if (summary.config.method === 'envtuning') {
    // The curriculum's stage timeline: each stage's steps and what ended it.
    const span = (from: number, to: number) =>
      from > to
        ? 'reached after the last step'
        : from === to
          ? `step ${from}`
          : `steps ${from}–${to}`;
    output.line(
      `curriculum stages (validation: ${summary.validations[0]?.tasks ?? 0} held-out training tasks, greedy, untouched interface; before training ${pct(summary.validations[0]?.accuracy).trim()}):`,
    );
    summary.stages.forEach((change, i) => {
      const score =
        change.validation === undefined
          ? ''
          : `, validation ${pct(change.validation).trim()}`;
      output.line(
        `  ${i + 1} ${change.from}: ${span((summary.stages[i - 1]?.step ?? 0) + 1, change.step)}, ended by ${change.reason === 'plateau' ? 'a validation plateau' : 'its step budget'}${score}`,
      );
    });
    const last = summary.validations.at(-1);
    output.line(
      `  ${summary.stages.length + 1} ${summary.stages.at(-1)?.to ?? 'syntax'}: ${span((summary.stages.at(-1)?.step ?? 0) + 1, summary.config.steps)}${last ? `, validation ${pct(last.accuracy).trim()} after step ${last.step}` : ''}`,
    );
  }
  output.result({
    runDirectory,
    config: summary.config,
    steps: summary.steps,
    evaluations: summary.evaluations,
    rollbacks: summary.rollbacks,
    stages: summary.stages,
    validations: summary.validations,
  });
}

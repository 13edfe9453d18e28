import { readFile, readdir, rename, rm } from 'node:fs/promises';
import { performance } from 'node:perf_hooks';
import { CapabilityState, applyAPatch, defaultTagWeights, loadCapabilityState, saveCapabilityState, updateDynamicTagWeights } from '@seal/diagnose';
import { createEpisode, emptyOverlayHash } from '@seal/env';
import {
  advanceCurriculum,
  envTuningOverlay,
  envTuningStages,
  evolveSealOverlay,
  initialCurriculumState,
  sealSettingsForModules,
  type PlateauSettings,
  type SealInterfaceSettings,
} from '@seal/evolve';
import { PyRandom } from '@seal/python';
import {
  SealError,
  emptyOverlay,
  parseJsonText,
  parseWithSchema,
  trainerStateSchema,
  type EvalEvent,
  type InterfaceOverlay,
  type PolicyV1,
  type PolicyV1TrainResult,
  type PolicyV1TrainSequence,
  type RollbackEvent,
  type RunEvent,
  type StageEvent,
  type SyncVerifierV1,
  type Task,
  type ToolBackendV1,
  type ToolDoc,
  type TrainerState,
  type TrainStepEvent,
  type ValidationEvent,
} from '@seal/spec';
import { grpoAdvantages, zeroVarianceGroups } from '../advantages/grpo';
import { methodComponents, trainConfigSchema, type TrainConfig, type TrainConfigInput } from '../config/train-config';
import { evaluatePolicy, type PolicyEvaluation } from '../evaluate/evaluate-policy';
import { deriveSeed, runRollouts, type Rollout } from '../rollout/run-rollouts';
import { RunDirectory, writeJsonAtomic } from '../run/run-directory';
import { initialGapMonitorState, observeGap } from './gap-monitor';

/** An evaluation set: a name and its tasks. */
export type EvalSet = { name: string; tasks: Task[] };

/** Progress reported by {@link runTraining}. */
export type TrainProgress =
  | { type: 'step-start'; step: number; steps: number }
  | { type: 'rollout-round'; step: number; active: number; total: number }
  | { type: 'step-end'; step: number; steps: number; event: TrainStepEvent }
  | { type: 'eval-start'; step: number; set: string; tasks: number }
  | { type: 'eval-end'; step: number; set: string; evaluation: PolicyEvaluation }
  | { type: 'rollback'; event: RollbackEvent }
  | { type: 'stage'; event: StageEvent };

/** Options of {@link runTraining}. */
export type RunTrainingOptions = {
  config: TrainConfigInput;
  /** The trainable policy. */
  policy: PolicyV1;
  /** A frozen reference policy for the KL term (needed when `ppo.klCoef > 0`). */
  referencePolicy?: PolicyV1;
  trainTasks: readonly Task[];
  evalSets?: readonly EvalSet[];
  backend: ToolBackendV1;
  verifier: SyncVerifierV1;
  /** The run directory (created if missing; resumed if it holds a checkpoint). */
  runDirectory: string;
  /** SEAL interface modules for methods with environment adaptation (default: the headline, φ_schema). */
  interfaceSettings?: SealInterfaceSettings;
  onProgress?: (progress: TrainProgress) => void;
  /** Stops after the current step. */
  signal?: AbortSignal;
};

/** What {@link runTraining} returns. */
export type TrainSummary = {
  config: TrainConfig;
  /** Every step of the run, those recorded before a resume included (likewise `evaluations`). */
  steps: TrainStepEvent[];
  evaluations: EvalEvent[];
  /** Gap-monitor rollbacks (empty without the monitor). */
  rollbacks: RollbackEvent[];
  /** Environment Tuning's stage changes and validations (empty for other methods). */
  stages: StageEvent[];
  validations: ValidationEvent[];
  /** The step the run resumed after (0 for a fresh run). */
  resumedFrom: number;
};

function shuffleForEpoch(tasks: readonly Task[], seed: number, epoch: number): Task[] {
  const rng = new PyRandom(BigInt(deriveSeed(seed, 0x7a5c, epoch)));
  return rng.shuffle([...tasks]);
}

function unionTools(tasks: readonly Task[]): ToolDoc[] {
  const byName = new Map<string, ToolDoc>();
  for (const task of tasks) for (const doc of task.tools) if (!byName.has(doc.name)) byName.set(doc.name, doc);
  return [...byName.values()];
}

function tagStatistics(stats: Record<string, { count: number; rewardSum: number }>): Record<string, { count: number; rewardSum: number }> {
  return Object.fromEntries(Object.entries(stats).map(([tag, s]) => [tag, { count: s.count, rewardSum: s.rewardSum }]));
}

/** Tasks a curriculum stage trains on (all of them when the stage's subset is empty). */
function stageTasks(tasks: readonly Task[], data: 'easy' | 'base' | 'all'): Task[] {
  if (data === 'all') return [...tasks];
  const base = tasks.filter((task) => task.category === 'multi_turn_base');
  if (base.length === 0) return [...tasks];
  if (data === 'base') return base;
  // Easy: the shortest base tasks (fewest turns, then fewest ground-truth calls).
  const sorted = [...base].sort(
    (a, b) => a.groundTruth.length - b.groundTruth.length || a.groundTruth.flat().length - b.groundTruth.flat().length,
  );
  return sorted.slice(0, Math.max(1, Math.ceil(sorted.length / 4)));
}

/**
 * Environment Tuning's plan: the validation split (a seeded draw from the
 * training tasks, never trained on), the tasks left to train on and the
 * plateau rule with the stage budget resolved. Checked before the run
 * directory is touched.
 */
function planCurriculum({ config, trainTasks }: { config: TrainConfig; trainTasks: readonly Task[] }): {
  validation: Task[];
  train: Task[];
  plateau: PlateauSettings;
} {
  const settings = config.curriculum;
  if (settings.validationTasks >= trainTasks.length) {
    throw new SealError({
      code: 'INVALID_ARGUMENT',
      message: `curriculum.validationTasks (${settings.validationTasks}) must be below the number of training tasks (${trainTasks.length}): the validation split is carved out of them`,
      details: { field: 'curriculum.validationTasks', value: settings.validationTasks, trainTasks: trainTasks.length },
    });
  }
  const rng = new PyRandom(BigInt(deriveSeed(config.seed, 0x7a11d)));
  const drawn = new Set(rng.shuffle(trainTasks.map((task) => task.id)).slice(0, settings.validationTasks));
  const maxStepsPerStage =
    settings.maxStepsPerStage === 'auto' ? Math.max(1, Math.floor(config.steps / envTuningStages.length)) : settings.maxStepsPerStage;
  return {
    validation: trainTasks.filter((task) => drawn.has(task.id)),
    train: trainTasks.filter((task) => !drawn.has(task.id)),
    plateau: { patience: settings.patience, minDelta: settings.minDelta, minEvaluations: settings.minEvaluations, maxStepsPerStage },
  };
}

/**
 * Busy time of this thread's event loop (Node's `performance`), where the
 * runtime has it; rollouts count it as the environment's time.
 */
const eventLoopUtilization = (
  performance as typeof performance & {
    eventLoopUtilization?: (previous?: { active: number; idle: number; utilization: number }) => { active: number; idle: number; utilization: number };
  }
).eventLoopUtilization?.bind(performance);

/** A policy whose calls are timed (to split model work from the rest of a step). */
function timed(policy: PolicyV1, clock: { model: number }): PolicyV1 {
  const wrap =
    <A extends unknown[], R>(fn: (...args: A) => PromiseLike<R>) =>
    async (...args: A): Promise<R> => {
      const start = performance.now();
      try {
        return await fn(...args);
      } finally {
        clock.model += performance.now() - start;
      }
    };
  return {
    ...policy,
    tokenizer: policy.tokenizer,
    generate: wrap(policy.generate.bind(policy)),
    score: wrap(policy.score.bind(policy)),
    train: wrap(policy.train.bind(policy)),
    save: wrap(policy.save.bind(policy)),
    load: wrap(policy.load.bind(policy)),
  };
}

/**
 * The training loop of SEAL (§5.3 step order): group rollouts on the training
 * interface → verification → diagnosis into the capability state → GRPO
 * advantages → closed-loop ρ update → A-Patch scaling → PPO update (dual
 * clip, low-variance KL, per-trajectory token mean) → interface evolution
 * Ω_{t+1} = Evolve(Ω_t, C_t). Periodic evaluation runs on the untouched
 * interface. Every sample is stamped with the policy step, the overlay hash
 * and the verifier version. A run resumes from its last checkpoint; steps
 * after it are redone deterministically, so no record is lost or duplicated.
 */
export async function runTraining(options: RunTrainingOptions): Promise<TrainSummary> {
  const config = parseWithSchema({ schema: trainConfigSchema, value: options.config, source: 'train config' });
  const components = methodComponents(config.method);
  if (config.ppo.klCoef > 0 && !options.referencePolicy) {
    throw new SealError({
      code: 'INVALID_ARGUMENT',
      message: 'ppo.klCoef > 0 needs a referencePolicy (a frozen copy of the starting weights)',
    });
  }
  if (config.frozenBaseline && !options.referencePolicy) {
    throw new SealError({
      code: 'INVALID_ARGUMENT',
      message: 'frozenBaseline needs a referencePolicy (the frozen starting weights it rolls out)',
    });
  }
  if (config.overlays && !components.interface) {
    throw new SealError({
      code: 'INVALID_ARGUMENT',
      message: `overlays: method ${config.method} has no environment-side adaptation; interface modules need seal, no-reweight or no-loop`,
    });
  }
  if (config.gapMonitor && !config.frozenBaseline) {
    throw new SealError({
      code: 'INVALID_ARGUMENT',
      message: 'gapMonitor needs frozenBaseline: the gain it watches is the policy against the frozen warm start on the same tasks',
    });
  }
  if (options.trainTasks.length === 0) {
    throw new SealError({ code: 'INVALID_ARGUMENT', message: 'no training tasks' });
  }
  const curriculum = components.envTuning ? planCurriculum({ config, trainTasks: options.trainTasks }) : undefined;
  const run = new RunDirectory(options.runDirectory);
  await run.ensure();
  const clock = { model: 0 };
  const policy = timed(options.policy, clock);
  const referencePolicy = options.referencePolicy ? timed(options.referencePolicy, clock) : undefined;
  const capabilityPath = run.path('capability_state.json');

  // Resume from the newest checkpoint, dropping anything recorded after it.
  let state: TrainerState = {
    schemaVersion: 1,
    step: 0,
    curriculum: initialCurriculumState(),
    ...(config.gapMonitor ? { gapMonitor: initialGapMonitorState() } : {}),
  };
  let capability = new CapabilityState();
  // The events a resumed run had already recorded (its summary includes them).
  let recorded: RunEvent[] = [];
  const resumedFrom = (await run.latestCheckpoint()) ?? 0;
  if (resumedFrom > 0) {
    await assertResumable({ runDirectory: options.runDirectory, path: run.path('config.json'), config });
    const checkpoint = run.checkpointPath(resumedFrom);
    await policy.load({ directory: checkpoint });
    state = parseWithSchema({ schema: trainerStateSchema, value: parseJsonText({ text: await readFile(`${checkpoint}/trainer-state.json`, 'utf8') }), source: `${checkpoint}/trainer-state.json` });
    capability = await loadCapabilityState({ path: `${checkpoint}/capability_state.json` });
    recorded = await run.truncateAfter(resumedFrom);
  } else {
    // A fresh run (or one that crashed before its first checkpoint) starts clean.
    await run.reset();
  }
  await writeJsonAtomic(run.path('config.json'), config);
  // The tasks the run trains and evaluates on, so that reports and viewers can
  // re-verify any recorded episode without knowing where the tasks came from.
  const runTasks = new Map<string, Task>();
  for (const task of [...options.trainTasks, ...(options.evalSets ?? []).flatMap((set) => set.tasks)]) runTasks.set(task.id, task);
  await run.writeJsonLines(run.path('tasks.jsonl'), [...runTasks.values()]);

  const tools = unionTools(options.trainTasks);
  const summary: TrainSummary = { config, steps: [], evaluations: [], rollbacks: [], stages: [], validations: [], resumedFrom };
  for (const event of recorded) {
    if (event.type === 'train-step') summary.steps.push(event);
    else if (event.type === 'eval') summary.evaluations.push(event);
    else if (event.type === 'rollback') summary.rollbacks.push(event);
    else if (event.type === 'stage') summary.stages.push(event);
    else if (event.type === 'validation') summary.validations.push(event);
  }
  // The gap monitor keeps the weights of its best step in `best-<step>`
  // (`best-000000`: the starting weights), written before the checkpoint that
  // records it, so a resumed run finds the best its state names.
  const bestPath = (step: number) => run.path(`best-${String(step).padStart(6, '0')}`);
  const saveBest = async (step: number): Promise<void> => {
    const temporary = `${bestPath(step)}.tmp-${process.pid}`;
    await rm(temporary, { recursive: true, force: true });
    const modelBeforeSave = clock.model;
    await policy.save({ directory: temporary });
    clock.model = modelBeforeSave;
    await rm(bestPath(step), { recursive: true, force: true });
    await rename(temporary, bestPath(step));
  };
  const pruneBest = async (keep: number): Promise<void> => {
    for (const name of await readdir(run.path('.'))) {
      if (/^best-\d{6}/.test(name) && name !== `best-${String(keep).padStart(6, '0')}`) await rm(run.path(name), { recursive: true, force: true });
    }
  };
  if (config.gapMonitor && resumedFrom === 0) await saveBest(0);

  const overlayFor = (): { overlay: InterfaceOverlay; hash: string; stage?: string } => {
    if (components.envTuning) {
      const stage = envTuningStages[state.curriculum.stage]!;
      return { ...envTuningOverlay({ stage }), stage: stage.name };
    }
    if (!components.interface) return { overlay: emptyOverlay, hash: emptyOverlayHash };
    const { overlay, hash } = evolveSealOverlay({
      tools,
      statistics: tagStatistics(capability.activeTagStats()),
      settings:
        options.interfaceSettings ??
        (config.overlays ? sealSettingsForModules({ modules: config.overlays, protocol: config.episode.protocol }) : undefined),
    });
    return { overlay, hash };
  };

  const evaluate = async (step: number): Promise<void> => {
    for (const set of options.evalSets ?? []) {
      options.onProgress?.({ type: 'eval-start', step, set: set.name, tasks: set.tasks.length });
      // Greedy and sampled evaluations share everything but the sampling.
      const common = {
        policy,
        tasks: set.tasks,
        backend: options.backend,
        verifier: options.verifier,
        protocol: config.episode.protocol,
        promptMode: config.episode.promptMode,
        maxTokens: config.sampling.maxTokens,
        limits: {
          maxModelCalls: config.episode.maxModelCalls,
          ...(config.episode.maxStepsPerTurn ? { maxStepsPerTurn: config.episode.maxStepsPerTurn } : {}),
          ...(config.episode.maxObservationTokens ? { maxObservationTokens: config.episode.maxObservationTokens } : {}),
        },
      };
      const evaluation = await evaluatePolicy({ ...common, seed: deriveSeed(config.seed, 0xe7a1, step), episodeIdPrefix: `${config.runId}:eval${step}:${set.name}` });
      let sampled: EvalEvent['sampled'];
      if (config.evalSamples > 0) {
        const samples = await evaluatePolicy({
          ...common,
          temperature: 1,
          samples: config.evalSamples,
          seed: deriveSeed(config.seed, 0xe7a2, step),
          episodeIdPrefix: `${config.runId}:eval${step}:${set.name}:sampled`,
        });
        sampled = { samples: config.evalSamples, temperature: 1, accuracy: samples.accuracy, taskSuccess: samples.taskSuccess };
      }
      const event: EvalEvent = {
        schemaVersion: 1,
        type: 'eval',
        step,
        set: set.name,
        accuracy: evaluation.accuracy,
        overall: evaluation.scores.overall,
        categories: evaluation.scores.categories,
        tagCounts: evaluation.tagCounts,
        overlayHash: emptyOverlayHash,
        taskSuccess: evaluation.taskSuccess,
        ...(sampled ? { sampled } : {}),
      };
      await run.writeJsonLines(run.evalEpisodesPath(step, set.name), evaluation.episodes.map((e) => e.record));
      await run.appendJsonLines(run.path('events.jsonl'), [event]);
      summary.evaluations.push(event);
      options.onProgress?.({ type: 'eval-end', step, set: set.name, evaluation });
    }
  };

  // Environment Tuning, after every step (and before the first): validation
  // on the held-out split every `validateEvery` steps, then the stage advance
  // on a plateau of its score or a spent step budget. The state goes into the
  // step's checkpoint; a resumed run drops the records of later steps.
  const advanceStage = async (step: number): Promise<void> => {
    if (!curriculum) return;
    let score: number | undefined;
    if (step % config.curriculum.validateEvery === 0) {
      const name = 'validation';
      options.onProgress?.({ type: 'eval-start', step, set: name, tasks: curriculum.validation.length });
      const evaluation = await evaluatePolicy({
        policy,
        tasks: curriculum.validation,
        backend: options.backend,
        verifier: options.verifier,
        protocol: config.episode.protocol,
        promptMode: config.episode.promptMode,
        maxTokens: config.sampling.maxTokens,
        seed: deriveSeed(config.seed, 0x7a11e, step),
        limits: {
          maxModelCalls: config.episode.maxModelCalls,
          ...(config.episode.maxStepsPerTurn ? { maxStepsPerTurn: config.episode.maxStepsPerTurn } : {}),
          ...(config.episode.maxObservationTokens ? { maxObservationTokens: config.episode.maxObservationTokens } : {}),
        },
        episodeIdPrefix: `${config.runId}:eval${step}:${name}`,
      });
      score = evaluation.accuracy;
      const validation: ValidationEvent = {
        schemaVersion: 1,
        type: 'validation',
        step,
        stage: envTuningStages[state.curriculum.stage]!.name,
        accuracy: evaluation.accuracy,
        tasks: curriculum.validation.length,
        taskSuccess: evaluation.taskSuccess,
      };
      await run.writeJsonLines(run.evalEpisodesPath(step, name), evaluation.episodes.map((e) => e.record));
      await run.appendJsonLines(run.path('events.jsonl'), [validation]);
      summary.validations.push(validation);
      options.onProgress?.({ type: 'eval-end', step, set: name, evaluation });
    }
    const before = state.curriculum;
    const next = advanceCurriculum({ state: before, step, ...(score === undefined ? {} : { score }), settings: curriculum.plateau });
    state = { ...state, curriculum: next };
    if (next.stage !== before.stage) {
      const change: StageEvent = {
        schemaVersion: 1,
        type: 'stage',
        step,
        from: envTuningStages[before.stage]!.name,
        to: envTuningStages[next.stage]!.name,
        reason: next.transitions.at(-1)?.reason ?? 'budget',
        ...(score === undefined ? {} : { validation: score }),
      };
      await run.appendJsonLines(run.path('events.jsonl'), [change]);
      summary.stages.push(change);
      options.onProgress?.({ type: 'stage', event: change });
    }
  };

  if (resumedFrom === 0) {
    await evaluate(0);
    await advanceStage(0);
  }

  for (let step = state.step + 1; step <= config.steps; step++) {
    if (options.signal?.aborted) break;
    options.onProgress?.({ type: 'step-start', step, steps: config.steps });
    const started = performance.now();
    clock.model = 0;
    const parts: Record<string, number> = {};
    const mark = (name: string, since: number) => {
      parts[name] = (parts[name] ?? 0) + performance.now() - since;
    };

    // Batch selection: a seeded shuffle per epoch, consecutive slices (drop_last).
    let t0 = performance.now();
    const stage = components.envTuning ? envTuningStages[state.curriculum.stage]! : undefined;
    const pool = stage && curriculum ? stageTasks(curriculum.train, stage.data) : [...options.trainTasks];
    const perEpoch = Math.max(1, Math.floor(pool.length / config.tasksPerStep));
    const epoch = Math.floor((step - 1) / perEpoch);
    const order = shuffleForEpoch(pool, config.seed, epoch);
    const offset = ((step - 1) % perEpoch) * config.tasksPerStep;
    const batch = order.slice(offset, offset + config.tasksPerStep);
    const { overlay, hash: overlayHash } = overlayFor();
    mark('evolve', t0);

    // Rollouts on the training interface; with frozenBaseline the reference
    // policy rolls out the same tasks with the same seeds at the same time.
    t0 = performance.now();
    const modelBefore = clock.model;
    const loopBefore = eventLoopUtilization?.();
    const rolloutsOf = (rolloutPolicy: PolicyV1, { baseline }: { baseline: boolean }): Promise<Rollout[]> =>
      runRollouts({
        policy: rolloutPolicy,
        tasks: batch,
        groupSize: config.groupSize,
        sampling: {
          maxTokens: config.sampling.maxTokens,
          temperature: config.sampling.temperature,
          topP: config.sampling.topP,
          topK: config.sampling.topK,
          seed: deriveSeed(config.seed, step),
        },
        createEpisode: ({ task, index }) =>
          createEpisode({
            task,
            backend: options.backend,
            protocol: config.episode.protocol,
            promptMode: config.episode.promptMode,
            mode: 'train',
            overlay,
            limits: {
              maxModelCalls: config.episode.maxModelCalls,
              ...(config.episode.maxStepsPerTurn ? { maxStepsPerTurn: config.episode.maxStepsPerTurn } : {}),
              ...(config.episode.maxObservationTokens ? { maxObservationTokens: config.episode.maxObservationTokens } : {}),
              // Environment Tuning's training environment moves on after the per-turn attempt cap.
              ...(curriculum ? { maxAttemptsPerTurn: config.curriculum.maxAttemptsPerTurn } : {}),
            },
            episodeId: `${config.runId}:s${step}:${baseline ? 'baseline:' : ''}${task.id}:${index}`,
            stamps: { policyStep: baseline ? 0 : step - 1, verifierVersion: options.verifier.verifierId, seed: config.seed, runId: config.runId },
          }),
        ...(baseline ? {} : { onRound: ({ active, total }: { active: number; total: number }) => options.onProgress?.({ type: 'rollout-round', step, active, total }) }),
      });
    const [rollouts, baselineRollouts] = await Promise.all([
      rolloutsOf(policy, { baseline: false }),
      config.frozenBaseline && referencePolicy ? rolloutsOf(referencePolicy, { baseline: true }) : Promise.resolve(undefined),
    ]);
    // The environment's work (episodes, parsing, execution, context assembly)
    // runs on this thread while the policies generate in their workers, so it
    // is this thread's busy time; the rest of the phase is waiting for the
    // model. Two policies generating at once overlap each other and this
    // thread's work, which is why their summed call times cannot be used.
    const rolloutWall = performance.now() - t0;
    const environment =
      loopBefore === undefined
        ? Math.max(0, rolloutWall - (clock.model - modelBefore))
        : Math.min(rolloutWall, eventLoopUtilization!(loopBefore).active);
    clock.model = modelBefore + rolloutWall - environment;
    parts['environment'] = environment;

    // Verification and diagnosis.
    t0 = performance.now();
    const verdicts = rollouts.map((rollout) => options.verifier.verifySync({ task: rollout.task, record: rollout.record }));
    // The baseline's verdicts, by task and sample index (its episodes may finish in another order).
    const baselineSuccess = new Map<string, boolean>();
    for (const rollout of baselineRollouts ?? []) {
      baselineSuccess.set(`${rollout.task.id}#${rollout.index}`, options.verifier.verifySync({ task: rollout.task, record: rollout.record }).official.valid);
    }
    mark('verify', t0);
    const rewards = verdicts.map((verdict) => {
      if (!stage) return verdict.rewards.binary + config.progressWeight * verdict.rewards.progress;
      return stage.reward === 'format' ? verdict.rewards.format / 2 : verdict.rewards.progress;
    });
    const tags = verdicts.map((verdict) => verdict.turns.map((turn) => turn.tag));
    t0 = performance.now();
    rollouts.forEach((rollout, i) => {
      capability.observe({ taskId: rollout.task.id, category: rollout.task.category, reward: rewards[i]!, tags: tags[i]!, step });
    });
    mark('diagnose', t0);

    // Advantages: GRPO, then the closed-loop ρ update and A-Patch.
    t0 = performance.now();
    const groups = rollouts.map((rollout) => rollout.group);
    let advantages = grpoAdvantages({ rewards, groups });
    let tagWeights: Record<string, number> = { ...defaultTagWeights };
    if (components.reweight) {
      if (components.closedLoop) {
        tagWeights = updateDynamicTagWeights({
          base: defaultTagWeights,
          previous: capability.dynamicTagWeights,
          statistics: tagStatistics(capability.activeTagStats()),
        });
        capability.setDynamicTagWeights(tagWeights);
      }
      advantages = applyAPatch({ advantages, tags, weights: tagWeights }).advantages;
    }
    const dropped = config.dynamicSampling ? zeroVarianceGroups({ rewards, groups }) : new Set<string>();
    const kept = rollouts.map((_, i) => i).filter((i) => !dropped.has(groups[i]!) && rollouts[i]!.generatedMask.some((m) => m > 0));
    const keptSet = new Set(kept);
    mark('advantages', t0);

    // The policy update: old and reference log-probabilities from the score
    // graph, then PPO over mini-batches with per-trajectory token means. All
    // three use the sampling temperature (as verl does): the policy being
    // optimised is the one the rollouts were drawn from, softmax(logits / T).
    const trainResults: PolicyV1TrainResult[] = [];
    if (kept.length > 0 && kept.some((i) => advantages[i] !== 0)) {
      const sequences = kept.map((i) => rollouts[i]!.tokenIds);
      const temperature = config.sampling.temperature > 0 ? config.sampling.temperature : 1;
      const old = await policy.score({ sequences, temperature });
      const ref = config.ppo.klCoef > 0 && referencePolicy ? await referencePolicy.score({ sequences, temperature }) : undefined;
      t0 = performance.now();
      const miniBatches = Math.min(config.optimizerStepsPerStep, kept.length);
      const batches: PolicyV1TrainSequence[][] = Array.from({ length: miniBatches }, () => []);
      kept.forEach((rolloutIndex, k) => {
        const rollout = rollouts[rolloutIndex]!;
        const masked = rollout.generatedMask.reduce((a, b) => a + b, 0);
        const target = batches[k % miniBatches]!;
        target.push({
          tokenIds: rollout.tokenIds,
          // Filled below once the mini-batch size is known.
          tokenWeights: rollout.generatedMask.map((m) => (masked > 0 ? m / masked : 0)),
          advantages: rollout.generatedMask.map(() => advantages[rolloutIndex]!),
          oldLogprobs: [...old.logprobs[k]!],
          ...(ref ? { refLogprobs: [...ref.logprobs[k]!] } : {}),
        });
      });
      for (const miniBatch of batches) for (const sequence of miniBatch) sequence.tokenWeights = sequence.tokenWeights.map((w) => w / miniBatch.length);
      mark('bookkeeping', t0);
      // PPO epochs: each pass goes over every mini-batch again against the
      // same old log-probabilities (the clip bounds how far the policy moves).
      for (let epoch = 0; epoch < config.ppo.epochs; epoch++) {
        for (const miniBatch of batches) {
          if (miniBatch.length === 0) continue;
          trainResults.push(
            await policy.train({
              objective: 'ppo',
              sequences: miniBatch,
              options: {
                learningRate: config.ppo.learningRate * (state.gapMonitor?.learningRateScale ?? 1) * warmupFactor(step, config.ppo.warmupSteps),
                clipLow: config.ppo.clipLow,
                clipHigh: config.ppo.clipHigh,
                dualClipC: config.ppo.dualClipC,
                klCoef: config.ppo.klCoef,
                maxGradNorm: config.ppo.maxGradNorm,
                weightDecay: config.ppo.weightDecay,
                embeddingLearningRateScale: config.ppo.embeddingLearningRateScale,
                temperature,
              },
            }),
          );
        }
      }
    }

    // Bookkeeping: records, events, the capability state and checkpoints.
    t0 = performance.now();
    if (config.keepEpisodes) await run.writeJsonLines(run.episodesPath(step), rollouts.map((r) => r.record));
    if (config.keepEpisodes && baselineRollouts) await run.writeJsonLines(run.baselineEpisodesPath(step), baselineRollouts.map((r) => r.record));
    const tagCounts: Record<string, number> = {};
    for (const list of tags) for (const tag of list) tagCounts[tag] = (tagCounts[tag] ?? 0) + 1;
    const mean = (values: number[]) => (values.length === 0 ? 0 : values.reduce((a, b) => a + b, 0) / values.length);
    const applied = trainResults.filter((r) => !r.skipped);
    const event: TrainStepEvent = {
      schemaVersion: 1,
      type: 'train-step',
      step,
      method: config.method,
      rewardMean: mean(rewards),
      successRate: mean(verdicts.map((v) => (v.official.valid ? 1 : 0))),
      tagCounts,
      loss: mean(applied.map((r) => r.loss)),
      gradNorm: mean(applied.map((r) => r.gradNorm)),
      kl: mean(applied.map((r) => r.metrics.kl)),
      clipFraction: mean(applied.map((r) => r.metrics.clipFraction)),
      skippedUpdates: trainResults.length - applied.length,
      droppedGroups: dropped.size,
      overlayHash,
      tagWeights,
      ...(stage ? { curriculumStage: stage.name } : {}),
      ...(baselineRollouts ? { baselineSuccessRate: mean([...baselineSuccess.values()].map((ok) => (ok ? 1 : 0))) } : {}),
      timing: { model: 0, other: 0, total: 0, parts },
      samples: rollouts.map((rollout, i) => ({
        episodeId: rollout.record.episodeId,
        taskId: rollout.task.id,
        success: verdicts[i]!.official.valid,
        reward: rewards[i]!,
        advantage: keptSet.has(i) ? advantages[i]! : 0,
        tags: tags[i]!,
        ...(baselineRollouts ? { baselineSuccess: baselineSuccess.get(`${rollout.task.id}#${rollout.index}`) ?? false } : {}),
      })),
    };
    await run.appendJsonLines(run.path('overlays.jsonl'), [{ step, hash: overlayHash, overlay }]);
    // Window statistics reset at each epoch end.
    const epochEnd = step % perEpoch === 0;
    if (epochEnd) capability.resetWindow();
    await saveCapabilityState({ state: capability, path: capabilityPath });
    state = { ...state, step };
    mark('bookkeeping', t0);
    const checkpointDue = step % config.checkpointEvery === 0 || step === config.steps;
    if (checkpointDue) {
      // Writing weights is I/O, not model compute: it is counted as checkpoint time.
      t0 = performance.now();
      const modelBeforeSave = clock.model;
      await policy.save({ directory: run.checkpointPath(step) });
      clock.model = modelBeforeSave;
      parts['checkpoint'] = performance.now() - t0;
    }
    const totalWithSave = performance.now() - started;
    event.timing = { model: clock.model, other: totalWithSave - clock.model, total: totalWithSave, parts };
    await run.appendJsonLines(run.path('events.jsonl'), [event]);
    summary.steps.push(event);
    options.onProgress?.({ type: 'step-end', step, steps: config.steps, event });

    // The gap monitor: the paired gain over the frozen warm start on this
    // step's tasks and seeds decides whether to keep or restore weights.
    if (config.gapMonitor && state.gapMonitor && event.baselineSuccessRate !== undefined) {
      const observed = observeGap({ state: state.gapMonitor, step, gain: event.successRate - event.baselineSuccessRate, settings: config.gapMonitor });
      state = { ...state, gapMonitor: observed.state };
      if (observed.decision.action === 'continue' && observed.decision.newBest) {
        await saveBest(step);
      } else if (observed.decision.action === 'rollback') {
        const modelBeforeLoad = clock.model;
        await policy.load({ directory: bestPath(observed.decision.toStep) });
        clock.model = modelBeforeLoad;
        const rollback: RollbackEvent = {
          schemaVersion: 1,
          type: 'rollback',
          step,
          toStep: observed.decision.toStep,
          windowGain: observed.decision.windowGain,
          learningRate: config.ppo.learningRate * observed.decision.learningRateScale,
        };
        await run.appendJsonLines(run.path('events.jsonl'), [rollback]);
        summary.rollbacks.push(rollback);
        options.onProgress?.({ type: 'rollback', event: rollback });
        if (checkpointDue) {
          // The checkpoint of this step holds the restored weights.
          await policy.save({ directory: run.checkpointPath(step) });
        }
      }
    }

    if ((config.evalEvery > 0 && step % config.evalEvery === 0) || step === config.steps) await evaluate(step);
    await advanceStage(step);
    // The checkpoint is marked last: a crash before this line redoes the whole
    // step (deterministically) after dropping what it had written.
    if (checkpointDue) {
      const directory = run.checkpointPath(step);
      await writeJsonAtomic(`${directory}/trainer-state.json`, state);
      await saveCapabilityState({ state: capability, path: `${directory}/capability_state.json` });
      await run.markLatestCheckpoint(step);
      await run.pruneCheckpoints(2);
      if (state.gapMonitor) await pruneBest(state.gapMonitor.bestStep);
    }
  }
  return summary;
}

/** Settings a continuation may change: how long it runs and how often it evaluates and saves. */
const continuationFields: ReadonlySet<string> = new Set(['steps', 'evalEvery', 'checkpointEvery', 'keepEpisodes', 'frozenBaseline', 'evalSamples']);

/**
 * Refuses to resume a checkpoint recorded under another configuration (other
 * starting weights, method, seed, batch or optimiser settings): continuing it
 * would silently mix two runs.
 */
async function assertResumable({ runDirectory, path, config }: { runDirectory: string; path: string; config: TrainConfig }): Promise<void> {
  let previous: TrainConfig;
  try {
    previous = trainConfigSchema.parse(JSON.parse(await readFile(path, 'utf8')));
  } catch (error) {
    throw new SealError({
      code: 'INVALID_STATE',
      message: `${runDirectory} has a checkpoint but no readable config.json; start the run over or pick another run directory`,
      cause: error,
    });
  }
  const changed = Object.keys({ ...previous, ...config }).filter(
    (key) =>
      !continuationFields.has(key) &&
      JSON.stringify(previous[key as keyof TrainConfig]) !== JSON.stringify(config[key as keyof TrainConfig]),
  );
  if (changed.length > 0) {
    throw new SealError({
      code: 'INVALID_STATE',
      message: `${runDirectory} holds a run with another configuration (${changed.join(', ')} differ); start it over or pick another run directory`,
      details: { changed },
    });
  }
}

/** The share of the learning rate training step `step` (1-based) uses under a linear warm-up of `warmupSteps` steps. */
export function warmupFactor(step: number, warmupSteps: number): number {
  return warmupSteps <= 0 ? 1 : Math.min(1, step / warmupSteps);
}

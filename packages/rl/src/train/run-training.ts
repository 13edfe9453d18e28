import { performance } from 'node:perf_hooks';
import { saveCapabilityState } from '@seal/diagnose';
import { envTuningStages } from '@seal/evolve';
import {
  SealError,
  parseWithSchema,
  type Task,
  type TrainerState,
} from '@seal/spec';
import {
  methodComponents,
  trainConfigSchema,
  type MethodComponents,
  type TrainConfig,
} from '../config/train-config';
import { RunDirectory, writeJsonAtomic } from '../run/run-directory';
import {
  checkTaskMix,
  mixPool,
  scheduleBatch,
  stageTasks,
} from './batch-schedule';
import { BestWeights, watchGap } from './best-weights';
import { advanceStage, planCurriculum } from './curriculum-stage';
import {
  dynamicSamplingOf,
  refillBatch,
  refillStream,
} from './dynamic-sampling';
import { checkInitialEvaluations, evaluateSets } from './periodic-evaluation';
import { updatePolicy } from './ppo-update';
import { resumeTraining } from './resume-training';
import { stepAdvantages } from './step-advantages';
import { StepClock, timed, untimed, type ModelClock } from './step-clock';
import { trainStepEvent } from './step-event';
import {
  mergeOutcomes,
  verifyOutcomes,
  type StepOutcomes,
} from './step-outcomes';
import { stepOverlay, unionTools } from './step-overlay';
import { rolloutStep } from './step-rollouts';
import {
  bfclTrainingEnvironment,
  type TrainingEnvironment,
} from './training-environment';
import type { RunTrainingOptions, TrainSummary } from './train-types';

export type {
  EvalSet,
  RunTrainingOptions,
  TrainProgress,
  TrainSummary,
} from './train-types';
export { warmupFactor } from './ppo-update';

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
export async function runTraining(
  options: RunTrainingOptions,
): Promise<TrainSummary> {
  const config = parseWithSchema({
    schema: trainConfigSchema,
    value: options.config,
    source: 'train config',
  });
  const components = methodComponents(config.method);
  const environment = trainingEnvironmentOf(options);
  assertRunnable({ config, components, options, environment });
  const evalSets = options.evalSets ?? [];
  const initialEvaluations = options.initialEvaluations
    ? checkInitialEvaluations({
        events: options.initialEvaluations,
        evalSets,
        evalSamples: config.evalSamples,
      })
    : undefined;
  const curriculum = components.envTuning
    ? planCurriculum({ config, trainTasks: options.trainTasks })
    : undefined;
  const run = new RunDirectory(options.runDirectory);
  await run.ensure();
  const clock: ModelClock = { model: 0 };
  const policy = timed(options.policy, clock);
  const referencePolicy = options.referencePolicy
    ? timed(options.referencePolicy, clock, 'reference.')
    : undefined;
  const capabilityPath = run.file('capabilityState');
  const { onProgress } = options;

  const start = await resumeTraining({
    run,
    runDirectory: options.runDirectory,
    config,
    policy,
    trainTasks: options.trainTasks,
    evalSets,
  });
  let state: TrainerState = start.state;
  const { capability, summary, resumedFrom } = start;
  const tools = unionTools(options.trainTasks);
  const best = new BestWeights(run, policy, clock);
  if (config.gapMonitor && resumedFrom === 0) await best.save(0);

  // Each step and each evaluation starts from empty caches, as after a
  // resume: cached prefixes change the rounding of later prefills, and a
  // resumed run must replay the uninterrupted one bit for bit.
  const resetCaches = async (): Promise<void> => {
    await policy.resetCache?.();
    await referencePolicy?.resetCache?.();
  };
  const evaluate = async (step: number): Promise<void> => {
    await resetCaches();
    await evaluateSets({
      step,
      evalSets,
      config,
      policy,
      environment,
      run,
      summary,
      onProgress,
    });
  };
  const advance = async (step: number): Promise<void> => {
    if (!curriculum) return;
    state = await advanceStage({
      step,
      plan: curriculum,
      state,
      config,
      policy,
      // Environment Tuning runs on BFCL only (assertRunnable).
      backend: environment.v1!.backend,
      verifier: environment.v1!.verifier,
      run,
      summary,
      onProgress,
    });
  };

  if (resumedFrom === 0) {
    if (initialEvaluations) {
      // Measured once for this warm start and seed (a study's arms share it).
      await run.appendJsonLines(run.file('events'), initialEvaluations);
      summary.evaluations.push(...initialEvaluations);
    } else {
      await evaluate(0);
    }
    await advance(0);
  }

  for (let step = state.step + 1; step <= config.steps; step++) {
    if (options.signal?.aborted) break;
    onProgress?.({ type: 'step-start', step, steps: config.steps });
    await resetCaches();
    const stepClock = new StepClock(clock);
    const mark = (name: string, since: number) => stepClock.mark(name, since);

    // Batch selection, then the step's interface.
    let t0 = performance.now();
    const stage = components.envTuning
      ? envTuningStages[state.curriculum.stage]!
      : undefined;
    const staged =
      stage && curriculum
        ? stageTasks(curriculum.train, stage.data)
        : [...options.trainTasks];
    // A task mix trains on its weighted categories only (the refill's too).
    const pool =
      config.taskMix === undefined ? staged : mixPool(staged, config.taskMix);
    const { batch, perEpoch } = scheduleBatch({ step, config, pool });
    const { overlay, hash: overlayHash } = stepOverlay({
      components,
      state,
      tools,
      capability,
      config,
      interfaceSettings: options.interfaceSettings,
    });
    mark('evolve', t0);

    // Rollouts on the training interface; with frozenBaseline the reference
    // policy rolls out the same tasks with the same seeds at the same time.
    // Then verification and the training rewards.
    const play = async (
      tasks: readonly Task[],
      round: number,
    ): Promise<StepOutcomes> => {
      const { rollouts, baselineRollouts } = await stepClock.rollouts(() =>
        rolloutStep({
          step,
          round,
          batch: tasks,
          overlay,
          config,
          policy,
          baselinePolicy: config.frozenBaseline ? referencePolicy : undefined,
          environment,
          attemptCap: curriculum !== undefined,
          onProgress,
        }),
      );
      const started = performance.now();
      const outcomes = await verifyOutcomes({
        rollouts,
        baselineRollouts,
        environment,
        config,
        stageReward: stage?.reward,
      });
      mark('verify', started);
      return outcomes;
    };
    const scheduled = await play(batch, 0);
    // Dynamic sampling's refill: groups without gradient are replaced by
    // fresh groups of further tasks (a seeded order fixed by the step).
    const dynamic = dynamicSamplingOf(config);
    const refill =
      dynamic && dynamic.maxRefillRounds > 0
        ? await refillBatch({
            first: scheduled,
            target: batch.length,
            stream: refillStream({
              seed: config.seed,
              step,
              pool,
              scheduled: batch,
            }),
            maxRefillRounds: dynamic.maxRefillRounds,
            turnCredit: config.turnAdvantageWeight > 0,
            draw: play,
          })
        : undefined;
    const {
      rollouts,
      baselineRollouts,
      verdicts,
      rewards,
      turnRewards,
      baselineSuccess,
    } = refill ? mergeOutcomes(refill.parts) : scheduled;
    const tags = verdicts.map((verdict) =>
      verdict.turns.map((turn) => turn.tag),
    );
    t0 = performance.now();
    rollouts.forEach((rollout, i) => {
      capability.observe({
        taskId: rollout.task.id,
        category: rollout.task.category,
        reward: rewards[i]!,
        tags: tags[i]!,
        step,
      });
    });
    mark('diagnose', t0);

    // Advantages: GRPO, then the closed-loop ρ update and A-Patch.
    t0 = performance.now();
    const advantages = stepAdvantages({
      rollouts,
      rewards,
      tags,
      turnRewards,
      components,
      capability,
      config,
    });
    mark('advantages', t0);

    const trainResults = await updatePolicy({
      step,
      rollouts,
      kept: advantages.kept,
      advantages: advantages.advantages,
      ...(advantages.tokenAdvantages
        ? { tokenAdvantages: advantages.tokenAdvantages }
        : {}),
      config,
      policy,
      referencePolicy,
      learningRateScale: state.gapMonitor?.learningRateScale ?? 1,
      mark,
    });

    // Bookkeeping: records, events, the capability state and checkpoints.
    t0 = performance.now();
    if (config.keepEpisodes) {
      await run.writeJsonLines(
        run.episodesPath(step),
        rollouts.map((r) => r.record),
      );
    }
    if (config.keepEpisodes && baselineRollouts) {
      await run.writeJsonLines(
        run.baselineEpisodesPath(step),
        baselineRollouts.map((r) => r.record),
      );
    }
    const event = trainStepEvent({
      step,
      config,
      rollouts,
      verdicts,
      rewards,
      tags,
      advantages,
      trainResults,
      overlayHash,
      stage: stage?.name,
      baselineSuccess: baselineRollouts ? baselineSuccess : undefined,
      ...(dynamic?.recorded
        ? {
            refill: {
              refilledGroups: refill?.refilledGroups ?? 0,
              rounds: refill?.rounds ?? 0,
            },
          }
        : {}),
    });
    await run.appendJsonLines(run.file('overlays'), [
      { step, hash: overlayHash, overlay },
    ]);
    // Window statistics reset at each epoch end.
    const epochEnd = step % perEpoch === 0;
    if (epochEnd) capability.resetWindow();
    await saveCapabilityState({ state: capability, path: capabilityPath });
    state = { ...state, step };
    mark('bookkeeping', t0);
    const checkpointDue =
      step % config.checkpointEvery === 0 || step === config.steps;
    if (checkpointDue) {
      // Writing weights is I/O, not model compute: it is counted as checkpoint time.
      t0 = performance.now();
      await untimed(clock, () =>
        policy.save({ directory: run.checkpointPath(step) }),
      );
      stepClock.parts['checkpoint'] = performance.now() - t0;
    }
    event.timing = stepClock.timing();
    await run.appendJsonLines(run.file('events'), [event]);
    summary.steps.push(event);
    onProgress?.({ type: 'step-end', step, steps: config.steps, event });

    state = await watchGap({
      step,
      event,
      state,
      config,
      best,
      policy,
      clock,
      run,
      checkpointDue,
      summary,
      onProgress,
    });

    if (
      (config.evalEvery > 0 && step % config.evalEvery === 0) ||
      step === config.steps
    ) {
      await evaluate(step);
    }
    await advance(step);
    // The checkpoint is marked last: a crash before this line redoes the whole
    // step (deterministically) after dropping what it had written.
    if (checkpointDue) {
      await writeJsonAtomic(run.checkpointFile(step, 'trainerState'), state);
      await saveCapabilityState({
        state: capability,
        path: run.checkpointFile(step, 'capabilityState'),
      });
      await run.markLatestCheckpoint(step);
      await run.pruneCheckpoints(2);
      if (state.gapMonitor) await best.prune(state.gapMonitor.bestStep);
    }
  }
  return summary;
}

/**
 * The run's dispatch: `options.environment`, or BFCL's backend and verifier
 * through {@link bfclTrainingEnvironment}.
 */
function trainingEnvironmentOf(
  options: RunTrainingOptions,
): TrainingEnvironment {
  if (options.environment) return options.environment;
  if (!options.backend || !options.verifier)
    throw new SealError({
      code: 'INVALID_ARGUMENT',
      message:
        'runTraining needs an environment, or a backend and a verifier (BFCL)',
    });
  return bfclTrainingEnvironment({
    backend: options.backend,
    verifier: options.verifier,
  });
}

/** Refuses settings the run cannot honour, before the run directory is touched. */
function assertRunnable({
  config,
  components,
  options,
  environment,
}: {
  config: TrainConfig;
  components: MethodComponents;
  options: RunTrainingOptions;
  environment: TrainingEnvironment;
}): void {
  if (components.envTuning && !environment.v1) {
    throw new SealError({
      code: 'INVALID_ARGUMENT',
      message: `method envtuning runs on BFCL's classes only (its curriculum validates with BFCL's verifier); environment ${environment.environmentId} takes seal, grpo, no-env, no-reweight or no-loop`,
    });
  }
  if (config.taskMix !== undefined) {
    if (components.envTuning)
      throw new SealError({
        code: 'INVALID_ARGUMENT',
        message:
          "taskMix does not combine with method envtuning (its curriculum chooses each stage's tasks)",
      });
    // Its categories and their sizes, checked before anything is written.
    checkTaskMix({
      tasks: options.trainTasks,
      mix: config.taskMix,
      tasksPerStep: config.tasksPerStep,
    });
  }
  if (config.ppo.klCoef > 0 && !options.referencePolicy) {
    throw new SealError({
      code: 'INVALID_ARGUMENT',
      message:
        'ppo.klCoef > 0 needs a referencePolicy (a frozen copy of the starting weights)',
    });
  }
  if (config.frozenBaseline && !options.referencePolicy) {
    throw new SealError({
      code: 'INVALID_ARGUMENT',
      message:
        'frozenBaseline needs a referencePolicy (the frozen starting weights it rolls out)',
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
      message:
        'gapMonitor needs frozenBaseline: the gain it watches is the policy against the frozen warm start on the same tasks',
    });
  }
  if (dynamicSamplingOf(config) && config.groupSize < 2) {
    throw new SealError({
      code: 'INVALID_ARGUMENT',
      message: `dynamicSampling needs groups of at least 2 rollouts (groupSize is ${config.groupSize}): a group of one has no spread to tell apart`,
    });
  }
  if (options.trainTasks.length === 0) {
    throw new SealError({
      code: 'INVALID_ARGUMENT',
      message: 'no training tasks',
    });
  }
}

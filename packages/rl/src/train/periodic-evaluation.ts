import { emptyOverlayHash } from '@seal/env';
import { SealError, type EvalEvent, type PolicyV1 } from '@seal/spec';
import type { TrainConfig } from '../config/train-config';
import { evaluatePolicy } from '../evaluate/evaluate-policy';
import { deriveSeed } from '../rollout/run-rollouts';
import type { RunDirectory } from '../run/run-directory';
import type { TrainingEnvironment } from './training-environment';
import {
  episodeLimits,
  type EvalSet,
  type TrainProgress,
  type TrainSummary,
} from './train-types';

/**
 * Evaluates the policy on every evaluation set on the untouched interface
 * (greedy, plus `evalSamples` sampled runs per task when asked), and records
 * each set's episodes and eval event.
 */
export async function evaluateSets({
  step,
  evalSets,
  config,
  policy,
  environment,
  run,
  summary,
  onProgress,
}: {
  step: number;
  evalSets: readonly EvalSet[];
  config: TrainConfig;
  policy: PolicyV1;
  environment: TrainingEnvironment;
  run: RunDirectory;
  summary: TrainSummary;
  onProgress: ((progress: TrainProgress) => void) | undefined;
}): Promise<void> {
  for (const set of evalSets) {
    onProgress?.({
      type: 'eval-start',
      step,
      set: set.name,
      tasks: set.tasks.length,
    });
    // Greedy and sampled evaluations share everything but the sampling.
    // Every evaluation point draws from the same sampling streams (those of
    // step 0; common random numbers): a policy that did not change gets the
    // same verdicts again, so a paired before/after or arm-vs-arm difference
    // carries the change of the policy, not fresh sampling noise
    // (decision 0030).
    const common = {
      policy,
      tasks: set.tasks,
      environment,
      protocol: config.episode.protocol,
      promptMode: config.episode.promptMode,
      maxTokens: config.sampling.maxTokens,
      limits: episodeLimits(config),
    };
    const evaluation = await evaluatePolicy({
      ...common,
      seed: deriveSeed(config.seed, 0xe7a1, 0),
      episodeIdPrefix: `${config.runId}:eval${step}:${set.name}`,
    });
    let sampled: EvalEvent['sampled'];
    if (config.evalSamples > 0) {
      const samples = await evaluatePolicy({
        ...common,
        temperature: 1,
        samples: config.evalSamples,
        seed: deriveSeed(config.seed, 0xe7a2, 0),
        episodeIdPrefix: `${config.runId}:eval${step}:${set.name}:sampled`,
      });
      sampled = {
        samples: config.evalSamples,
        temperature: 1,
        accuracy: samples.accuracy,
        taskSuccess: samples.taskSuccess,
      };
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
    await run.writeJsonLines(
      run.evalEpisodesPath(step, set.name),
      evaluation.episodes.map((e) => e.record),
    );
    await run.appendJsonLines(run.file('events'), [event]);
    summary.evaluations.push(event);
    onProgress?.({ type: 'eval-end', step, set: set.name, evaluation, event });
  }
}

/**
 * Checks step-0 evaluations measured elsewhere (the same warm start, seed and
 * evaluation settings; `RunTrainingOptions.initialEvaluations`) against the
 * run's evaluation sets and `evalSamples`, and returns them in the sets'
 * order. Runs before the run directory is touched.
 */
export function checkInitialEvaluations({
  events,
  evalSets,
  evalSamples,
}: {
  events: readonly EvalEvent[];
  evalSets: readonly EvalSet[];
  evalSamples: number;
}): EvalEvent[] {
  const refuse = (reason: string): never => {
    throw new SealError({
      code: 'INVALID_ARGUMENT',
      message: `initialEvaluations: ${reason}`,
    });
  };
  if (events.length !== evalSets.length) {
    refuse(`${events.length} events for ${evalSets.length} evaluation sets`);
  }
  return evalSets.map((set) => {
    const event = events.find((e) => e.set === set.name);
    if (!event) return refuse(`no event for evaluation set ${set.name}`);
    if (event.step !== 0) {
      refuse(`the event for ${set.name} is from step ${event.step}, not 0`);
    }
    const ids = Object.keys(event.taskSuccess ?? {}).sort();
    const expected = set.tasks.map((task) => task.id).sort();
    if (JSON.stringify(ids) !== JSON.stringify(expected)) {
      refuse(`the event for ${set.name} covers other tasks than the set`);
    }
    const samples = event.sampled?.samples ?? 0;
    if (samples !== evalSamples) {
      refuse(
        `the event for ${set.name} has ${samples} sampled runs per task; evalSamples is ${evalSamples}`,
      );
    }
    return event;
  });
}

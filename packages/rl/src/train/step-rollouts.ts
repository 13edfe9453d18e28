import type { InterfaceOverlay, PolicyV1, Task } from '@seal/spec';
import type { TrainConfig } from '../config/train-config';
import { runRollouts, type Rollout } from '../rollout/run-rollouts';
import { stepSamplingSeed } from './dynamic-sampling';
import type { TrainingEnvironment } from './training-environment';
import { episodeLimits, type TrainProgress } from './train-types';

/**
 * The group rollouts of training step `step` on the training interface;
 * with a `baselinePolicy` (the frozen warm start) it rolls out the same tasks
 * with the same seeds at the same time. Every episode is stamped with the
 * policy step, the verifier version, the seed and the run. `round` 0 is the
 * scheduled batch; dynamic sampling's refill rounds (1, 2, ...) sample with
 * seeds of their own.
 */
export async function rolloutStep({
  step,
  round = 0,
  batch,
  overlay,
  config,
  policy,
  baselinePolicy,
  environment,
  attemptCap,
  onProgress,
}: {
  step: number;
  /** 0: the scheduled batch; r ≥ 1: dynamic sampling's r-th refill. */
  round?: number;
  batch: readonly Task[];
  overlay: InterfaceOverlay;
  config: TrainConfig;
  policy: PolicyV1;
  baselinePolicy: PolicyV1 | undefined;
  /** Where the episodes run and what stamps them (BFCL's backend and verifier, or a v2 environment). */
  environment: TrainingEnvironment;
  /** Environment Tuning's training environment moves on after the per-turn attempt cap. */
  attemptCap: boolean;
  onProgress: ((progress: TrainProgress) => void) | undefined;
}): Promise<{ rollouts: Rollout[]; baselineRollouts: Rollout[] | undefined }> {
  const rolloutsOf = (
    rolloutPolicy: PolicyV1,
    { baseline }: { baseline: boolean },
  ): Promise<Rollout[]> =>
    runRollouts({
      policy: rolloutPolicy,
      tasks: batch,
      groupSize: config.groupSize,
      sampling: {
        maxTokens: config.sampling.maxTokens,
        temperature: config.sampling.temperature,
        topP: config.sampling.topP,
        topK: config.sampling.topK,
        seed: stepSamplingSeed({ seed: config.seed, step, round }),
      },
      createEpisode: ({ task, index }) =>
        environment.createEpisode({
          task,
          protocol: config.episode.protocol,
          promptMode: config.episode.promptMode,
          mode: 'train',
          overlay,
          limits: {
            ...episodeLimits(config),
            ...(attemptCap
              ? { maxAttemptsPerTurn: config.curriculum.maxAttemptsPerTurn }
              : {}),
          },
          episodeId: `${config.runId}:s${step}:${baseline ? 'baseline:' : ''}${task.id}:${index}`,
          stamps: {
            policyStep: baseline ? 0 : step - 1,
            verifierVersion: environment.verifierId,
            seed: config.seed,
            runId: config.runId,
          },
        }),
      ...(baseline
        ? {}
        : {
            onRound: ({ active, total }: { active: number; total: number }) =>
              onProgress?.({ type: 'rollout-round', step, active, total }),
          }),
    });
  const [rollouts, baselineRollouts] = await Promise.all([
    rolloutsOf(policy, { baseline: false }),
    baselinePolicy
      ? rolloutsOf(baselinePolicy, { baseline: true })
      : Promise.resolve(undefined),
  ]);
  return { rollouts, baselineRollouts };
}

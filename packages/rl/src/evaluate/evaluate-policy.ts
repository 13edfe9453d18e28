import type { EpisodeLimits, PromptMode, ProtocolName } from '@seal/env';
import type {
  EpisodeRecord,
  PolicyV1,
  SyncVerifierV1,
  Task,
  ToolBackendV1,
  VerifierV1Result,
} from '@seal/spec';
import type { BfclScores } from '@seal/verifier';
import { runRollouts } from '../rollout/run-rollouts';
import {
  bfclTrainingEnvironment,
  type LoopVerdict,
  type TrainingEnvironment,
} from '../train/training-environment';

/** One evaluated episode. */
export type EvaluatedEpisode<V extends LoopVerdict = VerifierV1Result> = {
  task: Task;
  record: EpisodeRecord;
  result: V;
};

/** The outcome of {@link evaluatePolicy}. */
export type PolicyEvaluation<V extends LoopVerdict = VerifierV1Result> = {
  /**
   * Accuracy per category and the overall: BFCL's accounting (the
   * multi-turn overall) on BFCL; a v2 environment's own categories pooled.
   */
  scores: BfclScores;
  /** Mean accuracy over the episodes (all categories pooled). */
  accuracy: number;
  /** Tag counts over all turns. */
  tagCounts: Record<string, number>;
  episodes: EvaluatedEpisode<V>[];
  /** Per task id, the share of its episodes that succeeded (0 or 1 with one sample). */
  taskSuccess: Record<string, number>;
};

/** Where {@link evaluatePolicy} runs its episodes: BFCL's backend and verifier, or any training environment. */
export type EvaluationTarget<V extends LoopVerdict> =
  | {
      backend: ToolBackendV1;
      verifier: SyncVerifierV1;
      environment?: undefined;
    }
  | {
      environment: TrainingEnvironment<V>;
      backend?: undefined;
      verifier?: undefined;
    };

/**
 * Evaluates a policy on the untouched interface: eval mode (the empty
 * overlay), one greedy episode per task by default, verified with BFCL's
 * official rules (or the environment's verifier).
 */
export async function evaluatePolicy<V extends LoopVerdict = VerifierV1Result>({
  policy,
  tasks,
  backend,
  verifier,
  environment: target,
  protocol = 'qwen-xml',
  promptMode = 'full',
  maxTokens = 64,
  temperature = 0,
  seed = 0,
  samples = 1,
  limits,
  episodeIdPrefix = 'eval',
  onRound,
}: EvaluationTarget<V> & {
  policy: PolicyV1;
  tasks: readonly Task[];
  protocol?: ProtocolName;
  promptMode?: PromptMode;
  maxTokens?: number;
  temperature?: number;
  seed?: number;
  /**
   * Episodes per task (sampled pass@1 averages them; use a temperature above
   * 0). With more than one, episode ids end in `:<index>`.
   */
  samples?: number;
  limits?: EpisodeLimits;
  episodeIdPrefix?: string;
  onRound?: (info: {
    round: number;
    active: number;
    finished: number;
    total: number;
  }) => void;
}): Promise<PolicyEvaluation<V>> {
  const environment =
    target ??
    (bfclTrainingEnvironment({
      backend: backend!,
      verifier: verifier!,
    }) as unknown as TrainingEnvironment<V>);
  const rollouts = await runRollouts({
    policy,
    tasks,
    groupSize: samples,
    sampling: { maxTokens, temperature, seed },
    createEpisode: ({ task, index }) =>
      environment.createEpisode({
        task,
        protocol,
        promptMode,
        mode: 'eval',
        limits,
        episodeId:
          samples > 1
            ? `${episodeIdPrefix}:${task.id}:${index}`
            : `${episodeIdPrefix}:${task.id}`,
        stamps: { verifierVersion: environment.verifierId, seed },
      }),
    onRound,
  });
  const episodes: EvaluatedEpisode<V>[] = [];
  for (const rollout of rollouts)
    episodes.push({
      task: rollout.task,
      record: rollout.record,
      result: await environment.verify({
        task: rollout.task,
        record: rollout.record,
      }),
    });
  const scores = environment.score(
    episodes.map((e) => ({
      category: e.task.category,
      valid: e.result.official.valid,
    })),
  );
  const tagCounts: Record<string, number> = {};
  for (const episode of episodes)
    for (const turn of episode.result.turns)
      tagCounts[turn.tag] = (tagCounts[turn.tag] ?? 0) + 1;
  const accuracy =
    episodes.length === 0
      ? 0
      : episodes.filter((e) => e.result.official.valid).length /
        episodes.length;
  const taskSuccess: Record<string, number> = {};
  const taskCount: Record<string, number> = {};
  for (const episode of episodes) {
    const id = episode.task.id;
    taskSuccess[id] =
      (taskSuccess[id] ?? 0) + (episode.result.official.valid ? 1 : 0);
    taskCount[id] = (taskCount[id] ?? 0) + 1;
  }
  for (const id of Object.keys(taskSuccess))
    taskSuccess[id] = taskSuccess[id]! / taskCount[id]!;
  return { scores, accuracy, tagCounts, episodes, taskSuccess };
}

import {
  createEpisode,
  type EpisodeLimits,
  type PromptMode,
  type ProtocolName,
} from '@seal/env';
import type {
  EpisodeRecord,
  PolicyV1,
  SyncVerifierV1,
  Task,
  ToolBackendV1,
  VerifierV1Result,
} from '@seal/spec';
import { aggregateBfclScores, type BfclScores } from '@seal/verifier';
import { runRollouts } from '../rollout/run-rollouts';

/** One evaluated episode. */
export type EvaluatedEpisode = {
  task: Task;
  record: EpisodeRecord;
  result: VerifierV1Result;
};

/** The outcome of {@link evaluatePolicy}. */
export type PolicyEvaluation = {
  /** BFCL's accounting: accuracy per category and the multi-turn overall. */
  scores: BfclScores;
  /** Mean accuracy over the episodes (all categories pooled). */
  accuracy: number;
  /** Tag counts over all turns. */
  tagCounts: Record<string, number>;
  episodes: EvaluatedEpisode[];
  /** Per task id, the share of its episodes that succeeded (0 or 1 with one sample). */
  taskSuccess: Record<string, number>;
};

/**
 * Evaluates a policy on the untouched interface: eval mode (the empty
 * overlay), one greedy episode per task by default, verified with BFCL's
 * official rules.
 */
export async function evaluatePolicy({
  policy,
  tasks,
  backend,
  verifier,
  protocol = 'qwen-xml',
  promptMode = 'full',
  maxTokens = 64,
  temperature = 0,
  seed = 0,
  samples = 1,
  limits,
  episodeIdPrefix = 'eval',
  onRound,
}: {
  policy: PolicyV1;
  tasks: readonly Task[];
  backend: ToolBackendV1;
  verifier: SyncVerifierV1;
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
}): Promise<PolicyEvaluation> {
  const rollouts = await runRollouts({
    policy,
    tasks,
    groupSize: samples,
    sampling: { maxTokens, temperature, seed },
    createEpisode: ({ task, index }) =>
      createEpisode({
        task,
        backend,
        protocol,
        promptMode,
        mode: 'eval',
        limits,
        episodeId:
          samples > 1
            ? `${episodeIdPrefix}:${task.id}:${index}`
            : `${episodeIdPrefix}:${task.id}`,
        stamps: { verifierVersion: verifier.verifierId, seed },
      }),
    onRound,
  });
  const episodes = rollouts.map((rollout) => ({
    task: rollout.task,
    record: rollout.record,
    result: verifier.verifySync({ task: rollout.task, record: rollout.record }),
  }));
  const scores = aggregateBfclScores(
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

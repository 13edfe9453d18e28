import {
  createEpisode,
  type EpisodeLimits,
  type PromptMode,
  type ProtocolName,
  type ToolCallProtocol,
} from '@seal/env';
import type {
  ChatMessage,
  EpisodeRecord,
  EpisodeStamps,
  EpisodeV1StepResult,
  InterfaceOverlay,
  Rewards,
  SyncVerifierV1,
  Task,
  ToolBackendV1,
  ToolDoc,
  VerifierV1Result,
} from '@seal/spec';
import { aggregateBfclScores, type BfclScores } from '@seal/verifier';

/**
 * What the training loop reads of a verdict: the episode's success, the
 * rewards, and each turn's tag and verdict. BFCL's `VerifierV1Result` is one;
 * a v2 environment's generic verdict maps onto it with its own open-string
 * tags (`training-environment-v2.ts`).
 */
export type LoopVerdict = {
  official: { valid: boolean };
  /** `binary` (episode success), `progress` (share of turns passed), `format` (0–2). */
  rewards: Rewards;
  turns: readonly {
    turn: number;
    tag: string;
    valid: boolean | null;
    irrelevance: number | null;
  }[];
};

/** One running episode as the rollout engine drives it; `reset` and `step` may be async. */
export type RolloutEpisode = {
  readonly done: boolean;
  /** The protocol in use (its `toolsOutOfBand` decides where the docs go). */
  readonly protocol: Pick<ToolCallProtocol, 'toolsOutOfBand'>;
  reset(): readonly ChatMessage[] | PromiseLike<readonly ChatMessage[]>;
  step(
    response: string,
    usage?: { promptTokens?: number; completionTokens?: number },
  ): EpisodeV1StepResult | PromiseLike<EpisodeV1StepResult>;
  /** The tools the model may call now. */
  tools(): ToolDoc[];
  messages(): ChatMessage[];
  abort(reason?: 'aborted' | 'context-limit'): void;
  record(): EpisodeRecord;
};

/** What one episode of a training or evaluation rollout is created with. */
export type TrainingEpisodeOptions = {
  task: Task;
  protocol: ProtocolName;
  promptMode: PromptMode;
  mode: 'train' | 'eval';
  overlay?: InterfaceOverlay;
  limits?: EpisodeLimits;
  episodeId: string;
  stamps: EpisodeStamps;
};

/**
 * The generic dispatch of SEAL's loop (issue 45): how its rollouts, verdicts
 * and scores reach an environment. BFCL (`bfclTrainingEnvironment`: Python
 * call text, BFCL's backend and verifier) and any v2 environment
 * (`v2TrainingEnvironment`: structured calls on a v2 session, the generic
 * verifier) are two implementations; `runTraining` and `evaluatePolicy` know
 * only this.
 */
export type TrainingEnvironment<V extends LoopVerdict = LoopVerdict> = {
  readonly environmentId: string;
  /** Stamped on every record (`stamps.verifierVersion`). */
  readonly verifierId: string;
  createEpisode(options: TrainingEpisodeOptions): RolloutEpisode;
  /** The verdict on a finished episode created by `createEpisode`. */
  verify(options: { task: Task; record: EpisodeRecord }): V | PromiseLike<V>;
  /** An evaluation's scores by category from its verdicts. */
  score(results: readonly { category: string; valid: boolean }[]): BfclScores;
  /**
   * BFCL's backend and verifier, for the parts of the loop written against
   * them (Environment Tuning's curriculum validation); absent elsewhere.
   */
  readonly v1?: { backend: ToolBackendV1; verifier: SyncVerifierV1 };
  /** Closes what episodes left open (sessions of episodes never verified). */
  close?(): Promise<void>;
};

/**
 * BFCL (or the generated suite, on BFCL's classes) as a training
 * environment: episodes from `@seal/env`'s `createEpisode` on the backend,
 * verdicts from BFCL's verifier, BFCL's category scores. Records and
 * verdicts are exactly those of the loop before the dispatch existed
 * (`dispatch-differential.test.ts`).
 */
export function bfclTrainingEnvironment({
  backend,
  verifier,
}: {
  backend: ToolBackendV1;
  verifier: SyncVerifierV1;
}): TrainingEnvironment<VerifierV1Result> {
  return {
    environmentId: backend.backendId,
    verifierId: verifier.verifierId,
    createEpisode: ({
      task,
      protocol,
      promptMode,
      mode,
      overlay,
      limits,
      episodeId,
      stamps,
    }) =>
      createEpisode({
        task,
        backend,
        protocol,
        promptMode,
        mode,
        ...(overlay === undefined ? {} : { overlay }),
        limits,
        episodeId,
        stamps,
      }),
    verify: ({ task, record }) => verifier.verifySync({ task, record }),
    score: aggregateBfclScores,
    v1: { backend, verifier },
  };
}

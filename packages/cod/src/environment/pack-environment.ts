import type { ChatMessage, EpisodeRecord } from '@seal/spec';

/** How a solve episode ended, as its task reward and the update-context prompt need it. */
export type PackSolveResult = {
  /** The environment outcome in [0, 1] (1 = solved). */
  outcome: number;
  /** Whether the task counts as solved. */
  success: boolean;
  /** A short outcome string for the update-context prompt, e.g. `Success! Reached the goal`. */
  feedback: string;
  /** Model calls (moves, tool steps) used. */
  stepsUsed: number;
  /** The step budget of the task. */
  maxSteps: number;
  /** The episode record, for environments that keep one (BFCL). */
  record?: EpisodeRecord;
};

/** What one action of a solve episode returns. */
export type PackSolveStep = {
  /** Messages to append (the environment's answer, the next question). */
  observation: ChatMessage[];
  /** Whether the episode is over. */
  done: boolean;
};

/**
 * One running solve episode of a pack task. Episodes never share mutable
 * state. Bad model output never throws: it ends the episode or becomes an
 * observation, as the environment defines.
 */
export type PackSolveEpisode = {
  /**
   * Starts the episode: the system prompt (without hints; the loop injects
   * them) first, then the first question.
   */
  reset(): ChatMessage[];
  /** Feeds one model response. */
  step(response: string): PackSolveStep;
  /** Whether the episode is over. */
  readonly done: boolean;
  /** Ends the episode early (the next prompt would not fit the model). */
  abort(reason: 'context-limit'): void;
  /** The outcome; call once the episode is over. */
  finish(): PromiseLike<PackSolveResult>;
};

/**
 * An environment whose tasks come in packs that share a hidden regularity
 * drawn from the pack seed (the FrozenLake-Obscure grid, BFCL with per-pack
 * aliases). The regularity must be the same for the same pack seed and is
 * re-drawn for another.
 */
export type PackEnvironment<TTask> = {
  /** Names the environment in records, e.g. `frozen-lake-obscure`. */
  readonly environmentId: string;
  /** A task's id. */
  taskId(task: TTask): string;
  /** A task's taskset (packs never mix tasksets). */
  tasksetId(task: TTask): string;
  /** A human-readable statement of a pack's hidden regularity (for records and the viewer, never the model). */
  describeRegularity(packSeed: number): string;
  /** Starts a solve episode of `task` in the pack drawn from `packSeed`. */
  startSolve(options: {
    task: TTask;
    packSeed: number;
    episodeId: string;
  }): PackSolveEpisode;
};

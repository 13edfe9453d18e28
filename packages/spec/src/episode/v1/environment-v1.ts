import type { ChatMessage } from '../../task/v1/chat-message';
import type { EpisodeEvent } from './episode-event';
import type { EpisodeRecord } from './episode-record';

/** What one `step` of an episode returns. */
export type EpisodeV1StepResult = {
  /** Messages to append to the conversation (tool results, errors, the next user turn). */
  observation: ChatMessage[];
  /** The current question-turn index after this step. */
  turn: number;
  /** Whether the episode is over. */
  done: boolean;
  /** Events produced by this step. */
  events: EpisodeEvent[];
};

/**
 * One running episode. Episodes are independent: no mutable state is shared
 * between two episodes, ever.
 */
export type EpisodeV1 = {
  readonly specificationVersion: 'v1';
  /** The task this episode runs. */
  readonly taskId: string;
  /** Starts the episode: the system prompt and the first user turn. */
  reset(): ChatMessage[];
  /**
   * Feeds one assistant response: raw text, or a message with structured
   * tool calls (OpenAI protocol). Never throws on bad model output.
   */
  step(
    response: string | ChatMessage,
    usage?: { promptTokens?: number; completionTokens?: number },
  ): EpisodeV1StepResult;
  /** Whether the episode is over. */
  readonly done: boolean;
  /** The record so far (complete once `done`). */
  record(): EpisodeRecord;
};

import type {
  ChatMessage,
  EpisodeEvent,
  EnvironmentEpisodeRecord,
  EpisodeStep,
} from '@seal/spec';

/** One executed or refused call of a step, from the episode's event stream. */
export type StepCall =
  | {
      type: 'executed';
      callText: string;
      result: string;
      status: 'ok' | 'raised' | 'rejected';
      error?: string;
    }
  | { type: 'rejected'; name?: string; reason: string; message: string };

/** One model call of a turn with the messages around it. */
export type ConversationStep = {
  step: number;
  record: EpisodeStep;
  /** The assistant message of this model call. */
  message?: ChatMessage;
  /** What the environment answered (tool results, errors), as sent to the model. */
  observations: ChatMessage[];
  calls: StepCall[];
  parseError?: string;
};

/** One question turn: the user's messages and the model calls that answered them. */
export type ConversationTurn = {
  turn: number;
  question: ChatMessage[];
  steps: ConversationStep[];
  /** Tools revealed at this turn (miss_func holdouts). */
  revealedTools: string[];
};

/** An episode's conversation split by turn and model call. */
export type Conversation = {
  system?: ChatMessage;
  turns: ConversationTurn[];
  /** Messages left over after the last recorded step (should be none). */
  trailing: ChatMessage[];
};

function stepCalls(
  events: readonly EpisodeEvent[],
  turn: number,
  step: number,
  record: EpisodeStep,
): StepCall[] {
  const calls: StepCall[] = [];
  for (const event of events) {
    if (
      event.type === 'call-executed' &&
      event.turn === turn &&
      event.step === step
    ) {
      calls.push({
        type: 'executed',
        callText: event.call.callText,
        result: event.result,
        status: event.status,
        ...(event.error === undefined ? {} : { error: event.error }),
      });
    } else if (
      event.type === 'call-rejected' &&
      event.turn === turn &&
      event.step === step
    ) {
      calls.push({
        type: 'rejected',
        ...(event.name === undefined ? {} : { name: event.name }),
        reason: event.reason,
        message: event.message,
      });
    }
  }
  if (calls.length > 0) return calls;
  // Records without an event stream still list accepted calls and results.
  return record.calls.map((callText, i) => ({
    type: 'executed',
    callText,
    result: record.results[i] ?? '',
    status: 'ok',
  }));
}

/**
 * Splits an episode's messages into turns and model calls. Records keep the
 * conversation as one message list plus per-turn steps, so the split walks
 * both: the messages before a turn's first assistant message are its
 * question; the messages after a step's assistant message are the
 * environment's observations. After a turn's last step, observations exist
 * only if that step made calls (the turn then ended on a limit): they are
 * taken, except the last message, which opens the next turn.
 */
export function conversationTurns(
  record: EnvironmentEpisodeRecord,
): Conversation {
  const messages = record.messages;
  let i = 0;
  const system = messages[0]?.role === 'system' ? messages[0] : undefined;
  if (system) i = 1;
  const revealed = new Map<number, string[]>();
  for (const event of record.events)
    if (event.type === 'turn-start')
      revealed.set(event.turn, event.revealedTools);
  const turns: ConversationTurn[] = [];
  record.turns.forEach((turn, turnIndex) => {
    const question: ChatMessage[] = [];
    while (i < messages.length && messages[i]!.role !== 'assistant')
      question.push(messages[i++]!);
    const steps: ConversationStep[] = turn.steps.map((step, stepIndex) => {
      const message =
        messages[i]?.role === 'assistant' ? messages[i++] : undefined;
      const observations: ChatMessage[] = [];
      const lastOfTurn = stepIndex === turn.steps.length - 1;
      const acted =
        step.calls.length > 0 ||
        step.rejectedCalls > 0 ||
        step.parseError !== undefined;
      if (!lastOfTurn || acted) {
        let end = i;
        while (end < messages.length && messages[end]!.role !== 'assistant')
          end++;
        if (lastOfTurn && turnIndex < record.turns.length - 1 && end - i > 1)
          end--;
        while (i < end) observations.push(messages[i++]!);
      }
      return {
        step: stepIndex,
        record: step,
        ...(message ? { message } : {}),
        observations,
        calls: stepCalls(record.events, turn.turn, stepIndex, step),
        ...(step.parseError === undefined
          ? {}
          : { parseError: step.parseError }),
      };
    });
    turns.push({
      turn: turn.turn,
      question,
      steps,
      revealedTools: revealed.get(turn.turn) ?? [],
    });
  });
  return { ...(system ? { system } : {}), turns, trailing: messages.slice(i) };
}

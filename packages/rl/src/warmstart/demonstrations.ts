import { createEpisode, type PromptMode, type ProtocolName } from '@seal/env';
import type {
  InterfaceOverlay,
  PolicyV1ChatMessage,
  PolicyV1Tokenizer,
  Task,
  ToolBackendV1,
} from '@seal/spec';

/** A demonstration: a token sequence and which tokens are the assistant's (trained). */
export type Demonstration = {
  taskId: string;
  tokenIds: number[];
  assistantMask: number[];
  text: string;
};

/** The reply that closes a demonstrated turn. */
export const demonstrationReply = 'Done.';

/** The reply to a turn whose request lacks a required value (miss_param): ask for it. */
export const missingValueReply = 'A required value is missing. Please give it.';

/** The reply to a turn no listed tool can serve (miss_func): say so and wait. */
export const missingToolReply = 'No tool here can do that.';

/**
 * The scripted responses of a demonstration: per ground-truth turn, one call
 * per step (so a call can use what an earlier call returned), then a short
 * reply that ends the turn. An empty ground-truth turn gets only a reply:
 * in a missing-parameter task, one that asks for the value; in a
 * missing-function task, one that says no tool fits; otherwise `Done.`.
 */
export function demonstrationResponses(task: Task): string[][] {
  const emptyReply =
    task.category === 'multi_turn_miss_param'
      ? missingValueReply
      : task.category === 'multi_turn_miss_func'
        ? missingToolReply
        : demonstrationReply;
  return task.groundTruth.map((calls) =>
    calls.length === 0
      ? [emptyReply]
      : [...calls.map((call) => `[${call}]`), demonstrationReply],
  );
}

/**
 * Plays a task's ground truth through a real episode (the same protocol,
 * prompt mode and tool backend as training) and returns the conversation as
 * tokens with the assistant's tokens marked: a supervised warm start learns
 * exactly the token contexts RL will see. The `bfcl-python` protocol is the
 * one whose call syntax the scripted responses use.
 */
export function buildDemonstration({
  task,
  tokenizer,
  backend,
  protocol = 'bfcl-python',
  promptMode = 'compact',
  overlay,
  responses = demonstrationResponses(task),
}: {
  task: Task;
  tokenizer: PolicyV1Tokenizer;
  backend: ToolBackendV1;
  protocol?: ProtocolName;
  promptMode?: PromptMode;
  /**
   * A training-interface overlay to render the conversation under (schema
   * cues, notes, guidelines): a warm start that sees cues in part of its
   * demonstrations learns to use them when present and to work without them.
   */
  overlay?: InterfaceOverlay;
  /**
   * The scripted responses per turn (default: {@link demonstrationResponses}
   * of the task): a demonstration whose reply is not the category's, such as
   * a base turn whose tool was taken out of the list.
   */
  responses?: readonly (readonly string[])[];
}): Demonstration {
  const episode = overlay
    ? createEpisode({
        task,
        backend,
        protocol,
        promptMode,
        mode: 'train',
        overlay,
        limits: { maxModelCalls: 1000 },
      })
    : createEpisode({
        task,
        backend,
        protocol,
        promptMode,
        mode: 'eval',
        limits: { maxModelCalls: 1000 },
      });
  const toMessages = (
    messages: ReturnType<typeof episode.messages>,
  ): PolicyV1ChatMessage[] =>
    messages.map((m) => ({ role: m.role, content: m.content }));
  const first = episode.reset();
  const tokenIds = [
    ...tokenizer.renderChat({
      messages: toMessages(first),
      addGenerationPrompt: true,
    }).tokenIds,
  ];
  const assistantMask = tokenIds.map(() => 0);
  let inContext = first.length;
  const stop = tokenizer.stopTokenIds[0];
  for (const turn of responses) {
    for (const response of turn) {
      if (episode.done) break;
      const generated = [
        ...tokenizer.encode(response),
        ...(stop === undefined ? [] : [stop]),
      ];
      tokenIds.push(...generated);
      assistantMask.push(...generated.map(() => 1));
      const step = episode.step(response);
      if (step.done) break;
      const messages = episode.messages();
      const delta = tokenizer.renderChatDelta({
        messages: toMessages(messages),
        previousMessageCount: inContext + 1,
        addGenerationPrompt: true,
      }).tokenIds;
      tokenIds.push(...delta);
      assistantMask.push(...delta.map(() => 0));
      inContext = messages.length;
    }
  }
  return {
    taskId: task.id,
    tokenIds,
    assistantMask,
    text: tokenizer.decode(tokenIds),
  };
}

/** The plain text of a demonstration conversation (for training a tokenizer). */
export function demonstrationText(
  options: Omit<Parameters<typeof buildDemonstration>[0], 'tokenizer'>,
): string {
  const episode = createEpisode({
    task: options.task,
    backend: options.backend,
    protocol: options.protocol ?? 'bfcl-python',
    promptMode: options.promptMode ?? 'compact',
    mode: 'eval',
    limits: { maxModelCalls: 1000 },
  });
  const parts = episode.reset().map((m) => m.content);
  for (const turn of demonstrationResponses(options.task)) {
    for (const response of turn) {
      if (episode.done) break;
      parts.push(response);
      const step = episode.step(response);
      parts.push(...step.observation.map((m) => m.content));
    }
  }
  return parts.join('\n');
}

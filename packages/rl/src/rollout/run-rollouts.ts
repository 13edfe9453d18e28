import type {
  ChatMessage,
  EpisodeRecord,
  PolicyV1,
  PolicyV1ChatMessage,
  Task,
} from '@seal/spec';
import type { RolloutEpisode } from '../train/training-environment';

/** Sampling settings of a rollout batch. */
export type RolloutSampling = {
  /** Tokens per model response. */
  maxTokens: number;
  /** 1 for training (SEAL), 0 (greedy) for evaluation. */
  temperature: number;
  topP?: number;
  topK?: number;
  /** Base seed; each generate round derives its own from it. */
  seed: number;
};

/** One finished rollout with its token-level context. */
export type Rollout = {
  task: Task;
  /** The group (all rollouts of one task in a batch share it). */
  group: string;
  /** Index within the group. */
  index: number;
  record: EpisodeRecord;
  /** The whole conversation as the policy saw it: prompt, generations, observations. */
  tokenIds: number[];
  /** 1 on tokens the policy generated (the only ones trained), else 0. */
  generatedMask: number[];
  /** Sampling log-probabilities of the generated tokens (aligned; 0 elsewhere). */
  samplingLogprobs: number[];
  /** Where each model call's response starts in `tokenIds`, in call order (one per step of the record's turns). */
  callStarts: number[];
};

type Live = {
  rollout: Omit<Rollout, 'record'>;
  episode: RolloutEpisode;
  /** Messages already in the token context. */
  messagesInContext: number;
};

function toPolicyMessages(
  messages: readonly ChatMessage[],
): PolicyV1ChatMessage[] {
  return messages.map((message) => ({
    role: message.role,
    content: message.content,
    ...(message.name === undefined ? {} : { name: message.name }),
  }));
}

/** Mixes a base seed and a round number into a 31-bit seed (splitmix-style). */
export function deriveSeed(seed: number, ...parts: number[]): number {
  let h = (seed ^ 0x9e3779b9) >>> 0;
  for (const part of parts) {
    h = Math.imul(h ^ (part >>> 0), 0x85ebca6b) >>> 0;
    h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35) >>> 0;
    h = (h ^ (h >>> 16)) >>> 0;
  }
  return h & 0x7fffffff;
}

/**
 * Runs many episodes at once: every round, all episodes waiting for the
 * model go to the policy in one batched `generate` call; responses are fed
 * back to their episodes, and observations are appended to each episode's
 * token context with `renderChatDelta`, so the tokens trained on are exactly
 * the tokens sampled. An episode whose next prompt would not fit the policy's
 * sequence length ends with `context-limit`. Deterministic for a seed.
 */
export async function runRollouts({
  policy,
  tasks,
  groupSize,
  createEpisode,
  sampling,
  maxSequenceLength = policy.maxSequenceLength,
  onRound,
}: {
  policy: PolicyV1;
  tasks: readonly Task[];
  /** Rollouts per task (GRPO's n). */
  groupSize: number;
  /**
   * Creates one episode of a task (binds the environment, protocol, mode,
   * overlay, limits); its `reset` and `step` may be async (a v2 session).
   */
  createEpisode: (options: { task: Task; index: number }) => RolloutEpisode;
  sampling: RolloutSampling;
  maxSequenceLength?: number;
  /** Called after each generate round with the number of episodes still running. */
  onRound?: (info: {
    round: number;
    active: number;
    finished: number;
    total: number;
  }) => void;
}): Promise<Rollout[]> {
  const tokenizer = policy.tokenizer;
  const stopIds = new Set(tokenizer.stopTokenIds);
  const live: Live[] = [];
  const finished: Rollout[] = [];
  // The rollouts of a group start from the same conversation: render it once.
  const initialPrompts = new Map<string, readonly number[]>();
  for (const task of tasks) {
    for (let index = 0; index < groupSize; index++) {
      const episode = createEpisode({ task, index });
      const messages = await episode.reset();
      const tools = episode.protocol.toolsOutOfBand
        ? episode.tools().map((doc) => ({
            type: 'function',
            function: {
              name: doc.name,
              description: doc.description,
              parameters: doc.parameters,
            },
          }))
        : undefined;
      const chat = {
        messages: toPolicyMessages(messages),
        addGenerationPrompt: true,
        ...(tools ? { tools } : {}),
      };
      const key = JSON.stringify(chat);
      let prompt = initialPrompts.get(key);
      if (prompt === undefined) {
        prompt = tokenizer.renderChat(chat).tokenIds;
        initialPrompts.set(key, prompt);
      }
      live.push({
        episode,
        messagesInContext: messages.length,
        rollout: {
          task,
          group: task.id,
          index,
          tokenIds: [...prompt],
          generatedMask: new Array<number>(prompt.length).fill(0),
          samplingLogprobs: new Array<number>(prompt.length).fill(0),
          callStarts: [],
        },
      });
    }
  }
  const total = live.length;
  const finish = (item: Live) => {
    const { rollout } = item;
    // Context appended after the last response (tool results, the next
    // question) can run past the model's positions; the episode then ends
    // with context-limit. Those trailing tokens were never generated, so
    // cutting them keeps every sampled token and a sequence the model can score.
    if (rollout.tokenIds.length > maxSequenceLength) {
      rollout.tokenIds.length = maxSequenceLength;
      rollout.generatedMask.length = maxSequenceLength;
      rollout.samplingLogprobs.length = maxSequenceLength;
    }
    finished.push({ ...rollout, record: item.episode.record() });
  };

  let round = 0;
  let active = live.filter((item) => !item.episode.done);
  for (const item of live) if (item.episode.done) finish(item);
  while (active.length > 0) {
    // An episode whose prompt plus a full response would not fit ends here.
    const runnable: Live[] = [];
    for (const item of active) {
      if (
        item.rollout.tokenIds.length + sampling.maxTokens >
        maxSequenceLength
      ) {
        item.episode.abort('context-limit');
        finish(item);
      } else runnable.push(item);
    }
    if (runnable.length === 0) break;
    const result = await policy.generate({
      prompts: runnable.map((item) => item.rollout.tokenIds),
      maxTokens: sampling.maxTokens,
      temperature: sampling.temperature,
      ...(sampling.topP === undefined ? {} : { topP: sampling.topP }),
      ...(sampling.topK === undefined ? {} : { topK: sampling.topK }),
      seed: deriveSeed(sampling.seed, round),
    });
    const next: Live[] = [];
    for (const [i, generation] of result.generations.entries()) {
      const item = runnable[i]!;
      const { rollout } = item;
      let tokens = generation.tokenIds;
      let logprobs = generation.logprobs;
      const endsWithStop =
        tokens.length > 0 && stopIds.has(tokens[tokens.length - 1]!);
      const content = tokenizer.decode(
        endsWithStop ? tokens.slice(0, -1) : tokens,
      );
      if (!endsWithStop) {
        // A response cut by the token limit still closes its turn in the context.
        const stop = tokenizer.stopTokenIds[0];
        if (stop !== undefined) {
          tokens = [...tokens, stop];
          logprobs = [...logprobs, 0];
        }
      }
      rollout.callStarts.push(rollout.tokenIds.length);
      rollout.tokenIds.push(...tokens);
      // The appended stop token of a truncated response was not sampled: mask it.
      rollout.generatedMask.push(
        ...generation.tokenIds.map(() => 1),
        ...(tokens.length > generation.tokenIds.length ? [0] : []),
      );
      rollout.samplingLogprobs.push(...logprobs);
      const step = await item.episode.step(content, {
        completionTokens: generation.tokenIds.length,
        promptTokens: rollout.tokenIds.length - tokens.length,
      });
      const messages = item.episode.messages();
      // The assistant message is in the context already (its tokens were generated).
      const previousMessageCount = item.messagesInContext + 1;
      if (step.done) {
        finish(item);
        continue;
      }
      const delta = tokenizer.renderChatDelta({
        messages: toPolicyMessages(messages),
        previousMessageCount,
        addGenerationPrompt: true,
      }).tokenIds;
      rollout.tokenIds.push(...delta);
      rollout.generatedMask.push(...delta.map(() => 0));
      rollout.samplingLogprobs.push(...delta.map(() => 0));
      item.messagesInContext = messages.length;
      next.push(item);
    }
    round++;
    active = next;
    onRound?.({
      round,
      active: active.length,
      finished: finished.length,
      total,
    });
  }
  // Keep a stable order: by task, then index.
  const order = new Map(tasks.map((task, i) => [task.id, i]));
  return finished.sort(
    (a, b) => order.get(a.group)! - order.get(b.group)! || a.index - b.index,
  );
}

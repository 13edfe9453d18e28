import type {
  ChatMessage,
  PackRunRecord,
  PackRunSolve,
  PackRunUpdate,
  PolicyV1,
  PolicyV1ChatMessage,
} from '@seal/spec';
import type {
  PackEnvironment,
  PackSolveEpisode,
} from '../environment/pack-environment';
import { applyHintUpdate } from '../hints/apply-hint-update';
import {
  fallbackHints,
  initialHints,
  injectHintSection,
  type PromptFormat,
} from '../hints/hint-section';
import { hintEndDelimiter } from '../hints/parse-hint-block';
import { taskReward, type TaskRewardSettings } from '../hints/rewards';
import type {
  SerializeTrajectoryOptions,
  TrajectoryStep,
} from '../hints/serialize-trajectory';
import { buildUpdateContextMessages } from '../hints/update-context-prompt';
import type { Pack } from '../packs/build-packs';
import { mixSeed } from '../packs/pack-random';

/** Sampling of a pack-run batch. */
export type PackSampling = {
  /** Tokens per solve action. */
  maxTokens: number;
  /** Tokens per update-context response. */
  updateMaxTokens: number;
  /** 1 in training and in the paper's evaluation. */
  temperature: number;
  topP?: number;
  topK?: number;
  /** Base seed; every generate call derives its own from (pack, position, round). */
  seed: number;
};

/** Hint settings of the loop (spec B2/B3). */
export type PackHintSettings = {
  /** Longest usable hint block in characters. Default 2,000. */
  maxLength?: number;
  /** Penalty of an unusable block. Default 0.1. */
  penalty?: number;
  /** An optional response-limit line appended to the hint section. */
  responseLimit?: string;
  /** Limits of the trajectory serialised for the update. */
  serialize?: SerializeTrajectoryOptions;
  /** Wording of the hint section and the update prompt: `paper` (default) or `compact`. */
  format?: PromptFormat;
};

/** The token-level data of one episode, as the policy saw and produced it. */
export type EpisodeTokens = {
  /** Prompt, generated and environment tokens. */
  tokenIds: number[];
  /** 1 on generated tokens (the only ones trained). */
  generatedMask: number[];
  /** Sampling log-probabilities of the generated tokens (0 elsewhere). */
  samplingLogprobs: number[];
};

/** One pack run: its record and the token data of its episodes. */
export type PackRunResult = {
  record: PackRunRecord;
  /** One per solve episode, in pack order. */
  solveTokens: EpisodeTokens[];
  /** One per update-context episode (empty sequences when nothing was generated). */
  updateTokens: EpisodeTokens[];
};

/** Options of {@link runPackRuns}. */
export type RunPackRunsOptions<TTask> = {
  policy: PolicyV1;
  environment: PackEnvironment<TTask>;
  /** The pack; all `groupSize` runs of it are generated together. */
  pack: Pack<TTask>;
  /** Repeated runs of the pack (GRPO's G; 1 for evaluation). */
  groupSize: number;
  sampling: PackSampling;
  hints?: PackHintSettings;
  reward?: TaskRewardSettings;
  mode: 'train' | 'eval';
  /** Optimizer steps of the policy so far (recorded). */
  policyStep?: number | null;
  runId?: string;
  maxSequenceLength?: number;
  /**
   * Standard RL on the pack's tasks one by one (the control of the CoD
   * measurement): every task is solved with `Hints: null` and no
   * update-context call is made, so nothing carries from one task to the
   * next. Default false.
   */
  independentTasks?: boolean;
};

function toPolicyMessages(
  messages: readonly ChatMessage[],
): PolicyV1ChatMessage[] {
  return messages.map((message) => ({
    role: message.role,
    content: message.content,
  }));
}

type LiveSolve = {
  episode: PackSolveEpisode;
  messages: ChatMessage[];
  tokens: EpisodeTokens;
  steps: TrajectoryStep[];
  pendingObservation: string;
  finalObservation: string;
  responseTokens: number;
  contextLimited: boolean;
};

/**
 * Runs `groupSize` pack runs of one pack with the paper's loop (spec B2):
 * task x_1 is solved with `Hints: null`; after every task but the last, one
 * update-context call reads the previous hints and the serialised trajectory
 * and writes the next hints; the hints are injected into the next solve's
 * system prompt. The runs advance in lockstep, so each round is one batched
 * `generate`. Solve contexts are token-exact (generated tokens plus
 * `renderChatDelta` observations); an episode whose next prompt would not
 * fit ends with `context-limit`; an update prompt that would not fit costs
 * the penalty and falls back to "no hint available". Deterministic for a
 * seed, and independent of other packs (resume at pack boundaries gives the
 * same runs).
 */
export async function runPackRuns<TTask>(
  options: RunPackRunsOptions<TTask>,
): Promise<PackRunResult[]> {
  const { policy, environment, pack, groupSize, sampling } = options;
  const tokenizer = policy.tokenizer;
  const stopIds = new Set(tokenizer.stopTokenIds);
  const maxSequenceLength =
    options.maxSequenceLength ?? policy.maxSequenceLength;
  const hintSettings = options.hints ?? {};
  const regularity = environment.describeRegularity(pack.packSeed);
  const runs = Array.from({ length: groupSize }, (_, runIndex) => ({
    runIndex,
    hints: initialHints,
    solves: [] as PackRunSolve[],
    updates: [] as PackRunUpdate[],
    solveTokens: [] as EpisodeTokens[],
    updateTokens: [] as EpisodeTokens[],
  }));
  const packRunId = (runIndex: number) => `${pack.packId}#${runIndex}`;

  const generate = async (
    prompts: number[][],
    maxTokens: number,
    seed: number,
    stopStrings?: string[],
  ) =>
    (
      await policy.generate({
        prompts,
        maxTokens,
        temperature: sampling.temperature,
        ...(sampling.topP === undefined ? {} : { topP: sampling.topP }),
        ...(sampling.topK === undefined ? {} : { topK: sampling.topK }),
        ...(stopStrings === undefined ? {} : { stopStrings }),
        seed,
      })
    ).generations;

  /** Appends a generation to a context; returns the response text (stop token removed). */
  const appendGeneration = (
    tokens: EpisodeTokens,
    generation: { tokenIds: number[]; logprobs: number[] },
  ): string => {
    let ids = generation.tokenIds;
    let logprobs = generation.logprobs;
    const endsWithStop = ids.length > 0 && stopIds.has(ids[ids.length - 1]!);
    const text = tokenizer.decode(endsWithStop ? ids.slice(0, -1) : ids);
    if (!endsWithStop) {
      // A response cut by the token limit still closes its turn (the stop token was not sampled: masked).
      const stop = tokenizer.stopTokenIds[0];
      if (stop !== undefined) {
        ids = [...ids, stop];
        logprobs = [...logprobs, 0];
      }
    }
    tokens.tokenIds.push(...ids);
    tokens.generatedMask.push(
      ...generation.tokenIds.map(() => 1),
      ...(ids.length > generation.tokenIds.length ? [0] : []),
    );
    tokens.samplingLogprobs.push(...logprobs);
    return text;
  };

  for (let position = 0; position < pack.tasks.length; position++) {
    const task = pack.tasks[position]!;
    // Solve x_position in every run.
    const live: LiveSolve[] = runs.map((run) => {
      const episode = environment.startSolve({
        task,
        packSeed: pack.packSeed,
        episodeId: `${packRunId(run.runIndex)}/solve-${position}`,
      });
      const [system, ...rest] = episode.reset();
      const withHints: ChatMessage = {
        role: 'system',
        content: injectHintSection({
          systemPrompt: system?.content ?? '',
          hints: run.hints,
          ...(hintSettings.responseLimit === undefined
            ? {}
            : { responseLimit: hintSettings.responseLimit }),
          ...(hintSettings.format === undefined
            ? {}
            : { format: hintSettings.format }),
        }),
      };
      const messages = [withHints, ...rest];
      const prompt = tokenizer.renderChat({
        messages: toPolicyMessages(messages),
        addGenerationPrompt: true,
      }).tokenIds;
      return {
        episode,
        messages,
        tokens: {
          tokenIds: [...prompt],
          generatedMask: prompt.map(() => 0),
          samplingLogprobs: prompt.map(() => 0),
        },
        steps: [],
        pendingObservation: rest.map((message) => message.content).join('\n'),
        finalObservation: '',
        responseTokens: 0,
        contextLimited: false,
      };
    });
    for (let round = 0; ; round++) {
      const runnable: LiveSolve[] = [];
      for (const item of live) {
        if (item.episode.done) continue;
        if (
          item.tokens.tokenIds.length + sampling.maxTokens >
          maxSequenceLength
        ) {
          item.episode.abort('context-limit');
          item.contextLimited = true;
        } else runnable.push(item);
      }
      if (runnable.length === 0) break;
      const generations = await generate(
        runnable.map((item) => item.tokens.tokenIds),
        sampling.maxTokens,
        mixSeed(sampling.seed, pack.packIndex, position, round, 1),
      );
      generations.forEach((generation, i) => {
        const item = runnable[i]!;
        const text = appendGeneration(item.tokens, generation);
        item.responseTokens += generation.tokenIds.length;
        item.steps.push({ observation: item.pendingObservation, action: text });
        item.messages.push({ role: 'assistant', content: text });
        const step = item.episode.step(text);
        const previousMessageCount = item.messages.length;
        item.messages.push(...step.observation);
        const observationText = step.observation
          .map((message) => message.content)
          .join('\n');
        if (step.done) {
          item.finalObservation = observationText;
          return;
        }
        item.pendingObservation = observationText;
        const delta = tokenizer.renderChatDelta({
          messages: toPolicyMessages(item.messages),
          previousMessageCount,
          addGenerationPrompt: true,
        }).tokenIds;
        item.tokens.tokenIds.push(...delta);
        item.tokens.generatedMask.push(...delta.map(() => 0));
        item.tokens.samplingLogprobs.push(...delta.map(() => 0));
      });
    }
    const outcomes = await Promise.all(
      live.map((item) => item.episode.finish()),
    );
    const trajectories = live.map((item, index) => {
      const run = runs[index]!;
      const result = outcomes[index]!;
      const reward = taskReward({
        outcome: result.outcome,
        stepsUsed: result.stepsUsed,
        maxSteps: result.maxSteps,
        meanResponseTokens:
          item.steps.length === 0 ? 0 : item.responseTokens / item.steps.length,
        ...(options.reward === undefined ? {} : { settings: options.reward }),
      });
      run.solves.push({
        position,
        taskId: environment.taskId(task),
        episodeId: `${packRunId(run.runIndex)}/solve-${position}`,
        hints: run.hints,
        messages: item.messages,
        outcome: result.outcome,
        success: result.success,
        reward,
        feedback: result.feedback,
        stepsUsed: result.stepsUsed,
        maxSteps: result.maxSteps,
        responseTokens: item.responseTokens,
        endReason: item.contextLimited ? 'context-limit' : 'finished',
      });
      run.solveTokens.push(item.tokens);
      return {
        systemPrompt: item.messages[0]!.content,
        steps: item.steps,
        ...(item.finalObservation.length > 0
          ? { finalObservation: item.finalObservation }
          : {}),
        reward,
        feedback: result.feedback,
      };
    });
    if (position === pack.tasks.length - 1 || options.independentTasks === true)
      continue;

    // Update the context of every run from its trajectory.
    const prompts = runs.map((run, index) => {
      const messages = buildUpdateContextMessages({
        previousHints: run.hints,
        trajectory: trajectories[index]!,
        ...(hintSettings.serialize === undefined
          ? {}
          : { serializeOptions: hintSettings.serialize }),
        ...(hintSettings.format === undefined
          ? {}
          : { format: hintSettings.format }),
      });
      return tokenizer.renderChat({
        messages: toPolicyMessages(messages),
        addGenerationPrompt: true,
      }).tokenIds;
    });
    const fits = prompts.map(
      (prompt) => prompt.length + sampling.updateMaxTokens <= maxSequenceLength,
    );
    const fitting = prompts.filter((_, index) => fits[index]);
    const generations =
      fitting.length === 0
        ? []
        : await generate(
            fitting,
            sampling.updateMaxTokens,
            mixSeed(sampling.seed, pack.packIndex, position, 0, 2),
            [hintEndDelimiter],
          );
    let next = 0;
    runs.forEach((run, index) => {
      const prompt = prompts[index]!;
      if (!fits[index]) {
        const penalty = -Math.abs(hintSettings.penalty ?? 0.1);
        run.updates.push({
          afterPosition: position,
          previousHints: run.hints,
          response: '',
          hints: fallbackHints,
          parsed: false,
          failure: 'context-limit',
          trailingText: false,
          reward: penalty,
          responseTokens: 0,
        });
        run.updateTokens.push({
          tokenIds: [],
          generatedMask: [],
          samplingLogprobs: [],
        });
        run.hints = fallbackHints;
        return;
      }
      const generation = generations[next++]!;
      const tokens: EpisodeTokens = {
        tokenIds: [...prompt],
        generatedMask: prompt.map(() => 0),
        samplingLogprobs: prompt.map(() => 0),
      };
      const response = appendGeneration(tokens, generation);
      const update = applyHintUpdate({
        response,
        ...(hintSettings.maxLength === undefined
          ? {}
          : { maxLength: hintSettings.maxLength }),
        ...(hintSettings.penalty === undefined
          ? {}
          : { penalty: hintSettings.penalty }),
      });
      run.updates.push({
        afterPosition: position,
        previousHints: run.hints,
        response,
        hints: update.hints,
        parsed: update.parse.success,
        ...(update.parse.success ? {} : { failure: update.parse.reason }),
        trailingText: update.parse.success && update.parse.trailingText,
        reward: update.reward,
        responseTokens: generation.tokenIds.length,
      });
      run.updateTokens.push(tokens);
      run.hints = update.hints;
    });
  }

  return runs.map((run) => ({
    record: {
      schemaVersion: 1,
      type: 'pack-run',
      ...(options.runId === undefined ? {} : { runId: options.runId }),
      packRunId: packRunId(run.runIndex),
      packId: pack.packId,
      packIndex: pack.packIndex,
      packSeed: pack.packSeed,
      tasksetId: pack.tasksetId,
      strategy: pack.strategy,
      environmentId: environment.environmentId,
      regularity,
      runIndex: run.runIndex,
      mode: options.mode,
      policyStep: options.policyStep ?? null,
      solves: run.solves,
      updates: run.updates,
      taskRewards: run.solves.map((solve) => solve.reward),
      hintRewards: run.updates.map((update) => update.reward),
      advantages: null,
    },
    solveTokens: run.solveTokens,
    updateTokens: run.updateTokens,
  }));
}

import type {
  ChatMessage,
  PolicyV1ChatMessage,
  PolicyV1Tokenizer,
} from '@seal/spec';
import {
  fallbackHints,
  hintsContext,
  initialHints,
  injectHintSection,
  type PromptFormat,
} from '../hints/hint-section';
import {
  hintEndDelimiter,
  hintStartDelimiter,
} from '../hints/parse-hint-block';
import type { TrajectoryStep } from '../hints/serialize-trajectory';
import { taskReward } from '../hints/rewards';
import { buildUpdateContextMessages } from '../hints/update-context-prompt';
import type { Pack } from '../packs/build-packs';
import { createPackRandom, mixSeed } from '../packs/pack-random';
import {
  createFrozenLakeEnvironment,
  type FrozenLakeObservations,
} from './frozen-lake-environment';
import {
  describeObservedMoves,
  formatDirectionHints,
  formatExpertChoice,
  frozenLakeExpertChoice,
  mergeDirectionFacts,
  observedDirectionFacts,
  readDirectionFacts,
  type DirectionFacts,
} from './frozen-lake-expert';
import type { FrozenLakeTask } from './frozen-lake-tasks';

/** One demonstrated conversation: its messages and which assistant messages are trained. */
export type FrozenLakeDemonstrationConversation = {
  kind: 'solve' | 'update';
  /** Pack position of the solve, or of the task the update follows. */
  position: number;
  taskId: string;
  /** System, user and assistant messages in order, as the pack loop builds them. */
  messages: ChatMessage[];
  /** Per assistant message (in order): whether it is trained (random exploration moves are not). */
  trained: boolean[];
  /** Solves: whether the task was solved. */
  success?: boolean;
  /** Solves: the hint context the task was solved with. */
  hints?: string;
};

/** Settings of {@link playFrozenLakeExpertPack}. */
export type FrozenLakeExpertPackSettings = {
  /** Moves per task. Default 8. */
  maxSteps?: number;
  /** Prompt wording. Default `compact`. */
  format?: PromptFormat;
  /**
   * Chance that a solve of this pack takes a random move at a step (the move
   * is not trained), so update demonstrations also read clumsy trajectories.
   * Default 0.
   */
  randomMoveRate?: number;
  /** Chance that an update's hints are replaced by `Hints: no hint available.` for the next solve. Default 0. */
  fallbackRate?: number;
  /** Seed of the random moves and fallbacks. */
  seed?: number;
  /**
   * The environment's observations ({@link FrozenLakeObservations}). With
   * `literal` ones a compact update writes the hint block alone: each
   * bullet copies a `Direction k = move` span of an observation or of the
   * previous hints, so there is nothing to reason out. Default `positions`.
   */
  observations?: FrozenLakeObservations;
};

const position = (text: string): [number, number] | undefined => {
  const moved = /to \((\d+),(\d+)\)/.exec(text);
  return moved === null ? undefined : [Number(moved[1]), Number(moved[2])];
};

function locate(rows: readonly string[], tile: string): [number, number] {
  for (let r = 0; r < rows.length; r++) {
    const c = rows[r]!.indexOf(tile);
    if (c >= 0) return [r, c];
  }
  return [0, 0];
}

/**
 * Plays one FrozenLake-Obscure pack with the demonstrator, through the same
 * environment, hint section and update prompt as the pack loop: each task is
 * solved by {@link frozenLakeExpertChoice} from the current hints plus what
 * it sees, and after each task but the last an update writes hints that
 * state every direction the notes and the trajectory reveal (the discovered
 * part of the mapping). In the `compact` format the replies reason first: a
 * solve writes one line ({@link formatExpertChoice}, e.g. `Toward the goal:
 * right, Direction 3`) before `<answer>Direction k</answer>` (random moves
 * answer bare), and an update writes one line per move of the trajectory
 * ({@link describeObservedMoves}, e.g. `Direction 2: (1,3) to (0,3) is up`)
 * before the hint block. The `paper` format's replies are the answer and the
 * block alone. Deterministic for a pack and settings.
 */
export async function playFrozenLakeExpertPack({
  pack,
  settings = {},
}: {
  pack: Pack<FrozenLakeTask>;
  settings?: FrozenLakeExpertPackSettings;
}): Promise<FrozenLakeDemonstrationConversation[]> {
  const format = settings.format ?? 'compact';
  const compact = format === 'compact';
  const environment = createFrozenLakeEnvironment({
    ...(settings.maxSteps === undefined ? {} : { maxSteps: settings.maxSteps }),
    format,
    ...(settings.observations === undefined
      ? {}
      : { observations: settings.observations }),
  });
  const random = createPackRandom(
    mixSeed(settings.seed ?? 0, pack.packSeed, 0xde70),
  );
  const conversations: FrozenLakeDemonstrationConversation[] = [];
  let hints = initialHints;
  for (const [index, task] of pack.tasks.entries()) {
    const episode = environment.startSolve({
      task,
      packSeed: pack.packSeed,
      episodeId: `${pack.packId}/demo-${index}`,
    });
    const [system, ...rest] = episode.reset();
    const messages: ChatMessage[] = [
      {
        role: 'system',
        content: injectHintSection({
          systemPrompt: system?.content ?? '',
          hints,
          format,
        }),
      },
      ...rest,
    ];
    const trained: boolean[] = [];
    const steps: TrajectoryStep[] = [];
    let observation = rest.map((message) => message.content).join('\n');
    let finalObservation = '';
    let seen = '';
    let at = locate(task.rows, 'S');
    const goal = locate(task.rows, 'G');
    const noted = readDirectionFacts(hints);
    const bumped = new Set<number>();
    while (!episode.done) {
      const facts: DirectionFacts = mergeDirectionFacts(
        noted,
        observedDirectionFacts(seen),
      );
      const randomMove = random.next() < (settings.randomMoveRate ?? 0);
      const choice = randomMove
        ? undefined
        : frozenLakeExpertChoice({
            rows: task.rows,
            position: at,
            goal,
            facts,
            bumped,
          });
      const k = choice?.direction ?? 1 + random.int(4);
      // Compact: a line of reasoning first (the random moves, untrained, answer bare).
      const action = `${compact && choice !== undefined ? `${formatExpertChoice(choice)}\n` : ''}<answer>Direction ${k}</answer>`;
      steps.push({ observation, action });
      messages.push({ role: 'assistant', content: action });
      trained.push(!randomMove);
      const step = episode.step(action);
      messages.push(...step.observation);
      const text = step.observation
        .map((message) => message.content)
        .join('\n');
      seen += `${text}\n`;
      const next = position(text);
      if (next === undefined) bumped.add(k);
      else {
        at = next;
        bumped.clear();
      }
      if (step.done) finalObservation = text;
      else observation = text;
    }
    const result = await episode.finish();
    const success = result.success;
    conversations.push({
      kind: 'solve',
      position: index,
      taskId: task.taskId,
      messages,
      trained,
      success,
      hints,
    });
    if (index === pack.tasks.length - 1) break;
    const facts = mergeDirectionFacts(
      readDirectionFacts(hints),
      observedDirectionFacts(seen),
    );
    const update = buildUpdateContextMessages({
      previousHints: hints,
      trajectory: {
        systemPrompt: messages[0]!.content,
        steps,
        ...(finalObservation.length > 0 ? { finalObservation } : {}),
        reward: taskReward({
          outcome: result.outcome,
          stepsUsed: result.stepsUsed,
          maxSteps: result.maxSteps,
        }),
        feedback: result.feedback,
      },
      format,
    });
    const block = formatDirectionHints(facts, {
      every: settings.observations === 'literal',
    });
    // Compact: first one line per move of the trajectory (what each direction did), then the block.
    const reasoning =
      compact && settings.observations !== 'literal'
        ? describeObservedMoves(seen)
            .map((line) => `${line}\n`)
            .join('')
        : '';
    conversations.push({
      kind: 'update',
      position: index,
      taskId: task.taskId,
      messages: [
        ...update,
        {
          role: 'assistant',
          content: `${reasoning}${hintStartDelimiter}\n${block}\n${hintEndDelimiter}`,
        },
      ],
      trained: [true],
    });
    hints =
      random.next() < (settings.fallbackRate ?? 0)
        ? fallbackHints
        : hintsContext(block);
  }
  return conversations;
}

/** A demonstration as token ids, with the trained assistant tokens marked (the shape `runSupervised` of `@seal/rl` takes). */
export type CodDemonstration = {
  kind: 'solve' | 'update';
  position: number;
  taskId: string;
  tokenIds: number[];
  assistantMask: number[];
  text: string;
};

const toPolicyMessages = (
  messages: readonly ChatMessage[],
): PolicyV1ChatMessage[] =>
  messages.map((message) => ({ role: message.role, content: message.content }));

/**
 * The token sequence of a demonstrated conversation exactly as the pack loop
 * builds its context: the first messages rendered with the generation
 * prompt, each assistant message as its tokens and a stop token, each
 * observation as `renderChatDelta`. Trained assistant tokens (stop included)
 * are marked 1.
 */
export function demonstrationTokens({
  tokenizer,
  conversation,
}: {
  tokenizer: PolicyV1Tokenizer;
  conversation: FrozenLakeDemonstrationConversation;
}): CodDemonstration {
  const { messages, trained } = conversation;
  const first = messages.findIndex((message) => message.role === 'assistant');
  const opening = first < 0 ? messages : messages.slice(0, first);
  const tokenIds = [
    ...tokenizer.renderChat({
      messages: toPolicyMessages(opening),
      addGenerationPrompt: true,
    }).tokenIds,
  ];
  const assistantMask = tokenIds.map(() => 0);
  const stop = tokenizer.stopTokenIds[0];
  let assistant = 0;
  for (let i = opening.length; i < messages.length; i++) {
    const message = messages[i]!;
    if (message.role !== 'assistant') continue;
    const generated = [
      ...tokenizer.encode(message.content),
      ...(stop === undefined ? [] : [stop]),
    ];
    const flag = trained[assistant++] === false ? 0 : 1;
    tokenIds.push(...generated);
    assistantMask.push(...generated.map(() => flag));
    // The observations up to the next assistant message.
    let end = i + 1;
    while (end < messages.length && messages[end]!.role !== 'assistant') end++;
    // The loop appends observations only when the episode goes on (another action follows).
    if (end === messages.length || end === i + 1) continue;
    const delta = tokenizer.renderChatDelta({
      messages: toPolicyMessages(messages.slice(0, end)),
      previousMessageCount: i + 1,
      addGenerationPrompt: true,
    }).tokenIds;
    tokenIds.push(...delta);
    assistantMask.push(...delta.map(() => 0));
  }
  return {
    kind: conversation.kind,
    position: conversation.position,
    taskId: conversation.taskId,
    tokenIds,
    assistantMask,
    text: tokenizer.decode(tokenIds),
  };
}

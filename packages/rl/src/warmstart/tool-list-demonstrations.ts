import type { PromptMode, ProtocolName } from '@seal/env';
import { PyRandom } from '@seal/python';
import type { PolicyV1Tokenizer, Task, ToolBackendV1 } from '@seal/spec';
import {
  buildDemonstration,
  demonstrationResponses,
  missingToolReply,
  type Demonstration,
} from './demonstrations';
import { randomSealOverlay } from './random-overlay';

/** One base task's first turn, with the tools it needs offered and withheld. */
export type ToolListPair = {
  /** The first turn as generated: its tools and its ground-truth calls. */
  offered: Task;
  /**
   * The same first turn with the tools its ground truth calls taken out of
   * the list and an empty ground truth: the right answer is plain text.
   */
  withheld: Task;
};

/** The names of the tools a ground-truth turn calls, in order, each once. */
function calledToolNames(calls: readonly string[]): string[] {
  return [
    ...new Set(
      calls.map((call) => call.slice(0, Math.max(0, call.indexOf('(')))),
    ),
  ];
}

/**
 * The contrastive first turns of a pool's base tasks (issue 44): for each
 * `multi_turn_base` task whose first turn's ground truth calls a tool, the
 * one-turn task as generated (`<id>#offered`) and the same turn with the
 * called tools removed from `tools` and an empty ground truth
 * (`<id>#withheld`). The two differ only in the tool list, so a model trained
 * on both must read the list to tell them apart. Other tasks are skipped.
 */
export function toolListPairs(tasks: readonly Task[]): ToolListPair[] {
  const pairs: ToolListPair[] = [];
  for (const task of tasks) {
    const firstTurn = task.turns[0];
    const firstCalls = task.groundTruth[0] ?? [];
    if (
      task.category !== 'multi_turn_base' ||
      firstTurn === undefined ||
      firstCalls.length === 0
    )
      continue;
    const needed = calledToolNames(firstCalls);
    // One turn: the episode ends after it, and no later turn's holdout applies.
    const oneTurn = { ...task, turns: [firstTurn], holdouts: [] };
    pairs.push({
      offered: {
        ...oneTurn,
        id: `${task.id}#offered`,
        groundTruth: [[...firstCalls]],
      },
      withheld: {
        ...oneTurn,
        id: `${task.id}#withheld`,
        tools: task.tools.filter((tool) => !needed.includes(tool.name)),
        groundTruth: [[]],
      },
    });
  }
  return pairs;
}

/**
 * Supervised demonstrations of the {@link toolListPairs} of a pool, offered
 * then withheld per task, built by {@link buildDemonstration} through a real
 * episode, so the system prompt, the tool rendering and the chat template are
 * exactly an episode's. The offered turn is answered by its ground-truth
 * calls, one per step, then `Done.`; the withheld turn by
 * {@link missingToolReply} in plain text, as the system prompt asks when no
 * tool can do the request (`demonstrationResponses` would answer a base
 * turn with no calls `Done.`, which claims work that was not done).
 *
 * With probability `overlayShare` (seeded) a pair is rendered under a random
 * SEAL training overlay drawn from the task's full tool list; both forms share
 * it, so they still differ only in the tool list (a withheld tool's cues
 * have no doc to attach to). Deterministic for a seed.
 *
 * With `recovery`, each pair adds a third demonstration: the withheld turn
 * in which the model calls the missing tool anyway (the turn's first
 * ground-truth call), gets the episode's `not available` error, and then
 * replies in plain text. Only the reply is trained (the wrong call is
 * context, masked out of the loss): what a miss_func turn needs of a model
 * that has called a missing tool is to stop, not to retry until the episode
 * runs out of context (issue 44).
 */
export function buildToolListDemonstrations({
  tasks,
  tokenizer,
  backend,
  seed = 0,
  overlayShare = 0,
  protocol = 'bfcl-python',
  promptMode = 'compact',
  recovery = false,
}: {
  /** The pool (its base tasks are used; the warmup pool, never a test split). */
  tasks: readonly Task[];
  tokenizer: PolicyV1Tokenizer;
  backend: ToolBackendV1;
  seed?: number;
  /** Share of pairs rendered under a random SEAL overlay (default 0). */
  overlayShare?: number;
  protocol?: ProtocolName;
  promptMode?: PromptMode;
  /** Also the withheld turn recovered from a call of the missing tool (default false). */
  recovery?: boolean;
}): Demonstration[] {
  const random = new PyRandom(BigInt(seed) * 4099n + 44n);
  return toolListPairs(tasks).flatMap(({ offered, withheld }) => {
    const overlay =
      overlayShare > 0 && random.random() < overlayShare
        ? randomSealOverlay({ tools: offered.tools, random })
        : undefined;
    const build = (task: Task, responses: string[][]) =>
      buildDemonstration({
        task,
        tokenizer,
        backend,
        protocol,
        promptMode,
        responses,
        ...(overlay === undefined ? {} : { overlay }),
      });
    const offeredResponses = demonstrationResponses(offered);
    const demonstrations = [
      build(offered, offeredResponses),
      build(withheld, [[missingToolReply]]),
    ];
    const wrongCall = offeredResponses[0]?.[0];
    if (recovery && wrongCall !== undefined)
      demonstrations.push(
        withFirstResponseMasked(
          build(withheld, [[wrongCall, missingToolReply]]),
          `${withheld.id}:recovered`,
        ),
      );
    return demonstrations;
  });
}

/** A demonstration whose first assistant response is context, not trained. */
function withFirstResponseMasked(
  demonstration: Demonstration,
  taskId: string,
): Demonstration {
  const mask = [...demonstration.assistantMask];
  const start = mask.indexOf(1);
  for (let i = start; i >= 0 && i < mask.length && mask[i] === 1; i++)
    mask[i] = 0;
  return { ...demonstration, taskId, assistantMask: mask };
}

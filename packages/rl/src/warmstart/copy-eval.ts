import type { PolicyV1, PolicyV1ChatMessage, Task } from '@seal/spec';
import { callLiterals, turnDrillPairs } from './copy-drills';

/** What {@link evaluateCopying} measures. */
export type CopyEvaluation = {
  /** Held-out turn drills tried. */
  drills: number;
  /** Drills answered with exactly the ground-truth call (greedy). */
  exact: number;
  /** Literal values (strings, numbers) the ground-truth calls hold. */
  literals: number;
  /** Of those, how many the answer holds verbatim. */
  literalsCopied: number;
};

/**
 * How well a policy copies values: greedy answers to the turn drills of
 * held-out tasks (a user request alone; the answer is the turn's first call,
 * whose every value appears in the request), scored as exact calls and as
 * the share of the call's literal values copied verbatim.
 */
export async function evaluateCopying({
  policy,
  tasks,
  maxTokens = 96,
  batchSize = 32,
  context,
}: {
  policy: PolicyV1;
  tasks: readonly Task[];
  maxTokens?: number;
  batchSize?: number;
  /**
   * The conversation a drill's request is asked in (for example an
   * episode's system prompt and first user turn), or undefined to skip the
   * drill. Default: the request alone, as the copy drills are trained.
   */
  context?: (task: Task, turn: number) => PolicyV1ChatMessage[] | undefined;
}): Promise<CopyEvaluation> {
  const byId = new Map(tasks.map((task) => [task.id, task]));
  const pairs = turnDrillPairs(tasks).flatMap((pair) => {
    if (!context)
      return [
        { ...pair, messages: [{ role: 'user' as const, content: pair.user }] },
      ];
    const [taskId, turn] = pair.id.split('#turn');
    const messages = context(byId.get(taskId!)!, Number(turn));
    return messages ? [{ ...pair, messages }] : [];
  });
  const result: CopyEvaluation = {
    drills: pairs.length,
    exact: 0,
    literals: 0,
    literalsCopied: 0,
  };
  const stop = new Set(policy.tokenizer.stopTokenIds);
  for (let start = 0; start < pairs.length; start += batchSize) {
    const batch = pairs.slice(start, start + batchSize);
    const prompts = batch.map((pair) => [
      ...policy.tokenizer.renderChat({
        messages: pair.messages,
        addGenerationPrompt: true,
      }).tokenIds,
    ]);
    const { generations } = await policy.generate({
      prompts,
      maxTokens,
      temperature: 0,
    });
    batch.forEach((pair, i) => {
      // The answer without its stop token (as an episode reads a response).
      const tokens = generations[i]!.tokenIds;
      const answer = (
        tokens.length > 0
          ? policy.tokenizer.decode(
              stop.has(tokens[tokens.length - 1]!)
                ? tokens.slice(0, -1)
                : tokens,
            )
          : generations[i]!.text
      ).trim();
      if (answer === pair.call) result.exact++;
      const expected = callLiterals(pair.call);
      const got = callLiterals(answer);
      result.literals += expected.length;
      // Each expected literal is matched by at most one literal of the answer.
      const pool = [...got];
      for (const literal of expected) {
        const index = pool.indexOf(literal);
        if (index >= 0) {
          result.literalsCopied++;
          pool.splice(index, 1);
        }
      }
    });
  }
  return result;
}

import type { PolicyV1, Task } from '@seal/spec';
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
}: {
  policy: PolicyV1;
  tasks: readonly Task[];
  maxTokens?: number;
  batchSize?: number;
}): Promise<CopyEvaluation> {
  const pairs = turnDrillPairs(tasks);
  const result: CopyEvaluation = { drills: pairs.length, exact: 0, literals: 0, literalsCopied: 0 };
  for (let start = 0; start < pairs.length; start += batchSize) {
    const batch = pairs.slice(start, start + batchSize);
    const prompts = batch.map((pair) => [...policy.tokenizer.renderChat({ messages: [{ role: 'user', content: pair.user }], addGenerationPrompt: true }).tokenIds]);
    const { generations } = await policy.generate({ prompts, maxTokens, temperature: 0 });
    batch.forEach((pair, i) => {
      const answer = generations[i]!.text.trim();
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

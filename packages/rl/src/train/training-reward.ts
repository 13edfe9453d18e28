import type { Rewards } from '@seal/spec';

/**
 * The scalar reward of one episode (pure).
 *
 * - Environment Tuning's stages set their own reward: `format` (the format
 *   reward, halved to 0–1) or `progress` (the share of turns passed).
 * - Otherwise BFCL's binary verdict plus `progressWeight` × the progress
 *   reward. With `strictAbstention` the verdict also fails an episode that
 *   called a tool in a turn whose ground truth is empty
 *   (`spurious_tool_call`): BFCL's irrelevance check, which BFCL's runner
 *   leaves out.
 */
export function trainingReward({
  verdict,
  progressWeight,
  strictAbstention,
  stageReward,
}: {
  /** BFCL's verdict, or a v2 environment's (open-string tags). */
  verdict: { rewards: Rewards; turns: readonly { tag: string }[] };
  progressWeight: number;
  strictAbstention: boolean;
  /** The Environment Tuning stage's reward, if a stage is running. */
  stageReward?: 'format' | 'progress' | undefined;
}): number {
  if (stageReward === 'format') return verdict.rewards.format / 2;
  if (stageReward === 'progress') return verdict.rewards.progress;
  const spurious =
    strictAbstention &&
    verdict.turns.some((turn) => turn.tag === 'spurious_tool_call');
  return (
    (spurious ? 0 : verdict.rewards.binary) +
    progressWeight * verdict.rewards.progress
  );
}

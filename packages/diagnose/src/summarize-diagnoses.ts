import type { DiagnosisSummary, EpisodeDiagnosis } from '@seal/spec';
import { CapabilityState } from './capability-state';

/**
 * Aggregates diagnoses with the capability state's counting rules (tags once
 * per turn carrying the episode's reward; categories once per episode):
 * counts and reward means by tag, by `category::tag` and by fine tag,
 * accuracy by category (its `successRate`), dominant tags, trajectory flags.
 */
export function summarizeDiagnoses(
  diagnoses: readonly EpisodeDiagnosis[],
): DiagnosisSummary {
  const state = new CapabilityState();
  const dominantTags: Record<string, number> = {};
  const trajectory = { clean: 0, hasInvalidToolCall: 0, hasToolError: 0 };
  let rewardSum = 0;
  let successes = 0;
  for (const diagnosis of diagnoses) {
    const dominant = state.observeDiagnosis({ diagnosis });
    dominantTags[dominant] = (dominantTags[dominant] ?? 0) + 1;
    rewardSum += diagnosis.reward;
    if (diagnosis.success) successes++;
    if (diagnosis.trajectory.clean) trajectory.clean++;
    if (diagnosis.trajectory.hasInvalidToolCall)
      trajectory.hasInvalidToolCall++;
    if (diagnosis.trajectory.hasToolError) trajectory.hasToolError++;
  }
  const snapshot = state.snapshot({ scope: 'total' });
  const episodes = diagnoses.length;
  return {
    schemaVersion: 1,
    episodes,
    accuracy: episodes > 0 ? successes / episodes : 0,
    rewardMean: episodes > 0 ? rewardSum / episodes : 0,
    categories: snapshot.categories,
    tags: snapshot.tags,
    categoryTags: snapshot.categoryTags,
    fineTags: snapshot.fineTags,
    dominantTags,
    trajectory,
  };
}

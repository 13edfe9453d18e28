import type { EpisodeDiagnosis, FailureTag, FineTag } from '@seal/spec';
import { describe, expect, it } from 'vitest';
import { summarizeDiagnoses } from './summarize-diagnoses';

function diagnosis({
  taskId,
  reward,
  tags,
  fineTags = [],
  clean = false,
}: {
  taskId: string;
  reward: number;
  tags: FailureTag[];
  fineTags?: FineTag[][];
  clean?: boolean;
}): EpisodeDiagnosis {
  return {
    schemaVersion: 1,
    episodeId: `${taskId}:0`,
    taskId,
    category: taskId.slice(0, taskId.lastIndexOf('_')),
    verifierId: 'test',
    reward,
    success: reward >= 1,
    dominantTag: 'pass',
    turns: tags.map((tag, turn) => ({
      turn,
      tag,
      fineTags: fineTags[turn] ?? [],
      reached: true,
      parseErrors: 0,
      refusedCalls: 0,
      executedCalls: 1,
      toolErrors: [],
    })),
    trajectory: {
      clean,
      hasInvalidToolCall: !clean,
      hasToolError: false,
      errorCount: clean ? 0 : 1,
      numUserTurns: tags.length,
      numTurnsWithToolCall: tags.length,
      numToolCallsAttempted: tags.length,
      numToolCallsAccepted: tags.length,
      numToolExecutionsNoError: tags.length,
      turnCoverageRate: 1,
      toolCallAcceptRate: 1,
      toolExecSuccessRate: 1,
    },
    errors: [],
    warnings: [],
  };
}

describe('summarizeDiagnoses', () => {
  it('should count tags per turn with episode rewards, and accuracy per category', () => {
    const summary = summarizeDiagnoses([
      diagnosis({
        taskId: 'multi_turn_base_1',
        reward: 1,
        tags: ['pass', 'pass'],
        clean: true,
      }),
      diagnosis({
        taskId: 'multi_turn_base_2',
        reward: 0,
        tags: ['pass', 'state_mismatch', 'state_mismatch'],
        fineTags: [[], ['argument_mismatch'], []],
      }),
      diagnosis({
        taskId: 'multi_turn_miss_func_1',
        reward: 1,
        tags: ['correct_abstention', 'pass'],
      }),
    ]);
    expect(summary.episodes).toBe(3);
    expect(summary.accuracy).toBeCloseTo(2 / 3);
    expect(summary.tags['pass']).toMatchObject({
      count: 4,
      success: 3,
      rewardMean: 0.75,
    });
    expect(summary.tags['state_mismatch']).toMatchObject({
      count: 2,
      rewardMean: 0,
    });
    expect(summary.categoryTags['multi_turn_base::pass']).toMatchObject({
      count: 3,
    });
    expect(summary.categories['multi_turn_base']).toMatchObject({
      count: 2,
      successRate: 0.5,
    });
    expect(summary.categories['multi_turn_miss_func']).toMatchObject({
      count: 1,
      successRate: 1,
    });
    expect(summary.fineTags).toEqual({
      argument_mismatch: {
        count: 1,
        success: 0,
        successRate: 0,
        rewardMean: 0,
        partialCount: 0,
      },
    });
    expect(summary.dominantTags).toEqual({
      pass: 1,
      state_mismatch: 1,
      correct_abstention: 1,
    });
    expect(summary.trajectory).toEqual({
      clean: 1,
      hasInvalidToolCall: 2,
      hasToolError: 0,
    });
  });

  it('should summarise nothing as zeros', () => {
    expect(summarizeDiagnoses([])).toMatchObject({
      episodes: 0,
      accuracy: 0,
      rewardMean: 0,
      tags: {},
    });
  });
});

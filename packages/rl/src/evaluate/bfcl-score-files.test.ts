import { createBfclBackend } from '@seal/bfcl';
import { createGeneratorRuntime, generateTasks } from '@seal/bfcl-tasks';
import { createBfclVerifier } from '@seal/verifier';
import { describe, expect, it } from 'vitest';
import {
  bfclMultiTurnCsv,
  buildBfclScoreFiles,
  displayAccuracy,
} from './bfcl-score-files';
import { evaluateChatModel } from './evaluate-chat-model';

describe('displayAccuracy', () => {
  it("should format as BFCL's {:.2f}%", () => {
    expect(displayAccuracy(0)).toBe('0.00%');
    expect(displayAccuracy(1 / 3)).toBe('33.33%');
    expect(displayAccuracy(1)).toBe('100.00%');
  });
});

describe('bfclMultiTurnCsv', () => {
  it("should write data_multi_turn.csv's columns, N/A for a category not run, best model first", () => {
    const csv = bfclMultiTurnCsv([
      {
        modelName: 'a',
        scores: {
          overall: 0.125,
          categories: {
            multi_turn_base: { accuracy: 0.5, correctCount: 1, totalCount: 2 },
          },
        },
      },
      {
        modelName: 'b',
        scores: {
          overall: 0.5,
          categories: {
            multi_turn_base: { accuracy: 0.5, correctCount: 1, totalCount: 2 },
            multi_turn_miss_func: {
              accuracy: 1,
              correctCount: 2,
              totalCount: 2,
            },
            multi_turn_miss_param: {
              accuracy: 0,
              correctCount: 0,
              totalCount: 2,
            },
            multi_turn_long_context: {
              accuracy: 0.5,
              correctCount: 1,
              totalCount: 2,
            },
          },
        },
      },
    ]);
    expect(csv).toBe(
      [
        'Rank,Model,Multi Turn Overall Acc,Base,Miss Func,Miss Param,Long Context',
        '1,b,50.00%,50.00%,100.00%,0.00%,50.00%',
        '2,a,12.50%,50.00%,N/A,N/A,N/A',
      ].join('\n'),
    );
  });
});

describe('buildBfclScoreFiles', () => {
  it("should give BFCL's accounting and score-file rows for failed entries only", async () => {
    const runtime = createGeneratorRuntime();
    const tasks = generateTasks({ seed: 4, split: 'test-id', count: 8 });
    const episodes = await evaluateChatModel({
      model: {
        specificationVersion: 'v1',
        modelId: 'replier',
        complete: async () => ({
          message: { role: 'assistant', content: 'No.' },
          finishReason: 'stop',
          usage: { promptTokens: 1, completionTokens: 1 },
        }),
      },
      tasks,
      backend: createBfclBackend({ runtime }),
      verifier: createBfclVerifier({ runtime }),
    });
    const files = buildBfclScoreFiles({
      modelName: 'replier',
      scored: episodes.map((e) => ({
        task: e.task,
        record: e.record,
        verification: e.result,
      })),
    });
    const categories = Object.keys(files.summary.categories);
    expect(categories).toEqual([
      'multi_turn_base',
      'multi_turn_miss_func',
      'multi_turn_miss_param',
      'multi_turn_long_context',
    ]);
    for (const category of categories) {
      const [header, ...failed] = files.categoryFiles[category]!;
      const score = files.scores.categories[category]!;
      expect(header).toEqual({
        accuracy: score.accuracy,
        correct_count: score.correctCount,
        total_count: score.totalCount,
      });
      expect(failed).toHaveLength(score.totalCount - score.correctCount);
      for (const row of failed) {
        expect(row).toMatchObject({
          model_name: 'replier',
          test_category: category,
          valid: false,
        });
        expect(typeof row.error['error_type']).toBe('string');
        expect(
          row.model_result_raw.flat().every((text) => text === 'No.'),
        ).toBe(true);
      }
    }
    const mean =
      categories.reduce(
        (sum, c) => sum + files.scores.categories[c]!.accuracy,
        0,
      ) / 4;
    expect(files.summary.multi_turn_overall.accuracy).toBeCloseTo(mean, 12);
    expect(files.csv.split('\n')[1]).toMatch(/^1,replier,/);
  });
});

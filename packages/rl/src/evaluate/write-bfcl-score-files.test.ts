import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createBfclBackend } from '@seal/bfcl';
import { createGeneratorRuntime, generateTasks } from '@seal/bfcl-tasks';
import { createBfclVerifier } from '@seal/verifier';
import { describe, expect, it, onTestFinished } from 'vitest';
import { buildBfclScoreFiles } from './bfcl-score-files';
import { evaluateChatModel } from './evaluate-chat-model';
import { writeBfclScoreFiles } from './write-bfcl-score-files';

describe('writeBfclScoreFiles', () => {
  it("should write scores.json, scores.csv and BFCL's per-category score files under the model's name", async () => {
    const runtime = createGeneratorRuntime();
    const episodes = await evaluateChatModel({
      model: {
        specificationVersion: 'v1',
        modelId: 'org/replier',
        complete: async () => ({
          message: { role: 'assistant', content: 'No.' },
          finishReason: 'stop',
          usage: { promptTokens: 1, completionTokens: 1 },
        }),
      },
      tasks: generateTasks({ seed: 4, split: 'test-id', count: 8 }),
      backend: createBfclBackend({ runtime }),
      verifier: createBfclVerifier({ runtime }),
    });
    const files = buildBfclScoreFiles({
      modelName: 'org/replier',
      scored: episodes.map((e) => ({
        task: e.task,
        record: e.record,
        verification: e.result,
      })),
    });
    const out = mkdtempSync(join(tmpdir(), 'seal-scores-'));
    onTestFinished(() => rmSync(out, { recursive: true, force: true }));
    const paths = await writeBfclScoreFiles({
      outDirectory: out,
      modelName: 'org/replier',
      files,
      summary: { ...files.summary, configHash: 'abc' },
    });
    expect(paths.categoryDirectory).toBe(join(out, 'score', 'org_replier'));
    expect(JSON.parse(readFileSync(paths.summary, 'utf8'))).toEqual({
      ...files.summary,
      configHash: 'abc',
    });
    expect(readFileSync(paths.csv, 'utf8')).toBe(`${files.csv}\n`);
    expect(readdirSync(paths.categoryDirectory).sort()).toEqual(
      Object.keys(files.categoryFiles)
        .map((category) => `BFCL_v3_${category}_score.json`)
        .sort(),
    );
    for (const [category, rows] of Object.entries(files.categoryFiles)) {
      const lines = readFileSync(
        join(paths.categoryDirectory, `BFCL_v3_${category}_score.json`),
        'utf8',
      )
        .trimEnd()
        .split('\n')
        .map((line) => JSON.parse(line) as unknown);
      expect(lines).toEqual(rows);
    }
    // No temporary file is left behind.
    expect(readdirSync(out).sort()).toEqual([
      'score',
      'scores.csv',
      'scores.json',
    ]);
  });
});

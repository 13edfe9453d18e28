import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  buildBpeTokenizer,
  copyFriendlyPretokenizerPattern,
  createModelConfig,
  createOrtPolicy,
} from '@seal/engine-ort';
import { MockPolicyV1 } from '@seal/engine-ort/test';
import {
  packRunRecordSchema,
  type PolicyV1,
  type PolicyV1GenerateOptions,
  type PolicyV1GenerateResult,
} from '@seal/spec';
import {
  afterAll,
  beforeAll,
  describe,
  expect,
  it,
  onTestFinished,
} from 'vitest';
import {
  createFrozenLakeEnvironment,
  frozenLakeSystemPrompt,
} from '../frozen-lake/frozen-lake-environment';
import { generateFrozenLakeTasks } from '../frozen-lake/frozen-lake-tasks';
import { hintSectionHeader, initialHints } from '../hints/hint-section';
import {
  hintEndDelimiter,
  hintStartDelimiter,
} from '../hints/parse-hint-block';
import { updateContextSystemPrompt } from '../hints/update-context-prompt';
import { buildPacks } from '../packs/build-packs';
import { readPackRunFile } from './pack-run-file';
import { summarizePackPositions } from './position-summary';
import { runPackRuns, type RunPackRunsOptions } from './run-pack-runs';
import { runPacks } from './run-packs';
import { trainCodStep } from './train-cod-step';

const environment = createFrozenLakeEnvironment({ maxSteps: 3 });
const tasks = generateFrozenLakeTasks({ seed: 2, count: 12, maxSize: 4 });
const packs = buildPacks({
  tasks,
  taskId: (t) => t.taskId,
  tasksetId: (t) => t.tasksetId,
  packSize: 3,
  seed: 5,
});

let policy: PolicyV1;

/** A tiny random engine model (about 30k parameters) with a tokenizer trained on the prompts it will see. */
beforeAll(async () => {
  const corpus = [
    frozenLakeSystemPrompt(3),
    updateContextSystemPrompt,
    ...tasks.map(
      (task) =>
        `Map:\n${task.rows.join('\n')}\nYou are at (0,0). The goal is at (3,3).`,
    ),
    ...[1, 2, 3, 4].map(
      (k) =>
        `<answer>Direction ${k}</answer> Direction ${k}: you moved from (1,2) to (2,2).`,
    ),
  ];
  const tokenizer = buildBpeTokenizer({
    corpus,
    vocabSize: 700,
    pattern: copyFriendlyPretokenizerPattern,
  });
  const config = createModelConfig({
    vocabSize: 704,
    hiddenSize: 32,
    intermediateSize: 64,
    numLayers: 1,
    numHeads: 2,
    numKeyValueHeads: 1,
    maxPositionEmbeddings: 1024,
    initializerRange: 0.2,
  });
  policy = await createOrtPolicy({
    model: { config, seed: 3 },
    tokenizer,
    worker: false,
    threads: 1,
  });
});
afterAll(() => policy.close());

function options(
  overrides: Partial<RunPackRunsOptions<(typeof tasks)[number]>> = {},
): RunPackRunsOptions<(typeof tasks)[number]> {
  return {
    policy,
    environment,
    pack: packs[0]!,
    groupSize: 2,
    sampling: { maxTokens: 8, updateMaxTokens: 12, temperature: 1, seed: 11 },
    mode: 'train',
    policyStep: 0,
    ...overrides,
  };
}

function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'seal-cod-'));
  onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

describe('runPackRuns (tiny engine policy)', () => {
  it('should alternate solves and updates, starting from Hints: null, with valid records', async () => {
    const results = await runPackRuns(options());
    expect(results).toHaveLength(2);
    for (const { record, solveTokens, updateTokens } of results) {
      expect(packRunRecordSchema.parse(record)).toEqual(record);
      expect(record.solves.map((s) => s.position)).toEqual([0, 1, 2]);
      expect(record.updates.map((u) => u.afterPosition)).toEqual([0, 1]);
      expect(record.solves[0]!.hints).toBe(initialHints);
      // Each solve runs with the hints the previous update wrote, inside its system prompt.
      for (const [i, update] of record.updates.entries()) {
        expect(record.solves[i + 1]!.hints).toBe(update.hints);
        expect(record.solves[i + 1]!.messages[0]!.content).toContain(
          update.hints,
        );
      }
      expect(
        record.updates.every(
          (u) => u.failure !== 'context-limit' && u.responseTokens > 0,
        ),
      ).toBe(true);
      expect(record.taskRewards).toEqual(record.solves.map((s) => s.reward));
      expect(record.hintRewards.every((h) => h <= 0)).toBe(true);
      expect(solveTokens).toHaveLength(3);
      expect(updateTokens).toHaveLength(2);
      for (const tokens of [...solveTokens, ...updateTokens]) {
        expect(tokens.generatedMask).toHaveLength(tokens.tokenIds.length);
        expect(tokens.samplingLogprobs).toHaveLength(tokens.tokenIds.length);
        expect(tokens.tokenIds.length).toBeLessThanOrEqual(
          policy.maxSequenceLength,
        );
      }
      // The token context decodes to what the records say was generated.
      const solve = record.solves[0]!;
      const generated = solveTokens[0]!.tokenIds.filter(
        (_, t) => solveTokens[0]!.generatedMask[t] === 1,
      );
      expect(generated.length).toBe(solve.responseTokens);
    }
  });

  it('should be deterministic for a seed and differ for another seed', async () => {
    const first = await runPackRuns(options());
    const again = await runPackRuns(options());
    expect(again.map((r) => r.record)).toEqual(first.map((r) => r.record));
    const other = await runPackRuns(
      options({
        sampling: {
          maxTokens: 8,
          updateMaxTokens: 12,
          temperature: 1,
          seed: 12,
        },
      }),
    );
    expect(other.map((r) => r.solveTokens[0]!.tokenIds)).not.toEqual(
      first.map((r) => r.solveTokens[0]!.tokenIds),
    );
  });

  it('should solve every task with Hints: null and no update when the tasks run one by one, and train them per task', async () => {
    const results = await runPackRuns(options({ independentTasks: true }));
    for (const { record, updateTokens } of results) {
      expect(packRunRecordSchema.parse(record)).toEqual(record);
      expect(record.solves.map((s) => s.hints)).toEqual([
        initialHints,
        initialHints,
        initialHints,
      ]);
      expect(record.updates).toEqual([]);
      expect(updateTokens).toEqual([]);
    }
    const step = await trainCodStep({
      policy,
      results,
      returns: { style: 'sliding-window', window: 1 },
      red: false,
      train: { learningRate: 0 },
    });
    for (const { record } of results) {
      // GRPO per task: r_i minus the group's mean reward at that task.
      record.taskRewards.forEach((reward, i) => {
        const mean =
          results.reduce(
            (sum, other) => sum + other.record.taskRewards[i]!,
            0,
          ) / results.length;
        expect(record.advantages!.solve[i]).toBeCloseTo(reward - mean, 12);
      });
      expect(record.advantages!.update).toEqual([]);
    }
    expect(step.episodes).toBe(6);
  });

  it('should penalise an update whose prompt does not fit the model and fall back to no hint', async () => {
    const [result] = await runPackRuns(
      options({ groupSize: 1, maxSequenceLength: 400 }),
    );
    // The solve prompts fit in 400 tokens; the update prompt (instructions and trajectory) does not.
    expect(result!.record.solves[0]!.endReason).toBe('finished');
    expect(
      result!.record.updates.every(
        (u) => u.failure === 'context-limit' && u.reward === -0.1,
      ),
    ).toBe(true);
    expect(result!.record.solves[1]!.hints).toBe('Hints: no hint available.');
  });
});

describe('runPackRuns (a scripted policy that writes hint blocks)', () => {
  // The tiny random model cannot write a delimited hint block; this policy
  // does, so the path of a parsed hint into the next solve is exercised.
  it('should inject a parsed hint into the next solve and never show the update its own hint section', async () => {
    const updatePrompts: string[] = [];
    const scripted = new MockPolicyV1({
      maxSequenceLength: 100_000,
      generate: (request: PolicyV1GenerateOptions): PolicyV1GenerateResult => ({
        generations: (request.prompts ?? []).map((prompt) => {
          const text = scripted.tokenizer.decode(prompt);
          const isUpdate = text.includes('Previous hints:');
          if (isUpdate) updatePrompts.push(text);
          const answer = isUpdate
            ? `Direction 2 did nothing.\n${hintStartDelimiter}\n- Direction 2 may be up\n${hintEndDelimiter}`
            : '<answer>Direction 2</answer>';
          const tokenIds = [...scripted.tokenizer.encode(answer), 257];
          return {
            tokenIds,
            text: answer,
            logprobs: tokenIds.map(() => -0.1),
            modelLogprobs: tokenIds.map(() => -0.1),
            finishReason: 'stop' as const,
            promptTokenIds: prompt,
          };
        }),
        usage: { promptTokens: 0, completionTokens: 0 },
      }),
    });
    const [result] = await runPackRuns(
      options({ policy: scripted, groupSize: 1 }),
    );
    const record = result!.record;
    expect(record.updates.map((u) => u.hints)).toEqual([
      'Hints: - Direction 2 may be up',
      'Hints: - Direction 2 may be up',
    ]);
    expect(record.hintRewards).toEqual([0, 0]);
    expect(record.solves[1]!.messages[0]!.content).toContain(
      `${hintSectionHeader}\n`,
    );
    expect(record.solves[1]!.messages[0]!.content).toContain(
      'Hints: - Direction 2 may be up',
    );
    expect(updatePrompts).toHaveLength(2);
    expect(updatePrompts[0]).toContain('Previous hints:\nHints: null');
    expect(updatePrompts[1]).toContain(
      'Previous hints:\nHints: - Direction 2 may be up',
    );
    expect(
      updatePrompts.every((text) => !text.includes(hintSectionHeader)),
    ).toBe(true);
    expect(updatePrompts[0]).toContain('Step 1:\nObservation: Map:');
  });
});

describe('runPackRuns (a hint block over the length limit)', () => {
  it('should penalise the block, parse it as no hint and keep the pack run', async () => {
    const long = `- ${'Direction 3 moves down. '.repeat(10)}`;
    const scripted = new MockPolicyV1({
      maxSequenceLength: 100_000,
      generate: (request: PolicyV1GenerateOptions): PolicyV1GenerateResult => ({
        generations: (request.prompts ?? []).map((prompt) => {
          const isUpdate = scripted.tokenizer
            .decode(prompt)
            .includes('Previous hints:');
          const answer = isUpdate
            ? `${hintStartDelimiter}\n${long}\n${hintEndDelimiter}`
            : '<answer>Direction 3</answer>';
          const tokenIds = [...scripted.tokenizer.encode(answer), 257];
          return {
            tokenIds,
            text: answer,
            logprobs: tokenIds.map(() => -0.1),
            modelLogprobs: tokenIds.map(() => -0.1),
            finishReason: 'stop' as const,
            promptTokenIds: prompt,
          };
        }),
        usage: { promptTokens: 0, completionTokens: 0 },
      }),
    });
    const file = join(tempDir(), 'long.jsonl');
    const { records } = await runPacks({
      ...options({ policy: scripted, groupSize: 1, hints: { maxLength: 100 } }),
      packs: packs.slice(0, 1),
      file,
    });
    const [record] = records;
    expect(
      record!.updates.map((update) => [
        update.parsed,
        update.failure,
        update.reward,
        update.hints,
      ]),
    ).toEqual([
      [false, 'too-long', -0.1, 'Hints: no hint available.'],
      [false, 'too-long', -0.1, 'Hints: no hint available.'],
    ]);
    // The raw block is kept for the viewer; the next solve never sees it.
    expect(record!.updates[0]!.response).toContain(long.trim());
    expect(record!.solves[1]!.messages[0]!.content).not.toContain(
      'Direction 3 moves down',
    );
    expect(record!.hintRewards).toEqual([-0.1, -0.1]);
    expect(
      readPackRunFile({ path: file, groupSize: 1 }).completed.get(
        record!.packId,
      ),
    ).toEqual([record]);
  });
});

describe('runPacks', () => {
  it('should resume at the pack boundary after a kill, with nothing lost or duplicated', async () => {
    const dir = tempDir();
    const file = join(dir, 'packs.jsonl');
    const common = { ...options(), packs: packs.slice(0, 2) };
    const whole = await runPacks(common);

    // A run killed during the second pack: pack 1 complete, one run of pack 2 and a torn line.
    const resumeFile = join(dir, 'resume.jsonl');
    const lines = whole.records.map((record) => JSON.stringify(record));
    writeFileSync(
      resumeFile,
      `${lines[0]}\n${lines[1]}\n${lines[2]}\n${lines[3]!.slice(0, 50)}`,
    );
    expect(readPackRunFile({ path: resumeFile, groupSize: 2 })).toMatchObject({
      dropped: 2,
    });
    const resumed = await runPacks({ ...common, file: resumeFile });
    expect(resumed.resumedPacks).toBe(1);
    expect(resumed.records).toEqual(whole.records);
    const written = readFileSync(resumeFile, 'utf8').trim().split('\n');
    expect(written).toEqual(lines);

    // A fresh file gets every pack; a second call finds them all done.
    await runPacks({ ...common, file });
    const again = await runPacks({ ...common, file });
    expect(again.resumedPacks).toBe(2);
    expect(again.results).toHaveLength(0);
  });

  it('should refuse a corrupt line in the middle of a pack-run file by code', () => {
    const dir = tempDir();
    const file = join(dir, 'bad.jsonl');
    writeFileSync(file, '{"not":"a pack run"}\n{}\n');
    expect(() => readPackRunFile({ path: file, groupSize: 1 })).toThrow(
      expect.objectContaining({ code: 'INVALID_DATA' }),
    );
  });

  it('should summarise success and reward per pack position', async () => {
    const { records } = await runPacks({
      ...options(),
      packs: packs.slice(0, 1),
    });
    const summary = summarizePackPositions(records);
    expect(summary.map((s) => s.position)).toEqual([0, 1, 2]);
    expect(summary.every((s) => s.runs === 2)).toBe(true);
    const rewards = records.map((r) => r.taskRewards[1]!);
    expect(summary[1]!.rewardMean).toBeCloseTo(
      (rewards[0]! + rewards[1]!) / 2,
      12,
    );
  });
});

describe('trainCodStep (tiny engine policy)', () => {
  it('should fill the advantages, run RED and take one REC step that changes the policy', async () => {
    const own = await createOrtPolicy({
      model: {
        config: createModelConfig({
          vocabSize: 704,
          hiddenSize: 32,
          intermediateSize: 64,
          numLayers: 1,
          numHeads: 2,
          numKeyValueHeads: 1,
          maxPositionEmbeddings: 1024,
          initializerRange: 0.2,
        }),
        seed: 3,
      },
      tokenizer: buildBpeTokenizer({
        corpus: [frozenLakeSystemPrompt(3), updateContextSystemPrompt],
        vocabSize: 700,
        pattern: copyFriendlyPretokenizerPattern,
      }),
      worker: false,
      threads: 1,
    });
    onTestFinished(() => own.close());
    const results = await runPackRuns(options({ policy: own }));
    // Make the runs differ so the advantages are not all zero.
    results[0]!.record.taskRewards[2] = 0.9;
    const before = await own.score({
      sequences: [results[0]!.solveTokens[0]!.tokenIds],
    });
    const step = await trainCodStep({
      policy: own,
      results,
      train: { learningRate: 1e-2 },
    });
    expect(step.train).not.toBeNull();
    expect(step.train!.skipped).toBe(false);
    expect(Number.isFinite(step.loss)).toBe(true);
    expect(step.episodes).toBeGreaterThan(0);
    // Run 0's last solve has the higher return, so a positive advantage; run 1 the negative.
    expect(results[0]!.record.advantages!.solve[2]).toBeGreaterThan(0);
    expect(results[1]!.record.advantages!.solve[2]).toBeLessThan(0);
    expect(
      packRunRecordSchema.parse(results[0]!.record).advantages,
    ).not.toBeNull();
    const after = await own.score({
      sequences: [results[0]!.solveTokens[0]!.tokenIds],
    });
    expect(after.logprobs[0]).not.toEqual(before.logprobs[0]);
  });
});

import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { bfclTasks, createBfclBackend } from '@seal/bfcl';
import {
  hasSharedBfclData,
  loadSharedBfclData,
  sharedDataSkipMessage,
} from '@seal/bfcl/test';
import { MockPolicyV1 } from '@seal/engine-ort/test';
import { emptyOverlayHash } from '@seal/env';
import { PyRandom } from '@seal/python';
import type {
  EpisodeRecord,
  PolicyV1GenerateOptions,
  PolicyV1GenerateResult,
  Task,
} from '@seal/spec';
import { createBfclVerifier } from '@seal/verifier';
import { describe, expect, it, onTestFinished } from 'vitest';
import type { TrainConfigInput } from '../config/train-config';
import { runTraining } from './run-training';

function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'seal-envtuning-'));
  onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/**
 * A scripted policy over BFCL tasks: for each prompt, the ground-truth calls
 * of the current turn (found by counting user turns) or a closing reply.
 * `mode: 'mixed'` draws between them by the call's seed and replies after a
 * tool result; `mode: 'loop'` never replies (it calls the turn's first
 * ground-truth call again and again), so only a cap ends its turns.
 */
function scriptedPolicy(
  tasks: readonly Task[],
  {
    mode,
    crashAtGenerate,
  }: { mode: 'mixed' | 'loop'; crashAtGenerate?: number },
): MockPolicyV1 {
  let calls = 0;
  const policy: MockPolicyV1 = new MockPolicyV1({
    maxSequenceLength: 1_000_000,
    generate: (request: PolicyV1GenerateOptions): PolicyV1GenerateResult => {
      calls++;
      if (crashAtGenerate !== undefined && calls === crashAtGenerate)
        throw new Error('simulated crash');
      const rng = new PyRandom(BigInt(request.seed ?? 0));
      const generations = (request.prompts ?? []).map((prompt) => {
        const text = policy.tokenizer.decode(prompt);
        const task = tasks.find((t) => text.includes(t.turns[0]![0]!.content))!;
        const userTurns = text.split('<|im_start|>user').length - 1;
        const turn = Math.min(
          task.groundTruth.length - 1,
          Math.max(0, userTurns - 1),
        );
        const truth = task.groundTruth[turn]!;
        let answer: string;
        if (mode === 'loop') answer = `[${truth[0] ?? 'ls(a=True)'}]`;
        else {
          const afterResult =
            text.lastIndexOf("'role': 'tool'") >
            text.lastIndexOf('<|im_start|>user\n') - 1;
          answer =
            afterResult || rng.random() < 0.3 || truth.length === 0
              ? 'Done.'
              : `[${truth.join(', ')}]`;
        }
        const tokenIds = [...policy.tokenizer.encode(answer), 257];
        return {
          tokenIds,
          text: answer,
          logprobs: tokenIds.map(() => -0.5),
          modelLogprobs: tokenIds.map(() => -0.5),
          finishReason: 'stop' as const,
          promptTokenIds: prompt,
        };
      });
      return { generations, usage: { promptTokens: 0, completionTokens: 0 } };
    },
    score: (request) =>
      ({
        logprobs: request.sequences.map((s) =>
          new Float32Array(s.length).fill(-0.5),
        ),
      }) as never,
    train: () => ({
      loss: 0.1,
      gradNorm: 0.5,
      skipped: false,
      step: 1,
      metrics: {
        clipFraction: 0,
        kl: 0,
        ratioMean: 1,
        negativeLogLikelihood: 0.5,
        tokens: 10,
      },
    }),
  });
  return policy;
}

const readLines = <T>(path: string): T[] =>
  readFileSync(path, 'utf8')
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as T);

/** Every file under `dir` with its contents (events without their timings). */
function snapshot(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  out['events'] = readLines<Record<string, unknown>>(join(dir, 'events.jsonl'))
    .map(({ timing: _timing, ...rest }) => JSON.stringify(rest))
    .join('\n');
  for (const name of readdirSync(join(dir, 'episodes')).sort())
    out[name] = readFileSync(join(dir, 'episodes', name), 'utf8');
  return out;
}

const taskIds = [
  'multi_turn_base_0',
  'multi_turn_base_2',
  'multi_turn_base_5',
  'multi_turn_base_7',
  'multi_turn_base_11',
  'multi_turn_miss_param_3',
  'multi_turn_miss_func_5',
  'multi_turn_long_context_1',
];

describe.skipIf(!hasSharedBfclData)(
  'runTraining with Environment Tuning',
  () => {
    const setup = async () => {
      const dataset = await loadSharedBfclData();
      const tasks = bfclTasks({ dataset, ids: taskIds });
      return {
        tasks,
        common: {
          trainTasks: tasks,
          evalSets: [{ name: 'eval', tasks: tasks.slice(0, 2) }],
          backend: createBfclBackend({ runtime: dataset.runtime }),
          verifier: createBfclVerifier({ runtime: dataset.runtime }),
        },
      };
    };
    const config = (
      curriculum: TrainConfigInput['curriculum'],
      steps = 8,
    ): TrainConfigInput => ({
      runId: 'envtuning-test',
      seed: 3,
      method: 'envtuning',
      steps,
      tasksPerStep: 2,
      groupSize: 2,
      optimizerStepsPerStep: 1,
      sampling: { maxTokens: 64, temperature: 1 },
      episode: {
        protocol: 'bfcl-python',
        promptMode: 'compact',
        maxModelCalls: 12,
      },
      ppo: { klCoef: 0, learningRate: 1e-5 },
      evalEvery: 0,
      checkpointEvery: 1,
      curriculum,
    });

    it('should reach stage 4 on the step budget, validating on tasks it never trains on', async () => {
      const { tasks, common } = await setup();
      const dir = tempDir();
      const summary = await runTraining({
        ...common,
        config: config({
          validationTasks: 2,
          maxStepsPerStage: 2,
          patience: 50,
        }),
        policy: scriptedPolicy(tasks, { mode: 'mixed' }),
        runDirectory: dir,
      });
      expect(
        summary.stages.map(({ validation: _validation, ...change }) => change),
      ).toEqual([
        {
          schemaVersion: 1,
          type: 'stage',
          step: 2,
          from: 'syntax',
          to: 'hints',
          reason: 'budget',
        },
        {
          schemaVersion: 1,
          type: 'stage',
          step: 4,
          from: 'hints',
          to: 'hard',
          reason: 'budget',
        },
        {
          schemaVersion: 1,
          type: 'stage',
          step: 6,
          from: 'hard',
          to: 'independent',
          reason: 'budget',
        },
      ]);
      expect(summary.steps.map((s) => s.curriculumStage)).toEqual([
        'syntax',
        'syntax',
        'hints',
        'hints',
        'hard',
        'hard',
        'independent',
        'independent',
      ]);
      // The run directory records each stage change, after the step that ended the stage.
      const events = readLines<{ type: string; step: number }>(
        join(dir, 'events.jsonl'),
      );
      const stageEvents = events.filter((e) => e.type === 'stage');
      expect(stageEvents).toEqual(summary.stages);
      for (const change of stageEvents) {
        const at = events.indexOf(change);
        expect(
          events
            .slice(0, at)
            .some((e) => e.type === 'train-step' && e.step === change.step),
        ).toBe(true);
        expect(
          events
            .slice(at + 1)
            .some((e) => e.type === 'train-step' && e.step <= change.step),
        ).toBe(false);
      }
      // Validation before training and after every step, each stage change carrying its score.
      expect(summary.validations.map((v) => v.step)).toEqual([
        0, 1, 2, 3, 4, 5, 6, 7, 8,
      ]);
      for (const change of summary.stages)
        expect(change.validation).toBe(
          summary.validations.find((v) => v.step === change.step)!.accuracy,
        );
      const validationIds = Object.keys(
        summary.validations[0]!.taskSuccess,
      ).sort();
      expect(validationIds).toHaveLength(2);
      expect(
        summary.validations.every(
          (v) =>
            Object.keys(v.taskSuccess).sort().join() === validationIds.join(),
        ),
      ).toBe(true);
      const trainedIds = new Set(
        summary.steps.flatMap((s) => s.samples.map((sample) => sample.taskId)),
      );
      expect(validationIds.filter((id) => trainedIds.has(id))).toEqual([]);
      // Validation runs on the standard interface (eval mode, empty overlay).
      const validationRecords = readLines<EpisodeRecord>(
        join(dir, 'episodes', 'eval-000004-validation.jsonl'),
      );
      expect(
        validationRecords.every(
          (r) => r.mode === 'eval' && r.overlayHash === emptyOverlayHash,
        ),
      ).toBe(true);
      // Stage 1 trains on easy base tasks with the format reward; the augmented
      // stages 2–3 rewrite errors; stage 4 is the standard interface again.
      expect(
        summary.steps
          .slice(0, 2)
          .every((s) =>
            s.samples.every((sample) =>
              sample.taskId.startsWith('multi_turn_base'),
            ),
          ),
      ).toBe(true);
      expect(
        summary.steps.map((s) => s.overlayHash === emptyOverlayHash),
      ).toEqual([true, true, false, false, false, false, true, true]);
      expect(
        summary.steps
          .slice(4)
          .some((s) =>
            s.samples.some(
              (sample) => !sample.taskId.startsWith('multi_turn_base'),
            ),
          ),
      ).toBe(true);
    });

    it('should advance on a plateau of the validation score and cap the attempts of a training turn', async () => {
      const { tasks, common } = await setup();
      const dir = tempDir();
      // A policy that never changes: its validation score is flat from the start.
      const summary = await runTraining({
        ...common,
        config: config(
          {
            validationTasks: 2,
            patience: 1,
            minEvaluations: 2,
            maxStepsPerStage: 100,
          },
          4,
        ),
        policy: scriptedPolicy(tasks, { mode: 'loop' }),
        runDirectory: dir,
      });
      expect(
        summary.stages.map((change) => [
          change.step,
          change.from,
          change.to,
          change.reason,
        ]),
      ).toEqual([
        [1, 'syntax', 'hints', 'plateau'],
        [2, 'hints', 'hard', 'plateau'],
        [3, 'hard', 'independent', 'plateau'],
      ]);
      // Training turns end after the sixth attempt (cap 5) and the episode moves on to the next turn;
      // the validation episodes (the standard environment) have no cap.
      const trained = readLines<EpisodeRecord>(
        join(dir, 'episodes', 'step-000001.jsonl'),
      );
      for (const record of trained) {
        expect(record.turns[0]).toMatchObject({ endReason: 'step-limit' });
        expect(record.turns[0]!.steps).toHaveLength(6);
        expect(record.turns.length).toBeGreaterThan(1);
      }
      const validated = readLines<EpisodeRecord>(
        join(dir, 'episodes', 'eval-000001-validation.jsonl'),
      );
      for (const record of validated) {
        expect(record.turns).toHaveLength(1);
        expect(record.endReason).toBe('budget-exhausted');
      }
    });

    it('should resume a run killed mid-stage with its stage changes neither lost nor duplicated', async () => {
      const { tasks, common } = await setup();
      const settings = {
        validationTasks: 2,
        maxStepsPerStage: 2,
        patience: 50,
      };
      const reference = tempDir();
      const counting = scriptedPolicy(tasks, { mode: 'mixed' });
      await runTraining({
        ...common,
        config: config(settings),
        policy: counting,
        runDirectory: reference,
      });
      const crashed = tempDir();
      await expect(
        runTraining({
          ...common,
          config: config(settings),
          policy: scriptedPolicy(tasks, {
            mode: 'mixed',
            crashAtGenerate: Math.floor(counting.calls.generate.length * 0.6),
          }),
          runDirectory: crashed,
        }),
      ).rejects.toThrow('simulated crash');
      const resumed = await runTraining({
        ...common,
        config: config(settings),
        policy: scriptedPolicy(tasks, { mode: 'mixed' }),
        runDirectory: crashed,
      });
      expect(resumed.resumedFrom).toBeGreaterThan(2);
      expect(resumed.resumedFrom).toBeLessThan(8);
      expect(snapshot(crashed)).toEqual(snapshot(reference));
      expect(resumed.stages.map((change) => change.step)).toEqual([2, 4, 6]);
    });

    it('should reject a curriculum setting out of range, naming it, before touching the run directory', async () => {
      const { tasks, common } = await setup();
      const root = tempDir();
      const existing = join(root, 'existing');
      mkdirSync(join(existing, 'checkpoints'), { recursive: true });
      writeFileSync(
        join(existing, 'events.jsonl'),
        '{"type":"train-step","step":1}\n',
      );
      const before = snapshotFiles(existing);
      const bad: [TrainConfigInput['curriculum'], string][] = [
        [{ patience: 0 }, 'curriculum.patience'],
        [{ maxStepsPerStage: 0 }, 'curriculum.maxStepsPerStage'],
        [{ minDelta: 1.5 }, 'curriculum.minDelta'],
        [{ validateEvery: 2.5 }, 'curriculum.validateEvery'],
        [{ maxAttemptsPerTurn: -1 }, 'curriculum.maxAttemptsPerTurn'],
        [{ validationTasks: 0 }, 'curriculum.validationTasks'],
        [{ stages: 4 } as never, 'curriculum'],
      ];
      for (const [curriculum, field] of bad) {
        for (const runDirectory of [existing, join(root, 'fresh')]) {
          const error = await runTraining({
            ...common,
            config: config(curriculum),
            policy: scriptedPolicy(tasks, { mode: 'mixed' }),
            runDirectory,
          }).catch((e: unknown) => e);
          expect(error).toMatchObject({ code: 'INVALID_DATA' });
          expect((error as Error).message).toContain(`'${field}'`);
        }
      }
      // More validation tasks than the run has training tasks.
      const tooMany = await runTraining({
        ...common,
        config: config({ validationTasks: taskIds.length }),
        policy: scriptedPolicy(tasks, { mode: 'mixed' }),
        runDirectory: existing,
      }).catch((e: unknown) => e);
      expect(tooMany).toMatchObject({
        code: 'INVALID_ARGUMENT',
        details: { field: 'curriculum.validationTasks' },
      });
      expect((tooMany as Error).message).toContain(
        'curriculum.validationTasks',
      );
      expect(existsSync(join(root, 'fresh'))).toBe(false);
      expect(snapshotFiles(existing)).toEqual(before);
    });
  },
);

/** The relative paths and contents of the files under `dir`. */
function snapshotFiles(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const entry of readdirSync(dir, {
    recursive: true,
    withFileTypes: true,
  })) {
    if (!entry.isFile()) continue;
    const path = join(entry.parentPath, entry.name);
    out[path.slice(dir.length)] = readFileSync(path, 'utf8');
  }
  return out;
}

describe.skipIf(hasSharedBfclData)(
  'runTraining with Environment Tuning (needs shared data)',
  () => {
    it.skip(sharedDataSkipMessage, () => {});
  },
);

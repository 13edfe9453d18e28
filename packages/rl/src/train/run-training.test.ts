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
import { PyRandom } from '@seal/python';
import type {
  PolicyV1GenerateOptions,
  PolicyV1GenerateResult,
  Task,
} from '@seal/spec';
import { createBfclVerifier } from '@seal/verifier';
import { describe, expect, it, onTestFinished } from 'vitest';
import type { TrainConfigInput } from '../config/train-config';
import { runTraining } from './run-training';

function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'seal-rl-'));
  onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/**
 * A scripted policy: for each prompt, a seeded choice between the ground-truth
 * calls of the current turn (read from the task by turn count) and giving up,
 * so groups get mixed rewards. Deterministic for the call's seed.
 */
/**
 * A policy that answers each task's ground truth (or gives up at random). With
 * `cacheSensitive`, its choices also depend on how many calls it made since
 * its last `resetCache`, as a real engine's rounding depends on its prefix
 * cache.
 */
function scriptedPolicy(
  tasks: readonly Task[],
  options: {
    crashAtGenerate?: number;
    giveUp?: number;
    cacheSensitive?: boolean;
  } = {},
): MockPolicyV1 {
  let calls = 0;
  let sinceReset = 0;
  const policy: MockPolicyV1 = new MockPolicyV1({
    maxSequenceLength: 1_000_000,
    onResetCache: () => {
      sinceReset = 0;
    },
    generate: (request: PolicyV1GenerateOptions): PolicyV1GenerateResult => {
      calls++;
      if (
        options.crashAtGenerate !== undefined &&
        calls === options.crashAtGenerate
      )
        throw new Error('simulated crash');
      const rng = new PyRandom(
        BigInt(
          (request.seed ?? 0) +
            (options.cacheSensitive ? 1000 * sinceReset++ : 0),
        ),
      );
      const generations = (request.prompts ?? []).map((prompt) => {
        const text = policy.tokenizer.decode(prompt);
        const task = tasks.find((t) => text.includes(t.turns[0]![0]!.content))!;
        const userTurns = text.split('<|im_start|>user').length - 1;
        const lastIsResult =
          text.lastIndexOf("'role': 'tool'") >
            text.lastIndexOf('<|im_start|>user\n') - 1 &&
          text.trimEnd().endsWith('assistant');
        const turn = Math.min(
          task.groundTruth.length - 1,
          Math.max(0, userTurns - 1),
        );
        const draw = rng.random();
        const answer =
          lastIsResult ||
          draw < (options.giveUp ?? 0.3) ||
          task.groundTruth[turn]!.length === 0
            ? 'Done.'
            : `[${task.groundTruth[turn]!.join(', ')}]`;
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

function snapshot(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  const strip = (line: string) => {
    const value = JSON.parse(line) as Record<string, unknown>;
    delete value['timing'];
    return JSON.stringify(value);
  };
  out['events'] = readFileSync(join(dir, 'events.jsonl'), 'utf8')
    .trim()
    .split('\n')
    .map(strip)
    .join('\n');
  for (const name of readdirSync(join(dir, 'episodes')).sort())
    out[name] = readFileSync(join(dir, 'episodes', name), 'utf8');
  return out;
}

describe.skipIf(!hasSharedBfclData)('runTraining', () => {
  const config = (runId: string): TrainConfigInput => ({
    runId,
    seed: 7,
    method: 'seal',
    steps: 3,
    tasksPerStep: 2,
    groupSize: 3,
    optimizerStepsPerStep: 2,
    sampling: { maxTokens: 64, temperature: 0.9 },
    episode: {
      protocol: 'bfcl-python',
      promptMode: 'compact',
      maxModelCalls: 12,
    },
    ppo: { klCoef: 0, learningRate: 1e-5 },
    evalEvery: 2,
    checkpointEvery: 1,
  });

  it('should train, stamp samples and evaluate on the untouched interface', async () => {
    const dataset = await loadSharedBfclData();
    const tasks = bfclTasks({
      dataset,
      ids: [
        'multi_turn_base_0',
        'multi_turn_base_2',
        'multi_turn_miss_param_3',
        'multi_turn_miss_func_5',
      ],
    });
    const backend = createBfclBackend({ runtime: dataset.runtime });
    const verifier = createBfclVerifier({ runtime: dataset.runtime });
    const dir = tempDir();
    const policy = scriptedPolicy(tasks);
    const summary = await runTraining({
      config: config('train-test'),
      policy,
      trainTasks: tasks,
      evalSets: [{ name: 'eval', tasks: tasks.slice(0, 2) }],
      backend,
      verifier,
      runDirectory: dir,
    });
    expect(summary.steps).toHaveLength(3);
    // The scripted policy solves some rollouts and fails others: real learning signal.
    expect(
      summary.steps.some((s) => s.rewardMean > 0 && s.rewardMean < 1),
    ).toBe(true);
    expect(summary.evaluations.map((e) => e.step)).toEqual([0, 2, 3]);
    // The run directory holds its tasks, so that any episode can be re-verified.
    const runTasks = readFileSync(join(dir, 'tasks.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { id: string });
    expect(runTasks.map((t) => t.id).sort()).toEqual(
      tasks.map((t) => t.id).sort(),
    );
    const records = readFileSync(
      join(dir, 'episodes', 'step-000002.jsonl'),
      'utf8',
    )
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(records).toHaveLength(6);
    for (const record of records) {
      expect(record.mode).toBe('train');
      expect(record.stamps).toMatchObject({
        policyStep: 1,
        verifierVersion: verifier.verifierId,
        runId: 'train-test',
      });
      expect(record.overlayHash).toBe(summary.steps[1]!.overlayHash);
    }
    // Each step records every episode's verdict and advantage.
    for (const step of summary.steps) {
      expect(step.samples).toHaveLength(6);
      expect(step.samples.filter((s) => s.success).length / 6).toBeCloseTo(
        step.successRate,
        12,
      );
      expect(
        step.samples.reduce((total, s) => total + s.reward, 0) / 6,
      ).toBeCloseTo(step.rewardMean, 12);
    }
    expect(summary.steps[1]!.samples.map((s) => s.episodeId)).toEqual(
      records.map((r: { episodeId: string }) => r.episodeId),
    );
    // SEAL's interface is on in training and absent in evaluation.
    const evalRecords = readFileSync(
      join(dir, 'episodes', 'eval-000002-eval.jsonl'),
      'utf8',
    )
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(
      evalRecords.every(
        (r: { mode: string; messages: { content: string }[] }) =>
          r.mode === 'eval' && !r.messages[0]!.content.includes('[required]'),
      ),
    ).toBe(true);
    expect(
      records.every((r: { messages: { content: string }[] }) =>
        r.messages[0]!.content.includes('[required]'),
      ),
    ).toBe(true);
    expect(policy.calls.train.length).toBeGreaterThan(0);
    // Each step's timing splits the model's time by kind of policy call.
    for (const step of summary.steps) {
      expect(Object.keys(step.timing.calls ?? {})).toContain('generate');
      expect(Object.values(step.timing.calls!).every((ms) => ms >= 0)).toBe(
        true,
      );
    }
    expect(
      summary.steps.some((step) => step.timing.calls!['train'] !== undefined),
    ).toBe(true);
    // The PPO ratio compares the policy the rollouts were sampled from: the same temperature throughout.
    expect(
      policy.calls.train.every((call) => call.options.temperature === 0.9),
    ).toBe(true);
    // Untruncated sampling: the old log-probabilities are the rollouts' own (no score pass);
    // the scripted policy reports -0.5 for every token it generates.
    expect(policy.calls.score).toHaveLength(0);
    for (const call of policy.calls.train) {
      for (const sequence of call.sequences) {
        sequence.tokenWeights.forEach((weight, t) =>
          expect(sequence.oldLogprobs![t]).toBe(weight > 0 ? -0.5 : 0),
        );
      }
    }
    // Per-trajectory token means over the whole mini-batch: each sequence's
    // weights sum to 1/n, n the mini-batch's size. Without a KL term only
    // rollouts with a nonzero advantage are sent (or one at weight 0, so that
    // a mini-batch of zero advantages still takes its optimizer step).
    for (const call of policy.calls.train) {
      const sums = call.sequences
        .map((s) => s.tokenWeights.reduce((a, b) => a + b, 0))
        .filter((sum) => sum > 0);
      if (sums.length === 0) continue;
      const size = 1 / sums[0]!;
      expect(size).toBeCloseTo(Math.round(size), 9);
      for (const sum of sums) expect(sum).toBeCloseTo(1 / size, 12);
      expect(sums.length).toBeLessThanOrEqual(Math.round(size));
      for (const sequence of call.sequences) {
        const weighted = sequence.tokenWeights.some((weight) => weight > 0);
        expect(weighted ? sequence.advantages![0] !== 0 : true).toBe(true);
      }
    }
  });

  it('should draw every evaluation from the same sampling streams, so an unchanged policy gets the same verdicts', async () => {
    const dataset = await loadSharedBfclData();
    const tasks = bfclTasks({
      dataset,
      ids: [
        'multi_turn_base_0',
        'multi_turn_base_2',
        'multi_turn_miss_param_3',
        'multi_turn_miss_func_5',
      ],
    });
    const summary = await runTraining({
      config: { ...config('crn-test'), evalEvery: 1, evalSamples: 3 },
      // The scripted policy never changes: its output depends on the call's seed only.
      policy: scriptedPolicy(tasks, { giveUp: 0.5 }),
      trainTasks: tasks,
      evalSets: [{ name: 'eval', tasks }],
      backend: createBfclBackend({ runtime: dataset.runtime }),
      verifier: createBfclVerifier({ runtime: dataset.runtime }),
      runDirectory: tempDir(),
    });
    expect(summary.evaluations.map((e) => e.step)).toEqual([0, 1, 2, 3]);
    const [first, ...later] = summary.evaluations;
    // Mixed verdicts: the sampled evaluation is not trivially all-pass or all-fail.
    const rates = Object.values(first!.sampled!.taskSuccess);
    expect(
      rates.some((rate) => rate > 0 && rate < 1) || new Set(rates).size > 1,
    ).toBe(true);
    for (const evaluation of later) {
      expect(evaluation.sampled!.taskSuccess).toEqual(
        first!.sampled!.taskSuccess,
      );
      expect(evaluation.taskSuccess).toEqual(first!.taskSuccess);
    }
  });

  it('should score the old log-probabilities at the sampling temperature when asked to rescore', async () => {
    const dataset = await loadSharedBfclData();
    const tasks = bfclTasks({
      dataset,
      ids: [
        'multi_turn_base_0',
        'multi_turn_base_2',
        'multi_turn_miss_param_3',
        'multi_turn_miss_func_5',
      ],
    });
    const policy = scriptedPolicy(tasks);
    const base = config('rescore');
    await runTraining({
      config: {
        ...base,
        steps: 1,
        evalEvery: 0,
        ppo: { ...base.ppo, oldLogprobs: 'rescore' },
      },
      policy,
      trainTasks: tasks,
      evalSets: [],
      backend: createBfclBackend({ runtime: dataset.runtime }),
      verifier: createBfclVerifier({ runtime: dataset.runtime }),
      runDirectory: tempDir(),
    });
    expect(policy.calls.train.length).toBeGreaterThan(0);
    expect(policy.calls.score.map((call) => call.temperature)).toEqual([0.9]);
    // The score pass's values (-0.5 everywhere past the first token) are the ones trained against.
    for (const call of policy.calls.train) {
      for (const sequence of call.sequences)
        expect(sequence.oldLogprobs!.slice(1).every((x) => x === -0.5)).toBe(
          true,
        );
    }
  });

  /** Four BFCL tasks to train on, the first two as the evaluation set. */
  const resumeSetup = async () => {
    const dataset = await loadSharedBfclData();
    const tasks = bfclTasks({
      dataset,
      ids: [
        'multi_turn_base_0',
        'multi_turn_base_2',
        'multi_turn_miss_param_3',
        'multi_turn_miss_func_5',
      ],
    });
    const backend = createBfclBackend({ runtime: dataset.runtime });
    const verifier = createBfclVerifier({ runtime: dataset.runtime });
    return {
      tasks,
      common: {
        trainTasks: tasks,
        evalSets: [{ name: 'eval', tasks: tasks.slice(0, 2) }],
        backend,
        verifier,
      },
    };
  };

  it('should resume a run killed mid-step with no record lost or duplicated', async () => {
    const { tasks, common } = await resumeSetup();

    const reference = tempDir();
    await runTraining({
      ...common,
      config: config('resume'),
      policy: scriptedPolicy(tasks),
      runDirectory: reference,
    });

    const crashed = tempDir();
    // Generate calls: eval 0 (a few rounds), steps 1 and 2, eval 2, then step 3: crash inside step 3.
    const counting = scriptedPolicy(tasks);
    await runTraining({
      ...common,
      config: { ...config('resume'), steps: 2 },
      policy: counting,
      runDirectory: tempDir(),
    });
    const crashAt = counting.calls.generate.length + 2;
    await expect(
      runTraining({
        ...common,
        config: config('resume'),
        policy: scriptedPolicy(tasks, { crashAtGenerate: crashAt }),
        runDirectory: crashed,
      }),
    ).rejects.toThrow('simulated crash');
    const resumed = await runTraining({
      ...common,
      config: config('resume'),
      policy: scriptedPolicy(tasks),
      runDirectory: crashed,
    });
    expect(resumed.resumedFrom).toBe(2);
    expect(snapshot(crashed)).toEqual(snapshot(reference));
    // The summary covers the whole run, steps recorded before the crash included.
    expect(resumed.steps.map((s) => s.step)).toEqual([1, 2, 3]);
    expect(resumed.evaluations.map((e) => e.step)).toEqual([0, 2, 3]);
  });

  it('should replay the uninterrupted run after a resume with a policy whose output depends on its cache', async () => {
    // A resumed process starts with empty caches; the loop empties them at the
    // start of every step and evaluation, so the run does not depend on where it was resumed.
    const { tasks, common } = await resumeSetup();
    const reference = tempDir();
    const whole = scriptedPolicy(tasks, { cacheSensitive: true });
    await runTraining({
      ...common,
      config: config('cache'),
      policy: whole,
      runDirectory: reference,
    });
    // Evaluations at steps 0, 2 and 3, and steps 1 to 3.
    expect(whole.calls.resetCache).toBe(6);
    const split = tempDir();
    await runTraining({
      ...common,
      config: { ...config('cache'), steps: 2 },
      policy: scriptedPolicy(tasks, { cacheSensitive: true }),
      runDirectory: split,
    });
    const resumed = await runTraining({
      ...common,
      config: config('cache'),
      policy: scriptedPolicy(tasks, { cacheSensitive: true }),
      runDirectory: split,
    });
    expect(resumed.resumedFrom).toBe(2);
    expect(snapshot(split)).toEqual(snapshot(reference));
  });

  it('should refill groups without gradient with fresh groups, record it, and replay the uninterrupted run after a resume', async () => {
    const { tasks, common } = await resumeSetup();
    const dynamic = (runId: string): TrainConfigInput => ({
      ...config(runId),
      frozenBaseline: true,
      dynamicSampling: { maxRefillRounds: 2 },
    });
    const script = { giveUp: 0.5 };
    await expect(
      runTraining({
        ...common,
        config: { ...dynamic('one'), groupSize: 1 },
        policy: scriptedPolicy(tasks, script),
        referencePolicy: scriptedPolicy(tasks, script),
        runDirectory: tempDir(),
      }),
    ).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });

    const reference = tempDir();
    const summary = await runTraining({
      ...common,
      config: dynamic('dynamic'),
      policy: scriptedPolicy(tasks, script),
      referencePolicy: scriptedPolicy(tasks, script),
      runDirectory: reference,
    });
    let refilled = 0;
    for (const step of summary.steps) {
      const extra = step.refilledGroups!;
      refilled += extra;
      // Two scheduled groups of 3, then the refill's, drawn from the 2 other tasks.
      expect(step.refillRounds).toBeLessThanOrEqual(2);
      expect(extra).toBeLessThanOrEqual(2);
      expect(step.samples).toHaveLength(3 * (2 + extra));
      const byTask = new Map<string, typeof step.samples>();
      for (const sample of step.samples)
        byTask.set(sample.taskId, [
          ...(byTask.get(sample.taskId) ?? []),
          sample,
        ]);
      expect(byTask.size).toBe(2 + extra);
      const flat = [...byTask].filter(([, samples]) =>
        samples.every((sample) => sample.reward === samples[0]!.reward),
      );
      // Groups without gradient are left out of the update, refills included.
      expect(step.droppedGroups).toBe(flat.length);
      for (const [, samples] of flat)
        expect(samples.every((sample) => sample.advantage === 0)).toBe(true);
      const scheduled = [...byTask.keys()].slice(0, 2);
      const flatIds = new Set(flat.map(([id]) => id));
      const scheduledUseful = scheduled.filter((id) => !flatIds.has(id));
      // A refill happens only when a scheduled group had no gradient, and
      // stops once the step holds 2 groups with gradient, at the cap, or at the stream's end.
      if (extra > 0) expect(scheduledUseful.length).toBeLessThan(2);
      else
        expect(scheduledUseful.length === 2 || step.refillRounds === 0).toBe(
          true,
        );
      if (byTask.size - flat.length < 2)
        expect(step.refillRounds === 2 || extra === 2).toBe(true);
      // The frozen baseline rolls out the refill's tasks too, with the same seeds.
      expect(step.samples.every((s) => s.baselineSuccess === s.success)).toBe(
        true,
      );
    }
    expect(refilled).toBeGreaterThan(0);
    const records = readFileSync(
      join(reference, 'episodes', 'step-000001.jsonl'),
      'utf8',
    )
      .trim()
      .split('\n');
    expect(records).toHaveLength(summary.steps[0]!.samples.length);

    // Killed in the middle of step 3, then resumed: the same records as the uninterrupted run.
    const counting = scriptedPolicy(tasks, script);
    await runTraining({
      ...common,
      config: { ...dynamic('dynamic'), steps: 2 },
      policy: counting,
      referencePolicy: scriptedPolicy(tasks, script),
      runDirectory: tempDir(),
    });
    const crashed = tempDir();
    await expect(
      runTraining({
        ...common,
        config: dynamic('dynamic'),
        policy: scriptedPolicy(tasks, {
          ...script,
          crashAtGenerate: counting.calls.generate.length + 3,
        }),
        referencePolicy: scriptedPolicy(tasks, script),
        runDirectory: crashed,
      }),
    ).rejects.toThrow('simulated crash');
    const resumed = await runTraining({
      ...common,
      config: dynamic('dynamic'),
      policy: scriptedPolicy(tasks, script),
      referencePolicy: scriptedPolicy(tasks, script),
      runDirectory: crashed,
    });
    expect(resumed.resumedFrom).toBe(2);
    expect(snapshot(crashed)).toEqual(snapshot(reference));

    // Without the setting nothing is refilled and the events are as before.
    const plain = await runTraining({
      ...common,
      config: { ...config('plain'), steps: 1 },
      policy: scriptedPolicy(tasks, script),
      runDirectory: tempDir(),
    });
    expect(plain.steps[0]!.samples).toHaveLength(6);
    expect(plain.steps[0]).not.toHaveProperty('refilledGroups');
    expect(plain.steps[0]).not.toHaveProperty('refillRounds');
  });

  it('should roll out the frozen baseline on the same tasks and seeds without training on it', async () => {
    const dataset = await loadSharedBfclData();
    const tasks = bfclTasks({
      dataset,
      ids: [
        'multi_turn_base_0',
        'multi_turn_base_2',
        'multi_turn_miss_param_3',
        'multi_turn_miss_func_5',
      ],
    });
    const backend = createBfclBackend({ runtime: dataset.runtime });
    const verifier = createBfclVerifier({ runtime: dataset.runtime });
    const common = { trainTasks: tasks, backend, verifier };
    const withBaseline = { ...config('baseline'), frozenBaseline: true };
    await expect(
      runTraining({
        ...common,
        config: withBaseline,
        policy: scriptedPolicy(tasks),
        runDirectory: tempDir(),
      }),
    ).rejects.toMatchObject({
      code: 'INVALID_ARGUMENT',
    });

    // The same script as the policy: with the same seeds it makes the same choices, episode by episode.
    const plainDir = tempDir();
    const plain = await runTraining({
      ...common,
      config: config('baseline'),
      policy: scriptedPolicy(tasks),
      runDirectory: plainDir,
    });
    const twinDir = tempDir();
    const twin = scriptedPolicy(tasks);
    const paired = await runTraining({
      ...common,
      config: withBaseline,
      policy: scriptedPolicy(tasks),
      referencePolicy: twin,
      runDirectory: twinDir,
    });
    for (const step of paired.steps) {
      expect(step.baselineSuccessRate).toBeCloseTo(step.successRate, 12);
      expect(step.samples.every((s) => s.baselineSuccess === s.success)).toBe(
        true,
      );
    }
    expect(twin.calls.train).toHaveLength(0);
    // The baseline changes nothing of the run itself: the same steps, verdicts, advantages and evaluations.
    const strip = (summary: typeof plain) =>
      summary.steps.map(
        ({
          timing: _timing,
          baselineSuccessRate: _rate,
          samples,
          ...rest
        }) => ({
          ...rest,
          samples: samples.map(
            ({ baselineSuccess: _success, ...sample }) => sample,
          ),
        }),
      );
    expect(strip(paired)).toEqual(strip(plain));
    const baselineRecords = readFileSync(
      join(twinDir, 'episodes', 'baseline-000002.jsonl'),
      'utf8',
    )
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(baselineRecords).toHaveLength(6);
    for (const record of baselineRecords) {
      expect(record.stamps).toMatchObject({ policyStep: 0 });
      expect(record.episodeId).toContain(':s2:baseline:');
      expect(record.overlayHash).toBe(paired.steps[1]!.overlayHash);
    }

    // A reference that never calls a tool fails every base task, and some tasks the policy solves.
    const idle: MockPolicyV1 = new MockPolicyV1({
      maxSequenceLength: 1_000_000,
      generate: (request: PolicyV1GenerateOptions): PolicyV1GenerateResult => ({
        generations: (request.prompts ?? []).map((prompt) => {
          const tokenIds = [...idle.tokenizer.encode('Done.'), 257];
          return {
            tokenIds,
            text: 'Done.',
            logprobs: tokenIds.map(() => -0.5),
            modelLogprobs: tokenIds.map(() => -0.5),
            finishReason: 'stop' as const,
            promptTokenIds: prompt,
          };
        }),
        usage: { promptTokens: 0, completionTokens: 0 },
      }),
    });
    const against = await runTraining({
      ...common,
      config: withBaseline,
      policy: scriptedPolicy(tasks),
      referencePolicy: idle,
      runDirectory: tempDir(),
    });
    const baseSamples = against.steps
      .flatMap((step) => step.samples)
      .filter((s) => s.taskId.startsWith('multi_turn_base'));
    expect(baseSamples.length).toBeGreaterThan(0);
    expect(baseSamples.every((s) => s.baselineSuccess === false)).toBe(true);
    expect(
      against.steps
        .flatMap((step) => step.samples)
        .some((s) => s.success && !s.baselineSuccess),
    ).toBe(true);
  });

  it('should roll back to the best weights and lower the learning rate when the gain over the frozen warm start falls', async () => {
    const dataset = await loadSharedBfclData();
    const tasks = bfclTasks({ dataset, ids: ['multi_turn_miss_param_3'] });
    const backend = createBfclBackend({ runtime: dataset.runtime });
    const verifier = createBfclVerifier({ runtime: dataset.runtime });
    // A policy whose "weights" are one flag: every update breaks it (it stops
    // calling tools); save and load write and read the flag, so a rollback
    // that restores the starting weights makes it work again.
    const weights = { good: true };
    const script = scriptedPolicy(tasks, { giveUp: 0.3 });
    const policy: MockPolicyV1 = new MockPolicyV1({
      maxSequenceLength: 1_000_000,
      tokenizer: script.tokenizer,
      generate: (request: PolicyV1GenerateOptions) =>
        weights.good
          ? script.generate(request)
          : {
              generations: (request.prompts ?? []).map((prompt) => {
                const tokenIds = [...script.tokenizer.encode('Done.'), 257];
                return {
                  tokenIds,
                  text: 'Done.',
                  logprobs: tokenIds.map(() => -0.5),
                  modelLogprobs: tokenIds.map(() => -0.5),
                  finishReason: 'stop' as const,
                  promptTokenIds: prompt,
                };
              }),
              usage: { promptTokens: 0, completionTokens: 0 },
            },
      score: (request) =>
        ({
          logprobs: request.sequences.map((s) =>
            new Float32Array(s.length).fill(-0.5),
          ),
        }) as never,
      train: () => {
        weights.good = false;
        return {
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
        };
      },
    });
    policy.save = async ({ directory }) => {
      mkdirSync(directory, { recursive: true });
      writeFileSync(join(directory, 'weights.json'), JSON.stringify(weights));
    };
    policy.load = async ({ directory }) => {
      Object.assign(
        weights,
        JSON.parse(readFileSync(join(directory, 'weights.json'), 'utf8')),
      );
    };
    const dir = tempDir();
    const gapMonitor = {
      window: 1,
      threshold: -0.01,
      learningRateFactor: 0.5,
      maxRollbacks: 1,
    };
    await expect(
      runTraining({
        config: { ...config('gap'), gapMonitor },
        policy,
        referencePolicy: scriptedPolicy(tasks),
        trainTasks: tasks,
        backend,
        verifier,
        runDirectory: tempDir(),
      }),
    ).rejects.toThrow(/gapMonitor needs frozenBaseline/);
    const summary = await runTraining({
      config: {
        ...config('gap'),
        steps: 4,
        tasksPerStep: 1,
        groupSize: 4,
        evalEvery: 0,
        frozenBaseline: true,
        gapMonitor,
      },
      policy,
      referencePolicy: scriptedPolicy(tasks, { giveUp: 0.3 }),
      trainTasks: tasks,
      backend,
      verifier,
      runDirectory: dir,
    });
    const gains = summary.steps.map(
      (s) => s.successRate - s.baselineSuccessRate!,
    );
    // Step 1 rolls out the starting weights (no gain); the update breaks them, so step 2 falls behind.
    expect(gains[0]).toBe(0);
    expect(gains[1]).toBeLessThan(0);
    expect(summary.rollbacks).toEqual([
      {
        schemaVersion: 1,
        type: 'rollback',
        step: 2,
        toStep: 0,
        windowGain: gains[1],
        learningRate: 5e-6,
      },
    ]);
    // Restored: step 3 rolls out the starting weights again, and trains at half the learning rate.
    expect(gains[2]).toBe(0);
    const rates = policy.calls.train.map(
      (call) => (call.options as { learningRate: number }).learningRate,
    );
    expect(rates.slice(0, 2)).toEqual([1e-5, 1e-5]);
    expect(rates.slice(2).every((rate) => rate === 5e-6)).toBe(true);
    // One rollback at most (maxRollbacks 1): step 4 falls behind again and is recorded, not restored.
    expect(gains[3]).toBeLessThan(0);
    const events = readFileSync(join(dir, 'events.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { type: string });
    expect(events.filter((e) => e.type === 'rollback')).toHaveLength(1);
    expect(existsSync(join(dir, 'best-000000'))).toBe(true);
  });

  it('should evaluate step 0 alike under every method, and record a shared step-0 evaluation as its own', async () => {
    const dataset = await loadSharedBfclData();
    const tasks = bfclTasks({
      dataset,
      ids: [
        'multi_turn_base_0',
        'multi_turn_base_2',
        'multi_turn_miss_param_3',
        'multi_turn_miss_func_5',
      ],
    });
    const backend = createBfclBackend({ runtime: dataset.runtime });
    const verifier = createBfclVerifier({ runtime: dataset.runtime });
    const evalSets = [{ name: 'eval', tasks: tasks.slice(0, 3) }];
    const common = { trainTasks: tasks, evalSets, backend, verifier };
    const run = (method: 'seal' | 'grpo' | 'envtuning', extra: object = {}) =>
      runTraining({
        ...common,
        config: {
          ...config(`share-${method}`),
          method,
          steps: 1,
          evalSamples: 2,
          ...(method === 'envtuning'
            ? { curriculum: { validationTasks: 1 } }
            : {}),
        },
        policy: scriptedPolicy(tasks),
        runDirectory: tempDir(),
        ...extra,
      });
    const seal = await run('seal');
    const grpo = await run('grpo');
    const envtuning = await run('envtuning');
    const stepZero = seal.evaluations.filter((e) => e.step === 0);
    expect(stepZero).toHaveLength(1);
    expect(stepZero[0]!.sampled?.samples).toBe(2);
    // The warm start's evaluation does not depend on the method: a study may share it.
    expect(grpo.evaluations.filter((e) => e.step === 0)).toEqual(stepZero);
    expect(envtuning.evaluations.filter((e) => e.step === 0)).toEqual(stepZero);

    const directory = tempDir();
    const policy = scriptedPolicy(tasks);
    const shared = await runTraining({
      ...common,
      config: {
        ...config('share-given'),
        method: 'grpo',
        steps: 1,
        evalSamples: 2,
      },
      policy,
      runDirectory: directory,
      initialEvaluations: stepZero,
    });
    expect(shared.evaluations).toEqual(grpo.evaluations);
    const events = readFileSync(join(directory, 'events.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { type: string; step: number });
    expect(events.filter((e) => e.type === 'eval').map((e) => e.step)).toEqual([
      0, 1,
    ]);
    // No step-0 episodes were generated: only step 1's evaluation ran.
    expect(
      existsSync(join(directory, 'episodes', 'eval-000000-eval.jsonl')),
    ).toBe(false);
    expect(
      existsSync(join(directory, 'episodes', 'eval-000001-eval.jsonl')),
    ).toBe(true);
  });

  it('should refuse a shared step-0 evaluation that does not fit the run, before touching the run directory', async () => {
    const dataset = await loadSharedBfclData();
    const tasks = bfclTasks({
      dataset,
      ids: [
        'multi_turn_base_0',
        'multi_turn_base_2',
        'multi_turn_miss_param_3',
      ],
    });
    const backend = createBfclBackend({ runtime: dataset.runtime });
    const verifier = createBfclVerifier({ runtime: dataset.runtime });
    const evalSets = [{ name: 'eval', tasks: tasks.slice(0, 2) }];
    const event = {
      schemaVersion: 1 as const,
      type: 'eval' as const,
      step: 0,
      set: 'eval',
      accuracy: 0.5,
      overall: 0.5,
      categories: {},
      tagCounts: {},
      overlayHash: 'none',
      taskSuccess: { [tasks[0]!.id]: 1, [tasks[1]!.id]: 0 },
      sampled: {
        samples: 2,
        temperature: 1,
        accuracy: 0.5,
        taskSuccess: { [tasks[0]!.id]: 1, [tasks[1]!.id]: 0 },
      },
    };
    const attempt = async (initialEvaluations: object[], evalSamples = 2) => {
      const directory = join(tempDir(), 'run');
      await expect(
        runTraining({
          trainTasks: tasks,
          evalSets,
          backend,
          verifier,
          config: { ...config('refuse'), steps: 1, evalSamples },
          policy: scriptedPolicy(tasks),
          runDirectory: directory,
          initialEvaluations: initialEvaluations as never,
        }),
      ).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
      expect(existsSync(directory)).toBe(false);
    };
    await attempt([{ ...event, step: 4 }]);
    await attempt([{ ...event, set: 'other' }]);
    await attempt([event, event]);
    await attempt([
      { ...event, taskSuccess: { [tasks[0]!.id]: 1, [tasks[2]!.id]: 0 } },
    ]);
    await attempt([event], 4);
  });

  it('should resume only a run with the same configuration, and continue one that was given more steps', async () => {
    const dataset = await loadSharedBfclData();
    const tasks = bfclTasks({
      dataset,
      ids: ['multi_turn_base_0', 'multi_turn_base_2'],
    });
    const backend = createBfclBackend({ runtime: dataset.runtime });
    const verifier = createBfclVerifier({ runtime: dataset.runtime });
    const common = {
      trainTasks: tasks,
      backend,
      verifier,
      runDirectory: tempDir(),
    };
    const first = {
      ...config('guard'),
      steps: 1,
      initialPolicy: 'warmstart-a',
    };
    await runTraining({
      ...common,
      config: first,
      policy: scriptedPolicy(tasks),
    });
    for (const other of [
      { initialPolicy: 'warmstart-b' },
      { seed: 8 },
      { ppo: { klCoef: 0, learningRate: 2e-5 } },
    ]) {
      await expect(
        runTraining({
          ...common,
          config: { ...first, steps: 2, ...other },
          policy: scriptedPolicy(tasks),
        }),
      ).rejects.toMatchObject({
        code: 'INVALID_STATE',
      });
    }
    const continued = await runTraining({
      ...common,
      config: { ...first, steps: 2 },
      policy: scriptedPolicy(tasks),
    });
    expect(continued.resumedFrom).toBe(1);
    expect(continued.steps.map((s) => s.step)).toEqual([1, 2]);
  });
});

describe.skipIf(hasSharedBfclData)('runTraining (needs shared data)', () => {
  it.skip(sharedDataSkipMessage, () => {});
});

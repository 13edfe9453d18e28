import { createHash } from 'node:crypto';
import {
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
import { runTraining, type RunTrainingOptions } from './run-training';
import { bfclTrainingEnvironment } from './training-environment';

/**
 * The record-level differential test of issue 45: a small BFCL training run
 * (real BFCL tasks, backend and verifier; a seeded scripted policy) through
 * the generic dispatch (`bfclTrainingEnvironment`) writes the same records,
 * verdicts, advantages and PPO inputs as the run recorded by the path before
 * the dispatch existed (`__fixtures__/bfcl-dispatch-golden.json`, captured at
 * commit d362de7 with `SEAL_WRITE_DISPATCH_GOLDEN=1`, before any change to
 * the loop). Every file of the run directory is compared by digest; the
 * per-sample verdicts and rewards are compared in clear.
 */
const goldenPath = join(
  import.meta.dirname,
  '__fixtures__',
  'bfcl-dispatch-golden.json',
);

const taskIds = [
  'multi_turn_base_0',
  'multi_turn_base_2',
  'multi_turn_miss_param_3',
  'multi_turn_miss_func_5',
  'multi_turn_long_context_1',
];

function scriptedPolicy(tasks: readonly Task[]): MockPolicyV1 {
  const policy: MockPolicyV1 = new MockPolicyV1({
    maxSequenceLength: 1_000_000,
    generate: (request: PolicyV1GenerateOptions): PolicyV1GenerateResult => {
      const rng = new PyRandom(BigInt(request.seed ?? 0));
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
        // Some answers drop the turn's last call or add a stray one, so the
        // verdicts carry several tags, not only pass and empty turns.
        const truth = task.groundTruth[turn]!;
        const answer =
          lastIsResult || draw < 0.25 || truth.length === 0
            ? 'Done.'
            : draw < 0.4 && truth.length > 1
              ? `[${truth.slice(0, -1).join(', ')}]`
              : draw < 0.5
                ? `[${[...truth, 'pwd()'].join(', ')}]`
                : `[${truth.join(', ')}]`;
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

const config: TrainConfigInput = {
  runId: 'dispatch-differential',
  seed: 11,
  method: 'seal',
  steps: 2,
  tasksPerStep: 3,
  groupSize: 3,
  optimizerStepsPerStep: 2,
  sampling: { maxTokens: 64, temperature: 1 },
  episode: {
    protocol: 'bfcl-python',
    promptMode: 'compact',
    maxModelCalls: 12,
  },
  ppo: { klCoef: 0, learningRate: 1e-5 },
  evalEvery: 1,
  checkpointEvery: 1,
};

const digest = (text: string): string =>
  createHash('sha256').update(text).digest('hex');

/** What the run wrote and fed the update, with timings left out. */
type RunImage = {
  files: Record<string, string>;
  samples: unknown[];
  tagCounts: unknown[];
  train: string;
};

function imageOf(dir: string, policy: MockPolicyV1): RunImage {
  const files: Record<string, string> = {};
  const events = readFileSync(join(dir, 'events.jsonl'), 'utf8')
    .trim()
    .split('\n')
    .map((line) => {
      const value = JSON.parse(line) as Record<string, unknown>;
      delete value['timing'];
      return value;
    });
  files['events.jsonl'] = digest(JSON.stringify(events));
  for (const name of ['overlays.jsonl', 'tasks.jsonl'])
    files[name] = digest(readFileSync(join(dir, name), 'utf8'));
  for (const name of readdirSync(join(dir, 'episodes')).sort())
    files[`episodes/${name}`] = digest(
      readFileSync(join(dir, 'episodes', name), 'utf8'),
    );
  return {
    files,
    samples: events
      .filter((event) => event['type'] === 'train-step')
      .map((event) => event['samples']),
    tagCounts: events.map((event) => event['tagCounts']),
    train: digest(JSON.stringify(policy.calls.train)),
  };
}

async function runOnce(
  route: (
    options: Pick<RunTrainingOptions, 'backend' | 'verifier'>,
  ) => Partial<RunTrainingOptions>,
): Promise<RunImage> {
  const dataset = await loadSharedBfclData();
  const tasks = bfclTasks({ dataset, ids: taskIds });
  const dir = mkdtempSync(join(tmpdir(), 'seal-dispatch-'));
  onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
  const policy = scriptedPolicy(tasks);
  await runTraining({
    config,
    policy,
    trainTasks: tasks,
    evalSets: [{ name: 'eval', tasks: tasks.slice(0, 3) }],
    runDirectory: dir,
    ...route({
      backend: createBfclBackend({ runtime: dataset.runtime }),
      verifier: createBfclVerifier({ runtime: dataset.runtime }),
    }),
  } as RunTrainingOptions);
  return imageOf(dir, policy);
}

describe.skipIf(!hasSharedBfclData)(
  'BFCL training through the generic dispatch',
  () => {
    it('should write the records, verdicts and updates recorded before the dispatch existed', async () => {
      const image = await runOnce(({ backend, verifier }) => ({
        environment: bfclTrainingEnvironment({
          backend: backend!,
          verifier: verifier!,
        }),
      }));
      if (process.env['SEAL_WRITE_DISPATCH_GOLDEN'] === '1')
        writeFileSync(goldenPath, `${JSON.stringify(image, null, 2)}\n`);
      const golden = JSON.parse(readFileSync(goldenPath, 'utf8')) as RunImage;
      // Mixed verdicts: the comparison covers passes and several failure tags.
      const tags = new Set(
        image.tagCounts.flatMap((counts) =>
          Object.keys((counts ?? {}) as object),
        ),
      );
      expect(tags.size).toBeGreaterThanOrEqual(3);
      expect(image.samples).toEqual(golden.samples);
      expect(image.tagCounts).toEqual(golden.tagCounts);
      expect(image.files).toEqual(golden.files);
      expect(image.train).toBe(golden.train);
    });

    it('should route runs given a backend and verifier through the same dispatch', async () => {
      const image = await runOnce((options) => options);
      const golden = JSON.parse(readFileSync(goldenPath, 'utf8')) as RunImage;
      expect(image).toEqual(golden);
    });
  },
);

if (!hasSharedBfclData) console.warn(sharedDataSkipMessage);

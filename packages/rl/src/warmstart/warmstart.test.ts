import { createBfclBackend } from '@seal/bfcl';
import { createGeneratorRuntime, generateTasks } from '@seal/bfcl-tasks';
import { MockPolicyV1 } from '@seal/engine-ort/test';
import type { Task } from '@seal/spec';
import { describe, expect, it } from 'vitest';
import { PyRandom } from '@seal/python';
import { buildCopyDrills, callLiterals, turnDrillPairs } from './copy-drills';
import { evaluateCopying } from './copy-eval';
import {
  buildDemonstration,
  missingToolReply,
  missingValueReply,
} from './demonstrations';
import { randomSealOverlay } from './random-overlay';
import { runSupervised } from './run-supervised';

const tasks = generateTasks({ seed: 3, split: 'warmup', count: 40 });
const tokenizer = new MockPolicyV1().tokenizer;

describe('callLiterals', () => {
  it('should list quoted strings and numbers in order, numbers inside strings kept in their string', () => {
    expect(
      callLiterals(`[f(a='x 12 y', b=12, c=-3.5, d="it's", e=True)]`),
    ).toEqual(['x 12 y', '12', '-3.5', "it's"]);
    expect(callLiterals('[list_all_following()]')).toEqual([]);
  });
});

describe('buildCopyDrills', () => {
  it('should keep a turn drill only when every literal of its call is in the message', () => {
    const drills = buildCopyDrills({ tasks, tokenizer, repeats: 0 });
    expect(drills.length).toBeGreaterThan(10);
    for (const drill of drills) {
      const [user, answer] = drill.text.split('\n[');
      for (const literal of callLiterals(`[${answer}`))
        expect(user).toContain(literal);
    }
    // A call that needs a value the message does not hold is not drilled.
    const [first] = tasks;
    const needsResult: Task = {
      ...first!,
      id: 'needs-result',
      turns: [[{ role: 'user', content: 'Close the Calendar ticket.' }]],
      groundTruth: [['close_ticket(ticket_id=854)']],
    };
    const holds: Task = {
      ...needsResult,
      id: 'holds',
      turns: [[{ role: 'user', content: 'Close ticket 854.' }]],
    };
    expect(
      buildCopyDrills({
        tasks: [needsResult, holds],
        tokenizer,
        repeats: 0,
      }).map((d) => d.taskId),
    ).toEqual(['holds#turn0']);
  });

  it('should train exactly the answer and the stop token', () => {
    const [drill] = buildCopyDrills({
      tasks: tasks.slice(0, 1),
      tokenizer,
      repeats: 1,
      seed: 5,
    }).filter((d) => d.taskId.startsWith('repeat'));
    const trained = drill!.tokenIds.filter(
      (_, i) => drill!.assistantMask[i] === 1,
    );
    const answer = drill!.text.split('\n')[1]!;
    expect(trained).toEqual([
      ...tokenizer.encode(answer),
      tokenizer.stopTokenIds[0],
    ]);
    expect(drill!.text.split('\n')[0]).toBe(`Repeat exactly: ${answer}`);
    expect(answer.split(' ').length).toBeGreaterThanOrEqual(2);
  });

  it('should be deterministic for a seed and differ across seeds', () => {
    const a = buildCopyDrills({ tasks, tokenizer, repeats: 50, seed: 1 });
    const b = buildCopyDrills({ tasks, tokenizer, repeats: 50, seed: 1 });
    const c = buildCopyDrills({ tasks, tokenizer, repeats: 50, seed: 2 });
    expect(a).toEqual(b);
    expect(a.map((d) => d.text)).not.toEqual(c.map((d) => d.text));
    expect(a.filter((d) => d.taskId.startsWith('repeat'))).toHaveLength(50);
  });
});

describe('runSupervised', () => {
  const backend = createBfclBackend({ runtime: createGeneratorRuntime() });
  const demonstrations = tasks
    .slice(0, 12)
    .map((task) => buildDemonstration({ task, tokenizer, backend }));

  function recordingPolicy() {
    return new MockPolicyV1({
      maxSequenceLength: 100_000,
      train: () => ({
        loss: 1,
        gradNorm: 1,
        skipped: false,
        step: 0,
        metrics: {
          clipFraction: 0,
          kl: 0,
          ratioMean: 1,
          negativeLogLikelihood: 1,
          tokens: 0,
        },
      }),
    });
  }

  it('should run every epoch, token-mean weights summing to one per batch, the rate warming up then decaying', async () => {
    const policy = recordingPolicy();
    const losses = await runSupervised({
      policy,
      demonstrations,
      epochs: 2,
      batchSize: 4,
      learningRate: 1e-3,
      warmupSteps: 2,
      seed: 1,
    });
    expect(losses).toHaveLength(6);
    const rates = policy.calls.train.map(
      (call) => call.options?.learningRate ?? Number.NaN,
    );
    expect(rates[0]).toBeCloseTo(5e-4);
    expect(rates[1]).toBeCloseTo(1e-3);
    expect(rates.at(-1)).toBeCloseTo(1e-4);
    for (const call of policy.calls.train) {
      const sum = call.sequences.reduce(
        (total, sequence) =>
          total + (sequence.tokenWeights ?? []).reduce((a, w) => a + w, 0),
        0,
      );
      expect(sum).toBeCloseTo(1, 9);
    }
  });

  it('should stop at maxSteps with the schedule spanning them, and refuse a bad maxSteps', async () => {
    const policy = recordingPolicy();
    const progress: number[] = [];
    const losses = await runSupervised({
      policy,
      demonstrations,
      epochs: 5,
      batchSize: 4,
      learningRate: 1e-3,
      warmupSteps: 1,
      maxSteps: 4,
      onProgress: ({ steps }) => progress.push(steps),
    });
    expect(losses).toHaveLength(4);
    expect(new Set(progress)).toEqual(new Set([4]));
    expect(policy.calls.train.at(-1)?.options?.learningRate).toBeCloseTo(1e-4);
    await expect(
      runSupervised({
        policy,
        demonstrations,
        epochs: 1,
        batchSize: 4,
        learningRate: 1e-3,
        maxSteps: 0,
      }),
    ).rejects.toThrow(/maxSteps/);
  });
});

describe('demonstrations of missing values and tools, and under overlays', () => {
  const backend = createBfclBackend({ runtime: createGeneratorRuntime() });
  const missing = generateTasks({
    seed: 3,
    split: 'warmup',
    count: 4,
    variants: ['multi_turn_miss_param', 'multi_turn_miss_func'],
  });

  it('should answer a turn with no ground-truth call by asking (miss_param) or saying no tool fits (miss_func)', () => {
    for (const task of missing) {
      const demo = buildDemonstration({ task, tokenizer, backend });
      const trained = tokenizer.decode(
        demo.tokenIds.filter((_, i) => demo.assistantMask[i] === 1),
      );
      const reply =
        task.category === 'multi_turn_miss_param'
          ? missingValueReply
          : missingToolReply;
      expect(trained).toContain(reply);
      // Every ground-truth call is still demonstrated, in order.
      for (const call of task.groundTruth.flat())
        expect(trained).toContain(call);
    }
  });

  it('should render an overlay into the prompt only when one is given', () => {
    const [task] = tasks;
    const plain = buildDemonstration({ task: task!, tokenizer, backend });
    const random = new PyRandom(4);
    const overlays = Array.from({ length: 8 }, () =>
      randomSealOverlay({ tools: task!.tools, random }),
    );
    // Some draws carry schema cues, some guidelines; the same seed gives the same draws.
    const again = new PyRandom(4);
    expect(
      Array.from({ length: 8 }, () =>
        randomSealOverlay({ tools: task!.tools, random: again }),
      ),
    ).toEqual(overlays);
    expect(
      overlays.some((overlay) =>
        overlay.systemNotes.some((note) => note.source === 'guidelines'),
      ),
    ).toBe(true);
    const withCues = overlays.find(
      (overlay) => Object.keys(overlay.toolPatches).length > 0,
    )!;
    const cued = buildDemonstration({
      task: task!,
      tokenizer,
      backend,
      overlay: withCues,
    });
    expect(cued.text).not.toBe(plain.text);
    // The assistant's tokens (the calls) are the same; only the context differs.
    const answer = (demo: typeof plain) =>
      tokenizer.decode(
        demo.tokenIds.filter((_, i) => demo.assistantMask[i] === 1),
      );
    expect(answer(cued)).toBe(answer(plain));
  });
});

describe('evaluateCopying', () => {
  it('should count exact calls and literal values copied', async () => {
    const pairs = turnDrillPairs(tasks.slice(0, 6));
    expect(pairs.length).toBeGreaterThan(3);
    // A policy that answers every drill exactly but the first, where it changes one digit.
    const policy: MockPolicyV1 = new MockPolicyV1({
      maxSequenceLength: 100_000,
      generate: (request) => ({
        generations: (request.prompts ?? []).map((prompt) => {
          const text = policy.tokenizer.decode(prompt);
          const pair = pairs.find((p) => text.includes(p.user))!;
          const answer =
            pair === pairs[0]
              ? pair.call.replace(/\d/, (d) => String((Number(d) + 1) % 10))
              : pair.call;
          return {
            tokenIds: [],
            text: answer,
            logprobs: [],
            modelLogprobs: [],
            finishReason: 'stop' as const,
            promptTokenIds: prompt,
          };
        }),
        usage: { promptTokens: 0, completionTokens: 0 },
      }),
    });
    const result = await evaluateCopying({
      policy,
      tasks: tasks.slice(0, 6),
      batchSize: 4,
    });
    const literals = pairs.reduce(
      (sum, pair) => sum + callLiterals(pair.call).length,
      0,
    );
    const firstHasDigit = /\d/.test(pairs[0]!.call);
    expect(result).toEqual({
      drills: pairs.length,
      exact: firstHasDigit ? pairs.length - 1 : pairs.length,
      literals,
      literalsCopied: firstHasDigit ? literals - 1 : literals,
    });
  });
});

import { createBfclBackend, createGeneratorRuntime, generateTasks } from '@seal/bfcl';
import { MockPolicyV1 } from '@seal/engine-ort/test';
import type { Task } from '@seal/spec';
import { describe, expect, it } from 'vitest';
import { buildCopyDrills, callLiterals } from './copy-drills';
import { buildDemonstration } from './demonstrations';
import { runSupervised } from './run-supervised';

const tasks = generateTasks({ seed: 3, split: 'warmup', count: 40 });
const tokenizer = new MockPolicyV1().tokenizer;

describe('callLiterals', () => {
  it('should list quoted strings and numbers in order, numbers inside strings kept in their string', () => {
    expect(callLiterals(`[f(a='x 12 y', b=12, c=-3.5, d="it's", e=True)]`)).toEqual(['x 12 y', '12', '-3.5', "it's"]);
    expect(callLiterals('[list_all_following()]')).toEqual([]);
  });
});

describe('buildCopyDrills', () => {
  it('should keep a turn drill only when every literal of its call is in the message', () => {
    const drills = buildCopyDrills({ tasks, tokenizer, repeats: 0 });
    expect(drills.length).toBeGreaterThan(10);
    for (const drill of drills) {
      const [user, answer] = drill.text.split('\n[');
      for (const literal of callLiterals(`[${answer}`)) expect(user).toContain(literal);
    }
    // A call that needs a value the message does not hold is not drilled.
    const [first] = tasks;
    const needsResult: Task = { ...first!, id: 'needs-result', turns: [[{ role: 'user', content: 'Close the Calendar ticket.' }]], groundTruth: [['close_ticket(ticket_id=854)']] };
    const holds: Task = { ...needsResult, id: 'holds', turns: [[{ role: 'user', content: 'Close ticket 854.' }]] };
    expect(buildCopyDrills({ tasks: [needsResult, holds], tokenizer, repeats: 0 }).map((d) => d.taskId)).toEqual(['holds#turn0']);
  });

  it('should train exactly the answer and the stop token', () => {
    const [drill] = buildCopyDrills({ tasks: tasks.slice(0, 1), tokenizer, repeats: 1, seed: 5 }).filter((d) => d.taskId.startsWith('repeat'));
    const trained = drill!.tokenIds.filter((_, i) => drill!.assistantMask[i] === 1);
    const answer = drill!.text.split('\n')[1]!;
    expect(trained).toEqual([...tokenizer.encode(answer), tokenizer.stopTokenIds[0]]);
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
  const demonstrations = tasks.slice(0, 12).map((task) => buildDemonstration({ task, tokenizer, backend }));

  function recordingPolicy() {
    return new MockPolicyV1({
      maxSequenceLength: 100_000,
      train: () => ({
        loss: 1,
        gradNorm: 1,
        skipped: false,
        step: 0,
        metrics: { clipFraction: 0, kl: 0, ratioMean: 1, negativeLogLikelihood: 1, tokens: 0 },
      }),
    });
  }

  it('should run every epoch, token-mean weights summing to one per batch, the rate warming up then decaying', async () => {
    const policy = recordingPolicy();
    const losses = await runSupervised({ policy, demonstrations, epochs: 2, batchSize: 4, learningRate: 1e-3, warmupSteps: 2, seed: 1 });
    expect(losses).toHaveLength(6);
    const rates = policy.calls.train.map((call) => call.options?.learningRate ?? Number.NaN);
    expect(rates[0]).toBeCloseTo(5e-4);
    expect(rates[1]).toBeCloseTo(1e-3);
    expect(rates.at(-1)).toBeCloseTo(1e-4);
    for (const call of policy.calls.train) {
      const sum = call.sequences.reduce((total, sequence) => total + (sequence.tokenWeights ?? []).reduce((a, w) => a + w, 0), 0);
      expect(sum).toBeCloseTo(1, 9);
    }
  });

  it('should stop at maxSteps with the schedule spanning them, and refuse a bad maxSteps', async () => {
    const policy = recordingPolicy();
    const progress: number[] = [];
    const losses = await runSupervised({ policy, demonstrations, epochs: 5, batchSize: 4, learningRate: 1e-3, warmupSteps: 1, maxSteps: 4, onProgress: ({ steps }) => progress.push(steps) });
    expect(losses).toHaveLength(4);
    expect(new Set(progress)).toEqual(new Set([4]));
    expect(policy.calls.train.at(-1)?.options?.learningRate).toBeCloseTo(1e-4);
    await expect(runSupervised({ policy, demonstrations, epochs: 1, batchSize: 4, learningRate: 1e-3, maxSteps: 0 })).rejects.toThrow(/maxSteps/);
  });
});

import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { PassThrough } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { MockPolicyV1 } from '@seal/engine-ort/test';
import { PyRandom, formatCall, fromJsonValue } from '@seal/python';
import { runTraining, type TrainConfigInput } from '@seal/rl';
import type {
  PolicyV1GenerateOptions,
  PolicyV1GenerateResult,
  Task,
  TaskV2,
} from '@seal/spec';
import { describe, expect, it, onTestFinished } from 'vitest';
import { createOutput } from '../ui/output';
import { runReport } from './report';
import { runTrain } from './train';
import { prepareEnvTraining } from './train-env';

const here = dirname(fileURLToPath(import.meta.url));
const fixtures = join(here, '__fixtures__', 'env-check');
const example = join(here, '..', '..', '..', '..', 'examples', 'ai-sdk-notes');

async function tempDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'seal-cli-train-env-'));
  onTestFinished(() => rm(dir, { recursive: true, force: true }));
  return dir;
}

const jsonl = (tasks: unknown[]) =>
  tasks.map((task) => JSON.stringify(task)).join('\n') + '\n';

function quietOutput(): {
  output: ReturnType<typeof createOutput>;
  text: () => string;
} {
  const stdout = new PassThrough();
  const chunks: Buffer[] = [];
  stdout.on('data', (chunk: Buffer) => chunks.push(chunk));
  return {
    output: createOutput({ json: false, stdout, stderr: new PassThrough() }),
    text: () => Buffer.concat(chunks).toString('utf8'),
  };
}

/** The last message of a prompt the mock tokenizer rendered: its role and content. */
function lastMessage(text: string): { role: string; content: string } {
  const end = text.lastIndexOf('<|im_start|>assistant\n');
  const start = text.lastIndexOf('<|im_start|>', end - 1);
  const block = text.slice(start + '<|im_start|>'.length, end);
  const newline = block.indexOf('\n');
  return {
    role: block.slice(0, newline),
    content: block.slice(newline + 1).replace(/<\|im_end\|>\n$/, ''),
  };
}

/**
 * A scripted policy for the `bfcl-python` protocol: to a user turn it
 * answers `answer(task, turn)` as a Python call list (a seeded share of
 * turns it gives up on instead, so groups get mixed rewards); after tool
 * results it replies in text. Deterministic for each request's seed.
 */
function scriptedPolicy(
  tasks: readonly Task[],
  {
    giveUp,
    answer,
  }: {
    giveUp: number;
    answer: (
      task: Task,
      turn: number,
    ) => { name: string; arguments: Record<string, unknown> }[];
  },
): MockPolicyV1 {
  const policy: MockPolicyV1 = new MockPolicyV1({
    maxSequenceLength: 1_000_000,
    generate: (request: PolicyV1GenerateOptions): PolicyV1GenerateResult => {
      const rng = new PyRandom(BigInt(request.seed ?? 0));
      const generations = (request.prompts ?? []).map((prompt) => {
        const last = lastMessage(policy.tokenizer.decode(prompt));
        let text = 'Done.';
        const draw = rng.random();
        if (last.role === 'user' && draw >= giveUp) {
          for (const task of tasks) {
            const turn = task.turns.findIndex(
              (messages) =>
                messages[0] !== undefined &&
                last.content.endsWith(messages[0].content),
            );
            if (turn < 0) continue;
            const calls = answer(task, turn);
            if (calls.length > 0)
              text = `[${calls
                .map((call) =>
                  formatCall({
                    name: call.name,
                    args: [],
                    kwargs: Object.entries(call.arguments).map(
                      ([key, value]) => [key, fromJsonValue(value)],
                    ),
                  }),
                )
                .join(', ')}]`;
            break;
          }
        }
        const tokenIds = [...policy.tokenizer.encode(text), 257];
        return {
          tokenIds,
          text,
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

/** The ground truth of a loop task's turn (its v2 task rides in `meta.taskV2`). */
const groundTruthOf = (task: Task, turn: number) =>
  (task.meta?.['taskV2'] as TaskV2).groundTruth?.[turn] ?? [];

const config = (runId: string): TrainConfigInput => ({
  runId,
  seed: 3,
  method: 'seal',
  steps: 2,
  tasksPerStep: 4,
  groupSize: 2,
  optimizerStepsPerStep: 1,
  sampling: { maxTokens: 64, temperature: 1 },
  episode: {
    protocol: 'bfcl-python',
    promptMode: 'compact',
    maxModelCalls: 10,
  },
  ppo: { klCoef: 0, learningRate: 1e-5 },
  evalEvery: 2,
  checkpointEvery: 1,
});

describe('seal train --env', () => {
  it("should run SEAL's loop on the example: generic tags, schema cues from the JSON Schemas, A-Patch, a run the report opens", async () => {
    const dir = await tempDir();
    const env = await prepareEnvTraining({
      flags: {
        env: join(example, 'env.ts'),
        tasks: join(example, 'tasks.jsonl'),
        'eval-tasks': 6,
      },
      defaultEvalCount: 16,
      seed: 1,
    });
    onTestFinished(() => env.close());
    expect(env.trainTasks).toHaveLength(54);
    expect(env.evalSets[0]!.tasks).toHaveLength(6);
    const all = [...env.trainTasks, ...env.evalSets[0]!.tasks];
    const policy = scriptedPolicy(all, { giveUp: 0.3, answer: groundTruthOf });
    const summary = await runTraining({
      config: config('env-test'),
      policy,
      trainTasks: env.trainTasks,
      evalSets: env.evalSets,
      environment: env.training,
      runDirectory: dir,
    });
    // Mixed verdicts from the generic verifier: passes and failures with its tags.
    const samples = summary.steps.flatMap((step) => step.samples);
    expect(samples.some((sample) => sample.success)).toBe(true);
    expect(samples.some((sample) => !sample.success)).toBe(true);
    const tags = new Set(samples.flatMap((sample) => sample.tags));
    expect(tags.has('pass')).toBe(true);
    expect(
      [...tags].some((tag) =>
        [
          'empty_turn_model_response',
          'missing_call',
          'state_mismatch',
        ].includes(tag),
      ),
    ).toBe(true);
    // A-Patch: nonzero advantages scaled by the tag weights (ρ of the generic tags).
    expect(samples.some((sample) => sample.advantage !== 0)).toBe(true);
    expect(Object.keys(summary.steps.at(-1)!.tagWeights ?? {})).toContain(
      'pass',
    );
    // Evaluation by the environment's own categories, on the untouched interface.
    const categories = Object.keys(summary.evaluations[0]!.categories);
    expect(categories.length).toBeGreaterThan(0);
    expect(
      categories.every((category) => !category.startsWith('multi_turn')),
    ).toBe(true);
    // φ_schema from the JSON Schemas: required parameters and zod's enums.
    const overlays = (await readFile(join(dir, 'overlays.jsonl'), 'utf8'))
      .trim()
      .split('\n')
      .map(
        (line) =>
          JSON.parse(line) as {
            overlay: {
              toolPatches: Record<
                string,
                { parameters: Record<string, string> }
              >;
            };
          },
      );
    const patches = overlays.at(-1)!.overlay.toolPatches;
    expect(patches['add_todo']!.parameters['priority']).toContain(
      'Allowed values: low, normal, high',
    );
    expect(patches['add_note']!.parameters['title']).toContain('[required]');
    const records = (
      await readFile(join(dir, 'episodes', 'step-000001.jsonl'), 'utf8')
    )
      .trim()
      .split('\n')
      .map(
        (line) =>
          JSON.parse(line) as {
            category: string;
            mode: string;
            messages: { content: string }[];
          },
      );
    expect(records).toHaveLength(8);
    for (const record of records) {
      expect(record.mode).toBe('train');
      expect(record.messages[0]!.content).toContain('[required]');
      expect(all.map((task) => task.category)).toContain(record.category);
    }
    // The report opens the run (its episodes are not BFCL's to re-verify).
    const report = quietOutput();
    const code = await runReport({
      argv: [dir, '--out', join(dir, 'report.html')],
      output: report.output,
    });
    expect(code).toBe(0);
    expect(report.text()).toContain('environment ai-sdk-notes');
  });

  it('should tag a tool that throws or hangs, and a throwing checker, as failed turns and finish the run', async () => {
    const dir = await tempDir();
    const tasksFile = join(dir, 'tasks.jsonl');
    await writeFile(
      tasksFile,
      jsonl(
        ['a', 'b', 'c', 'd'].map((value) => ({
          id: `record-${value}`,
          category: 'record',
          turns: [[{ role: 'user', content: `record ${value}` }]],
          groundTruth: [[{ name: 'record', arguments: { value } }]],
        })),
      ),
    );
    const env = await prepareEnvTraining({
      flags: {
        env: join(fixtures, 'broken-tools.ts'),
        tasks: tasksFile,
        'eval-tasks': 0,
      },
      defaultEvalCount: 0,
      seed: 1,
    });
    onTestFinished(() => env.close());
    // The policy calls the throwing tool on two tasks and the hanging one on another.
    const policy = scriptedPolicy(env.trainTasks, {
      giveUp: 0,
      answer: (task, turn) =>
        task.id === 'record-b'
          ? [{ name: 'explode', arguments: {} }]
          : task.id === 'record-c'
            ? [{ name: 'hang', arguments: {} }]
            : groundTruthOf(task, turn),
    });
    const summary = await runTraining({
      config: { ...config('broken'), steps: 1 },
      policy,
      trainTasks: env.trainTasks,
      environment: env.training,
      runDirectory: join(dir, 'run'),
    });
    const byTask = new Map(
      summary.steps[0]!.samples.map((sample) => [sample.taskId, sample]),
    );
    expect(byTask.get('record-a')!.tags).toEqual(['pass']);
    for (const id of ['record-b', 'record-c']) {
      expect(byTask.get(id)!.success).toBe(false);
      // The failed call is the turn's primary tag (no call succeeded after it).
      expect(byTask.get(id)!.tags).toEqual(['recovery_failure']);
    }
    const records = (
      await readFile(join(dir, 'run', 'episodes', 'step-000001.jsonl'), 'utf8')
    )
      .trim()
      .split('\n')
      .map(
        (line) =>
          JSON.parse(line) as {
            taskId: string;
            turns: { steps: { results: string[] }[] }[];
          },
      );
    const results = (id: string) =>
      records
        .find((record) => record.taskId === id)!
        .turns[0]!.steps[0]!.results.join('\n');
    expect(results('record-b')).toContain('the tool exploded');
    expect(results('record-c')).toContain('did not answer within 300 ms');

    const checkerTasks = join(dir, 'checker.jsonl');
    await writeFile(
      checkerTasks,
      jsonl([
        { id: 'checked-1', turns: [[{ role: 'user', content: 'hi' }]] },
        { id: 'checked-2', turns: [[{ role: 'user', content: 'hello' }]] },
      ]),
    );
    const checked = await prepareEnvTraining({
      flags: {
        env: join(fixtures, 'throwing-checker.ts'),
        tasks: checkerTasks,
        'eval-tasks': 0,
      },
      defaultEvalCount: 0,
      seed: 1,
    });
    onTestFinished(() => checked.close());
    const checkerRun = await runTraining({
      config: { ...config('checker'), steps: 1, tasksPerStep: 2 },
      policy: scriptedPolicy(checked.trainTasks, {
        giveUp: 1,
        answer: () => [],
      }),
      trainTasks: checked.trainTasks,
      environment: checked.training,
      runDirectory: join(dir, 'checker-run'),
    });
    for (const sample of checkerRun.steps[0]!.samples) {
      expect(sample.success).toBe(false);
      expect(sample.tags).toEqual(['checker_error']);
    }
  });

  it('should refuse bad input with one clear error before any model work', async () => {
    const dir = await tempDir();
    const good = join(dir, 'tasks.jsonl');
    await writeFile(
      good,
      jsonl([
        {
          id: 'a',
          turns: [[{ role: 'user', content: 'hi' }]],
          groundTruth: [[]],
        },
      ]),
    );
    const train = (argv: string[]) =>
      runTrain({
        argv: [...argv, '--preset', 'smoke', '--run-dir', join(dir, 'run')],
        output: quietOutput().output,
      });
    await expect(
      train(['--env', join(fixtures, 'no-environment.ts'), '--tasks', good]),
    ).rejects.toMatchObject({
      code: 'INVALID_ARGUMENT',
      message: expect.stringContaining('exports no environment'),
    });
    const bad = join(dir, 'bad.jsonl');
    await writeFile(
      bad,
      `${JSON.stringify({ id: 'a', turns: [[{ role: 'user', content: 'hi' }]] })}\n${JSON.stringify({ id: 'b', turns: [], groundTruth: 3 })}\n`,
    );
    await expect(
      train(['--env', join(example, 'env.ts'), '--tasks', bad]),
    ).rejects.toMatchObject({
      code: 'INVALID_DATA',
      message: expect.stringMatching(/bad\.jsonl:2: /),
    });
    await expect(
      train([
        '--env',
        `mcp:${process.execPath} ${join(fixtures, 'garbage-mcp-server.mjs')}`,
        '--tasks',
        good,
      ]),
    ).rejects.toMatchObject({ code: 'BACKEND_UNAVAILABLE' });
    await expect(
      train([
        '--env',
        `mcp:X={session_dir} ${join(tmpdir(), 'no-such-mcp-server')}`,
        '--tasks',
        good,
      ]),
    ).rejects.toMatchObject({ code: 'BACKEND_UNAVAILABLE' });
    await expect(train(['--tasks', good])).rejects.toMatchObject({
      code: 'INVALID_ARGUMENT',
      message: expect.stringContaining('--tasks needs --env'),
    });
  });
});

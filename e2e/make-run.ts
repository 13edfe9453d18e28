import { createBfclBackend } from '@seal/bfcl';
import { createGeneratorRuntime, generateTasks } from '@seal/bfcl-tasks';
import { MockPolicyV1 } from '@seal/engine-ort/test';
import { PyRandom } from '@seal/python';
import { runTraining, type TrainSummary } from '@seal/rl';
import type {
  PolicyV1GenerateOptions,
  PolicyV1GenerateResult,
  Task,
} from '@seal/spec';
import { createBfclVerifier } from '@seal/verifier';

/** Text a scripted reply sometimes holds: model output the report and the viewer must never run. */
export const injectedText =
  '<script>window.__sealInjected = 1</script><img src=x onerror="window.__sealInjected = 2">';

/**
 * A scripted policy for generated tasks: per prompt, a seeded choice between
 * the current turn's ground-truth calls, a call with a wrong argument, an
 * unknown tool, markup in plain text, and giving up. The share of
 * ground-truth answers grows with each optimizer step, so the curves move.
 */
function scriptedPolicy(tasks: readonly Task[]): MockPolicyV1 {
  let trainSteps = 0;
  const policy: MockPolicyV1 = new MockPolicyV1({
    maxSequenceLength: 1_000_000,
    generate: (request: PolicyV1GenerateOptions): PolicyV1GenerateResult => {
      const rng = new PyRandom(BigInt(request.seed ?? 0));
      const generations = (request.prompts ?? []).map((prompt) => {
        const text = policy.tokenizer.decode(prompt);
        const task = tasks.find((candidate) =>
          text.includes(candidate.turns[0]![0]!.content),
        );
        // bfcl-python renders tool results as a user message holding `'role': 'tool'` dicts.
        const userMessages = text.split('<|im_start|>user\n').slice(1);
        const lastUser = userMessages.at(-1) ?? '';
        const afterResult =
          lastUser.startsWith("[{'role': 'tool'") ||
          lastUser.startsWith('Error:');
        const turn =
          userMessages.filter(
            (message) =>
              !message.startsWith("[{'role': 'tool'") &&
              !message.startsWith('Error:'),
          ).length - 1;
        const truth =
          task?.groundTruth[
            Math.min(task.groundTruth.length - 1, Math.max(0, turn))
          ] ?? [];
        const skill = Math.min(0.85, 0.35 + 0.1 * trainSteps);
        const draw = rng.random();
        let answer: string;
        if (afterResult || truth.length === 0)
          answer = draw < 0.1 ? `I cannot do that: ${injectedText}` : 'Done.';
        else if (draw < skill) answer = `[${truth.join(', ')}]`;
        else if (draw < skill + 0.08)
          answer = `[${truth[0]!.replace(/='[^']*'/, "='wrong'").replace(/=(\d+)/, '=999')}]`;
        else if (draw < skill + 0.12) answer = '[no_such_tool(x=1)]';
        else if (draw < skill + 0.18) answer = injectedText;
        else answer = 'Done.';
        const tokenIds = [...policy.tokenizer.encode(answer), 257];
        const logprobs = tokenIds.map(() => -0.5);
        return {
          tokenIds,
          text: answer,
          logprobs,
          modelLogprobs: logprobs,
          finishReason: 'stop' as const,
          promptTokenIds: prompt,
        };
      });
      return { generations, usage: { promptTokens: 0, completionTokens: 0 } };
    },
    score: (request) =>
      ({
        logprobs: request.sequences.map((sequence) =>
          new Float32Array(sequence.length).fill(-0.5),
        ),
      }) as never,
    train: () => {
      trainSteps++;
      const loss = 0.5 / trainSteps;
      return {
        loss,
        gradNorm: 0.4 + 0.1 * trainSteps,
        skipped: false,
        step: trainSteps,
        metrics: {
          clipFraction: 0.05,
          kl: 0.001 * trainSteps,
          ratioMean: 1,
          negativeLogLikelihood: loss,
          tokens: 10,
        },
      };
    },
  });
  return policy;
}

/**
 * Runs the real training loop (SEAL: tags, ρ, evolving overlays) on a few
 * generated tasks with a scripted policy, writing a run directory the way
 * `seal train` does. Seconds on one core.
 */
export async function makeRun({
  runDirectory,
  steps = 6,
  seed = 3,
  trainTasksCount = 16,
  evalTasksCount = 8,
  tasksPerStep = 4,
  groupSize = 3,
}: {
  runDirectory: string;
  steps?: number;
  seed?: number;
  trainTasksCount?: number;
  evalTasksCount?: number;
  tasksPerStep?: number;
  groupSize?: number;
}): Promise<TrainSummary> {
  const runtime = createGeneratorRuntime();
  const trainTasks = generateTasks({
    seed,
    split: 'train',
    count: trainTasksCount,
  });
  const evalSets = [
    {
      name: 'test-id',
      tasks: generateTasks({ seed, split: 'test-id', count: evalTasksCount }),
    },
    {
      name: 'test-ood',
      tasks: generateTasks({ seed, split: 'test-ood', count: evalTasksCount }),
    },
  ];
  const policy = scriptedPolicy([
    ...trainTasks,
    ...evalSets.flatMap((set) => set.tasks),
  ]);
  return runTraining({
    config: {
      runId: 'e2e-seal',
      seed,
      method: 'seal',
      steps,
      tasksPerStep,
      groupSize,
      optimizerStepsPerStep: 1,
      sampling: { maxTokens: 256, temperature: 1 },
      episode: {
        protocol: 'bfcl-python',
        promptMode: 'compact',
        maxModelCalls: 12,
      },
      ppo: { klCoef: 0, learningRate: 1e-5 },
      evalEvery: 2,
      checkpointEvery: 2,
    },
    policy,
    trainTasks,
    evalSets,
    backend: createBfclBackend({ runtime }),
    verifier: createBfclVerifier({ runtime }),
    runDirectory,
    // Every SEAL interface module, so the overlay changes with the failure statistics.
    interfaceSettings: { schema: {}, errorHints: {}, guidelines: {} },
  });
}

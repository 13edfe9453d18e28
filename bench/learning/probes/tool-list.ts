/**
 * Probe (issue 44): does the policy read the tool list before it calls?
 *
 * Every held-out base task's first turn, asked twice, greedy: once with its
 * tools as generated ("offered"), once with the tools that turn's ground
 * truth calls taken out of the list ("withheld"; the turn's ground truth is
 * then empty, as in a miss_func turn). A policy that reads the list calls
 * the needed tool when it is offered and replies in text when it is not; a
 * policy that decides by the request alone calls it either way.
 *
 *   node --conditions=@seal/source --import tsx bench/learning/probes/tool-list.ts \
 *     [--model apps/cli/assets/base] [--tasks 128]
 */
import { parseArgs } from 'node:util';
import { createBfclBackend } from '@seal/bfcl';
import { createGeneratorRuntime } from '@seal/bfcl-tasks';
import {
  embeddedEpisode,
  embeddedPresets,
  embeddedTasks,
} from '@seal/embedded';
import { createOrtPolicy } from '@seal/engine-ort';
import { evaluatePolicy, wilsonInterval } from '@seal/rl';
import type { Task } from '@seal/spec';
import { createBfclVerifier } from '@seal/verifier';

const { values } = parseArgs({
  options: {
    model: { type: 'string', default: 'apps/cli/assets/base' },
    tasks: { type: 'string', default: '128' },
    /** Print the first step of this many episodes of each form. */
    show: { type: 'string', default: '0' },
  },
});
const preset = embeddedPresets.default;
const { testId } = embeddedTasks({
  ...preset,
  tasks: { ...preset.tasks, testId: Number(values.tasks) },
});
const calledNames = (task: Task): string[] => [
  ...new Set(
    (task.groundTruth[0] ?? []).map((call) => call.slice(0, call.indexOf('('))),
  ),
];
const base = testId.filter(
  (task) => task.category === 'multi_turn_base' && calledNames(task).length > 0,
);
const firstTurn = (task: Task, withheld: boolean): Task => ({
  ...task,
  id: `${task.id}:${withheld ? 'withheld' : 'offered'}`,
  turns: [task.turns[0]!],
  groundTruth: [withheld ? [] : task.groundTruth[0]!],
  tools: withheld
    ? task.tools.filter((tool) => !calledNames(task).includes(tool.name))
    : task.tools,
});

const runtime = createGeneratorRuntime();
const policy = await createOrtPolicy({ model: { directory: values.model } });
try {
  for (const withheld of [false, true]) {
    const tasks = base.map((task) => firstTurn(task, withheld));
    const evaluation = await evaluatePolicy({
      policy,
      tasks,
      backend: createBfclBackend({ runtime }),
      verifier: createBfclVerifier({ runtime }),
      ...embeddedEpisode,
      maxTokens: preset.rl.maxTokens,
      limits: { maxModelCalls: preset.rl.maxModelCalls },
    });
    for (const { task, record } of evaluation.episodes.slice(
      0,
      Number(values.show),
    ))
      console.log(
        `  ${task.id} [${task.tools.map((tool) => tool.name).join(', ')}] asked "${JSON.stringify(task.turns[0]!.at(-1)?.content ?? '')}" → ${record.turns[0]?.steps[0]?.text ?? ''}`,
      );
    let calledNeeded = 0;
    let firstText = 0;
    for (const { task, record } of evaluation.episodes) {
      const first = record.turns[0]?.steps[0]?.text ?? '';
      const needed = calledNames(
        base.find((entry) => task.id.startsWith(`${entry.id}:`))!,
      );
      if (needed.some((name) => first.includes(`${name}(`))) calledNeeded += 1;
      if (!first.trimStart().startsWith('[')) firstText += 1;
    }
    const share = (count: number) => {
      const [low, high] = wilsonInterval({
        successes: count,
        total: tasks.length,
      });
      return `${((100 * count) / tasks.length).toFixed(1)}% [${(100 * low).toFixed(1)}, ${(100 * high).toFixed(1)}] (${count}/${tasks.length})`;
    };
    console.log(
      `${withheld ? 'withheld' : 'offered '}: first step calls the needed tool ${share(calledNeeded)}; replies in text ${share(firstText)}; turn passes ${share(Math.round(evaluation.accuracy * tasks.length))}`,
    );
  }
} finally {
  await policy.close();
}

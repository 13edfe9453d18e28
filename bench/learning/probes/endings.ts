/**
 * Probe (issue 44): how a policy's held-out episodes end. Greedy on the
 * default preset's test-id tasks (the 64 every study evaluates), per
 * category: the tasks passed, and of the failed ones how many ended at the
 * context limit, with the mean number of `not available` errors per
 * miss_func episode (a retry loop shows there).
 *
 *   node --conditions=@seal/source --import tsx bench/learning/probes/endings.ts \
 *     [--model apps/cli/assets/base]
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
import { evaluatePolicy } from '@seal/rl';
import { createBfclVerifier } from '@seal/verifier';

const { values } = parseArgs({
  options: { model: { type: 'string', default: 'apps/cli/assets/base' } },
});
const preset = embeddedPresets.default;
const { testId } = embeddedTasks(preset);
const runtime = createGeneratorRuntime();
const policy = await createOrtPolicy({ model: { directory: values.model } });
try {
  const evaluation = await evaluatePolicy({
    policy,
    tasks: testId,
    backend: createBfclBackend({ runtime }),
    verifier: createBfclVerifier({ runtime }),
    ...embeddedEpisode,
    maxTokens: preset.rl.maxTokens,
    limits: { maxModelCalls: preset.rl.maxModelCalls },
  });
  const rows = new Map<
    string,
    { tasks: number; passed: number; contextLimit: number; errors: number }
  >();
  for (const episode of evaluation.episodes) {
    const category = episode.task.category.replace('multi_turn_', '');
    const row = rows.get(category) ?? {
      tasks: 0,
      passed: 0,
      contextLimit: 0,
      errors: 0,
    };
    const passed = evaluation.taskSuccess[episode.task.id] === 1;
    row.tasks++;
    if (passed) row.passed++;
    else if (episode.record.endReason === 'context-limit') row.contextLimit++;
    row.errors += episode.record.messages.filter(
      (message) =>
        message.role !== 'assistant' &&
        message.content.includes('is not available'),
    ).length;
    rows.set(category, row);
  }
  console.log(
    `${values.model}: greedy test-id ${(100 * evaluation.accuracy).toFixed(1)}% (${testId.length} tasks)`,
  );
  console.log(
    '| category | passed | failed | failed at the context limit | `not available` errors per episode |',
  );
  console.log('| --- | ---: | ---: | ---: | ---: |');
  for (const [category, row] of [...rows].sort()) {
    console.log(
      `| ${category} | ${row.passed}/${row.tasks} | ${row.tasks - row.passed} | ${row.contextLimit} | ${(row.errors / row.tasks).toFixed(1)} |`,
    );
  }
} finally {
  await policy.close();
}

/**
 * `pnpm bench tasks [--seed N] [--train N] [--test N] [--warmup N]`: draws
 * the generator's four splits, then prints generation speed, task counts per
 * split and category, and prompt sizes in characters: the system prompt
 * (`bfcl-python` protocol, compact tools) and the whole conversation when the
 * ground truth is played through an episode (requests, calls, results, one
 * short reply per turn).
 */
import { performance } from 'node:perf_hooks';
import { createBfclBackend } from '@seal/bfcl';
import {
  createGeneratorRuntime,
  generateTasks,
  taskFamilies,
  type GeneratorSplit,
} from '@seal/bfcl-tasks';
import { createEpisode } from '@seal/env';
import type { Task } from '@seal/spec';
import { benchFlags } from './_args';

const flags = benchFlags(['seed', 'train', 'test', 'warmup']);
const flag = (
  name: 'seed' | 'train' | 'test' | 'warmup',
  fallback: number,
): number => {
  const value = flags.value(name);
  if (value === undefined) return fallback;
  const number = Number(value);
  if (!Number.isSafeInteger(number) || number < 0) {
    throw Object.assign(
      new Error(`--${name} takes a whole number, not '${value}'`),
      { code: 'INVALID_ARGUMENT' },
    );
  }
  return number;
};
const seed = flag('seed', 1);
const counts: Record<GeneratorSplit, number> = {
  train: flag('train', 400),
  'test-id': flag('test', 200),
  'test-ood': flag('test', 200),
  warmup: flag('warmup', 400),
};
const backend = createBfclBackend({ runtime: createGeneratorRuntime() });

/** Plays the ground truth through a compact bfcl-python episode; returns character counts. */
function sizes(task: Task): { system: number; total: number } {
  const episode = createEpisode({
    task,
    backend,
    protocol: 'bfcl-python',
    promptMode: 'compact',
  });
  const system = episode.reset()[0]!.content.length;
  for (const calls of task.groundTruth) {
    if (calls.length > 0) episode.step(`[${calls.join(', ')}]`);
    episode.step(
      calls.length > 0 ? 'Done.' : 'I cannot do that yet; please tell me more.',
    );
  }
  const total = episode
    .messages()
    .reduce((sum, message) => sum + message.content.length, 0);
  return { system, total };
}

const rows: string[][] = [];
const all: { split: string; task: Task; system: number; total: number }[] = [];
for (const split of Object.keys(counts) as GeneratorSplit[]) {
  const start = performance.now();
  const tasks = generateTasks({ seed, split, count: counts[split] });
  const ms = performance.now() - start;
  rows.push([
    split,
    String(tasks.length),
    ms.toFixed(0),
    ((tasks.length / ms) * 1000).toFixed(0),
  ]);
  for (const task of tasks) all.push({ split, task, ...sizes(task) });
}

console.log('\nGeneration\n');
console.log('| split | tasks | ms | tasks/s |\n| --- | ---: | ---: | ---: |');
for (const row of rows) console.log(`| ${row.join(' | ')} |`);

console.log(
  '\nPrompt sizes (characters; system = compact bfcl-python system prompt, total = system + conversation)\n',
);
console.log(
  '| split | category | tasks | system avg | system max | total avg | total max | conversation avg | conversation max |',
);
console.log('| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |');
const groups = new Map<string, typeof all>();
for (const item of all) {
  const key = `${item.split}|${item.task.category}`;
  groups.set(key, [...(groups.get(key) ?? []), item]);
}
for (const [key, items] of groups) {
  const [split, category] = key.split('|');
  const avg = (pick: (item: (typeof all)[number]) => number) =>
    Math.round(items.reduce((sum, item) => sum + pick(item), 0) / items.length);
  const max = (pick: (item: (typeof all)[number]) => number) =>
    Math.max(...items.map(pick));
  console.log(
    `| ${split} | ${category} | ${items.length} | ${avg((item) => item.system)} | ${max((item) => item.system)} | ${avg((item) => item.total)} | ${max((item) => item.total)} | ${avg((item) => item.total - item.system)} | ${max((item) => item.total - item.system)} |`,
  );
}

console.log('\nFamilies\n');
console.log(
  '| family | classes | difficulty | pool | long form |\n| --- | --- | --- | --- | --- |',
);
for (const family of taskFamilies) {
  console.log(
    `| ${family.id} | ${family.classes.join(' + ')} | ${family.difficulty} | ${family.pool} | ${family.longContext ? 'yes' : 'no'} |`,
  );
}

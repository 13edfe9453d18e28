/**
 * `pnpm bench ladder --rung 1 [--family ID] [--steps N] [--lr X] [--group N] [--tasks-per-step N] [--scan]`
 *
 * The learning ladder of issue 17. Rung 1: one task family, GRPO from the
 * embedded warm start, held-out success of that family (sampled pass@1 over
 * 4 samples at temperature 1, and greedy) before and during training.
 * `--scan` prints the warm start's held-out success per family instead, to
 * pick a family where it sits at 20–40%.
 */
import { rm } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { createBfclBackend } from '@seal/bfcl';
import {
  createGeneratorRuntime,
  generateTasks,
  taskFamilies,
} from '@seal/bfcl-tasks';
import { prepareEmbedded } from '@seal/cli';
import { embeddedEpisode, embeddedPresets } from '@seal/embedded';
import { createOrtPolicy } from '@seal/engine-ort';
import {
  evaluatePolicy,
  formatPoints,
  pairedBootstrap,
  runTraining,
} from '@seal/rl';
import type { Task } from '@seal/spec';
import { createBfclVerifier } from '@seal/verifier';

const { values } = parseArgs({
  options: {
    rung: { type: 'string', default: '1' },
    family: { type: 'string' },
    scan: { type: 'boolean', default: false },
    steps: { type: 'string', default: '20' },
    lr: { type: 'string', default: '1e-4' },
    group: { type: 'string', default: '8' },
    'tasks-per-step': { type: 'string', default: '8' },
    'eval-every': { type: 'string', default: '5' },
    'test-tasks': { type: 'string', default: '48' },
    categories: { type: 'string', default: 'multi_turn_base' },
    temperature: { type: 'string', default: '1' },
    kl: { type: 'string', default: '0.001' },
    progress: { type: 'string', default: '0' },
    minibatches: { type: 'string', default: '2' },
    epochs: { type: 'string', default: '1' },
    base: { type: 'string', default: 'default' },
    seed: { type: 'string', default: '1' },
    cache: { type: 'string', default: '.seal-cache' },
    out: { type: 'string', default: 'bench/out/ladder' },
  },
});
const preset = embeddedPresets[values.base === 'base' ? 'base' : 'default'];
const assets = await prepareEmbedded({
  preset,
  cacheDirectory: resolve(values.cache),
});
const runtime = createGeneratorRuntime();
const backend = createBfclBackend({ runtime });
const verifier = createBfclVerifier({ runtime });
const categories = values.categories.split(',') as Task['category'][];
const families = taskFamilies.filter(
  (f) =>
    preset.difficulties.includes(f.difficulty) && f.pool === 'in-distribution',
);
const testCount = Number(values['test-tasks']);
const limits = { maxModelCalls: preset.rl.maxModelCalls };
const policy = await createOrtPolicy({
  model: { directory: assets.warmStartDirectory },
});

async function heldOut(
  tasks: Task[],
  seed: number,
): Promise<{
  sampled: Record<string, number>;
  greedy: Record<string, number>;
}> {
  const common = {
    policy,
    tasks,
    backend,
    verifier,
    ...embeddedEpisode,
    maxTokens: preset.rl.maxTokens,
    limits,
    seed,
  };
  const sampled = await evaluatePolicy({
    ...common,
    temperature: 1,
    samples: 4,
  });
  const greedy = await evaluatePolicy({ ...common, temperature: 0 });
  return { sampled: sampled.taskSuccess, greedy: greedy.taskSuccess };
}
const mean = (record: Record<string, number>) =>
  Object.values(record).reduce((a, b) => a + b, 0) /
  Math.max(1, Object.values(record).length);

if (values.scan) {
  console.log('| family | sampled pass@1 | greedy |');
  console.log('| --- | ---: | ---: |');
  for (const family of families.filter(
    (f) =>
      values.family === undefined || values.family.split(',').includes(f.id),
  )) {
    let tasks: Task[];
    try {
      tasks = generateTasks({
        seed: preset.seed,
        split: 'test-id',
        count: 16,
        families: [family.id],
        variants: categories,
      });
    } catch {
      // A family with a small value space has few distinct held-out tasks.
      console.log(`| ${family.id} | (fewer than 16 held-out tasks) | |`);
      continue;
    }
    const result = await heldOut(tasks, 7);
    console.log(
      `| ${family.id} | ${(mean(result.sampled) * 100).toFixed(1)}% | ${(mean(result.greedy) * 100).toFixed(1)}% |`,
    );
  }
  await policy.close();
} else {
  const family = values.family!;
  const train = generateTasks({
    seed: preset.seed,
    split: 'train',
    count: 200,
    families: [family],
    variants: categories,
  });
  const test = generateTasks({
    seed: preset.seed,
    split: 'test-id',
    count: testCount,
    families: [family],
    variants: categories,
  });
  const reference = await createOrtPolicy({
    model: { directory: assets.warmStartDirectory },
  });
  const before = await heldOut(test, 7);
  console.log(
    `step 0: held-out sampled ${(mean(before.sampled) * 100).toFixed(1)}%, greedy ${(mean(before.greedy) * 100).toFixed(1)}%`,
  );
  const steps = Number(values.steps);
  const every = Number(values['eval-every']);
  const started = Date.now();
  const runDirectory = join(
    resolve(values.out),
    `rung1-${preset.name}-${family}-lr${values.lr}-g${values.group}-t${values.temperature}-p${values.progress}-e${values.epochs}-s${values.seed}`,
  );
  await rm(runDirectory, { recursive: true, force: true });
  let done = 0;
  while (done < steps) {
    const next = Math.min(steps, done + every);
    const summary = await runTraining({
      config: {
        runId: `ladder-${family}`,
        seed: Number(values.seed),
        method: 'grpo',
        steps: next,
        tasksPerStep: Number(values['tasks-per-step']),
        groupSize: Number(values.group),
        optimizerStepsPerStep: Number(values.minibatches),
        progressWeight: Number(values.progress),
        sampling: {
          maxTokens: preset.rl.maxTokens,
          temperature: Number(values.temperature),
        },
        episode: { ...embeddedEpisode, maxModelCalls: preset.rl.maxModelCalls },
        ppo: {
          learningRate: Number(values.lr),
          klCoef: Number(values.kl),
          epochs: Number(values.epochs),
        },
        evalEvery: 0,
        checkpointEvery: 1,
        keepEpisodes: false,
      },
      policy,
      referencePolicy: reference,
      trainTasks: train,
      backend,
      verifier,
      runDirectory,
    });
    const recent = summary.steps.slice(done);
    done = next;
    const after = await heldOut(test, 7);
    const keys = Object.keys(before.sampled);
    const gain = pairedBootstrap({
      before: keys.map((k) => before.sampled[k]!),
      after: keys.map((k) => after.sampled[k]!),
      seed: 1,
    });
    const trainSuccess =
      recent.reduce((a, s) => a + s.successRate, 0) / recent.length;
    console.log(
      `step ${done}: train ${(trainSuccess * 100).toFixed(1)}%, held-out sampled ${(mean(after.sampled) * 100).toFixed(1)}% (gain ${formatPoints(gain)}), greedy ${(mean(after.greedy) * 100).toFixed(1)}% · ${Math.round((Date.now() - started) / 1000)}s`,
    );
  }
  await reference.close();
  await policy.close();
}

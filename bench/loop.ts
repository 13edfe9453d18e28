/**
 * `pnpm bench loop [--preset default|smoke] [--steps N] [--method seal|...] [--baseline on|off] [--zero-advantage-share P] [--share-prefixes on|off] [--weighted-slots on|off]`
 *
 * Where the time of a training step goes at the embedded default config:
 * model work (generation, scoring and updates in the engine) against the rest
 * of the loop (environment, verification, diagnosis, evolution, advantages,
 * bookkeeping, checkpoint writes). Runs real steps of `runTraining` from the
 * cached warm start (made first if missing) and prints per-part milliseconds
 * per step and their share, the time inside each kind of policy call, and RL
 * episodes per second, measured in the same run.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { createBfclBackend } from '@seal/bfcl';
import { createGeneratorRuntime } from '@seal/bfcl-tasks';
import { prepareEmbedded } from '@seal/cli';
import { embeddedPresets, embeddedTrainConfig } from '@seal/embedded';
import { createOrtPolicy } from '@seal/engine-ort';
import { runTraining, trainMethodSchema } from '@seal/rl';
import type { TrainStepEvent } from '@seal/spec';
import { createBfclVerifier } from '@seal/verifier';

const { values } = parseArgs({
  options: {
    preset: { type: 'string', default: 'default' },
    steps: { type: 'string', default: '4' },
    method: { type: 'string', default: 'seal' },
    cache: { type: 'string', default: '.seal-cache' },
    // The frozen baseline's rollouts (default: the preset's setting).
    baseline: { type: 'string' },
    // `ppo.zeroAdvantageShare` (default: the config's, 1).
    'zero-advantage-share': { type: 'string' },
    // The engine's shared-prefix training (default off, as the engine's; decision engine-011).
    'share-prefixes': { type: 'string', default: 'off' },
    // The engine's LM head at the weighted slots only (default off, as the engine's; decision engine-012).
    'weighted-slots': { type: 'string', default: 'off' },
  },
});
if (values['weighted-slots'] !== 'on' && values['weighted-slots'] !== 'off') {
  throw new Error(
    `--weighted-slots must be on or off, got ${values['weighted-slots']}`,
  );
}
const weightedSlotsOnly = values['weighted-slots'] === 'on';
if (values['share-prefixes'] !== 'on' && values['share-prefixes'] !== 'off') {
  throw new Error(
    `--share-prefixes must be on or off, got ${values['share-prefixes']}`,
  );
}
const sharePrefixes = values['share-prefixes'] === 'on';
const presetName = values.preset === 'smoke' ? 'smoke' : 'default';
const preset = embeddedPresets[presetName];
const steps = Number(values.steps);
const method = trainMethodSchema.parse(values.method);
if (
  values.baseline !== undefined &&
  values.baseline !== 'on' &&
  values.baseline !== 'off'
) {
  throw new Error(`--baseline must be on or off, got ${values.baseline}`);
}
const frozenBaseline =
  values.baseline === undefined
    ? (preset.rl.frozenBaseline ?? false)
    : values.baseline === 'on';
const zeroAdvantageShare =
  values['zero-advantage-share'] === undefined
    ? undefined
    : Number(values['zero-advantage-share']);
if (
  zeroAdvantageShare !== undefined &&
  !(zeroAdvantageShare > 0 && zeroAdvantageShare <= 1)
) {
  throw new Error(
    `--zero-advantage-share must be in (0, 1], got ${values['zero-advantage-share']}`,
  );
}

const assets = await prepareEmbedded({
  preset,
  cacheDirectory: resolve(values.cache),
  onProgress: (progress) => {
    if (progress.type === 'phase') console.error(`  ${progress.phase}…`);
    else if (progress.step % 25 === 0)
      console.error(
        `  warm start ${progress.step}/${progress.steps} loss ${progress.loss.toFixed(3)}`,
      );
  },
});
const runDirectory = await mkdtemp(join(tmpdir(), 'seal-bench-loop-'));
const policy = await createOrtPolicy({
  model: { directory: assets.warmStartDirectory },
  sharePrefixes,
  weightedSlotsOnly,
});
const referencePolicy =
  preset.rl.klCoef > 0 || frozenBaseline
    ? await createOrtPolicy({ model: { directory: assets.warmStartDirectory } })
    : undefined;
const runtime = createGeneratorRuntime();
const events: TrainStepEvent[] = [];
try {
  await runTraining({
    // Evaluation is not part of a training step: none here.
    config: {
      ...embeddedTrainConfig({
        preset:
          zeroAdvantageShare === undefined
            ? preset
            : { ...preset, rl: { ...preset.rl, zeroAdvantageShare } },
        method,
        steps,
      }),
      evalEvery: 0,
      frozenBaseline,
    },
    policy,
    ...(referencePolicy ? { referencePolicy } : {}),
    trainTasks: assets.trainTasks,
    evalSets: [],
    backend: createBfclBackend({ runtime }),
    verifier: createBfclVerifier({ runtime }),
    runDirectory,
    onProgress: (progress) => {
      if (progress.type !== 'step-end') return;
      events.push(progress.event);
      console.error(
        `  step ${progress.step}/${steps}: ${(progress.event.timing.total / 1000).toFixed(1)} s`,
      );
    },
  });
} finally {
  await Promise.all([policy.close(), referencePolicy?.close()]);
  await rm(runDirectory, { recursive: true, force: true });
}

const perStep = (value: (event: TrainStepEvent) => number) =>
  events.reduce((sum, event) => sum + value(event), 0) / events.length;
const total = perStep((event) => event.timing.total);
const model = perStep((event) => event.timing.model);
const partNames = [
  ...new Set(events.flatMap((event) => Object.keys(event.timing.parts))),
].sort();
const rows: [string, number][] = [
  ['model (generate, score, train)', model],
  ...partNames.map((name): [string, number] => [
    name,
    perStep((event) => event.timing.parts[name] ?? 0),
  ]),
];
const accounted = rows.reduce((sum, [, ms]) => sum + ms, 0);
rows.push(['unattributed', total - accounted]);
const nonModel = total - model;
const nonModelWithoutCheckpoint =
  nonModel - perStep((event) => event.timing.parts['checkpoint'] ?? 0);

console.log(
  `\nbench loop: preset ${preset.name}, method ${method}, ${events.length} training steps`,
);
console.log(
  `(${preset.rl.tasksPerStep} tasks × ${preset.rl.groupSize} rollouts per step, ${preset.rl.optimizerStepsPerStep} optimizer steps, frozen baseline ${frozenBaseline ? 'on' : 'off'})\n`,
);
console.log('| part | ms per step | share |');
console.log('| --- | ---: | ---: |');
for (const [name, ms] of rows)
  console.log(
    `| ${name} | ${ms.toFixed(1)} | ${((100 * ms) / total).toFixed(2)}% |`,
  );
console.log(`| **step total** | ${total.toFixed(1)} | 100% |`);
console.log(
  `\nnon-model share: ${((100 * nonModel) / total).toFixed(2)}% (without checkpoint writes: ${((100 * nonModelWithoutCheckpoint) / total).toFixed(2)}%)`,
);

// Inside the model's time: each kind of policy call (the reference policy's prefixed).
const callNames = [
  ...new Set(events.flatMap((event) => Object.keys(event.timing.calls ?? {}))),
].sort();
console.log('\n| policy call | ms per step | share of the step |');
console.log('| --- | ---: | ---: |');
for (const name of callNames) {
  const ms = perStep((event) => event.timing.calls?.[name] ?? 0);
  console.log(
    `| ${name} | ${ms.toFixed(1)} | ${((100 * ms) / total).toFixed(2)}% |`,
  );
}
const episodesPerStep = preset.rl.tasksPerStep * preset.rl.groupSize;
console.log(
  `\nRL episodes per second: ${((1000 * episodesPerStep) / total).toFixed(2)} (${episodesPerStep} per step${frozenBaseline ? `, plus as many frozen-baseline episodes` : ''}; ${events.length} steps)`,
);
// Step 1 is the same batch of rollouts in every configuration (the same
// weights and seeds): its update's calls compare configurations pair-wise.
const first = events[0];
if (first !== undefined) {
  const calls = first.timing.calls ?? {};
  const update =
    (calls['train'] ?? 0) +
    (calls['reference.score'] ?? 0) +
    (calls['score'] ?? 0);
  console.log(
    `\nstep 1 (the same rollouts in every configuration): update ${update.toFixed(0)} ms (train ${(calls['train'] ?? 0).toFixed(0)}, reference.score ${(calls['reference.score'] ?? 0).toFixed(0)}), generate ${(calls['generate'] ?? 0).toFixed(0)} ms; zero-advantage share ${zeroAdvantageShare ?? 1}`,
  );
}

/**
 * Probe (issue 44): can the shipped base learn to copy on held-out turn
 * drills without losing its tasks? Continues the shipped base with a mixed
 * stage of copy drills and demonstrations (fresh Adam moments, as RL gets),
 * saves it and measures it with `measureWarmStart`.
 *
 *   node --conditions=@seal/source --import tsx bench/learning/probes/consolidate.ts \
 *     --out /tmp/probe --steps 400 --batch 16 --lr 1e-3 --drill-share 0.5
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { createBfclBackend } from '@seal/bfcl';
import { createGeneratorRuntime } from '@seal/bfcl-tasks';
import {
  embeddedEpisode,
  embeddedPresets,
  embeddedTasks,
  measureWarmStart,
} from '@seal/embedded';
import { createOrtPolicy } from '@seal/engine-ort';
import { PyRandom } from '@seal/python';
import {
  buildCopyDrills,
  buildDemonstration,
  randomSealOverlay,
  runSupervised,
} from '@seal/rl';

const { values } = parseArgs({
  options: {
    from: { type: 'string', default: 'apps/cli/assets/base' },
    out: { type: 'string' },
    steps: { type: 'string', default: '400' },
    batch: { type: 'string', default: '16' },
    lr: { type: 'string', default: '1e-3' },
    'drill-share': { type: 'string', default: '0.5' },
    seed: { type: 'string', default: '7' },
    'measure-only': { type: 'boolean', default: false },
  },
});
if (values.out === undefined) throw new Error('--out DIR is required');
const preset = embeddedPresets.base;
const out = values.out;

if (!values['measure-only']) {
  const seed = Number(values.seed);
  const steps = Number(values.steps);
  const batchSize = Number(values.batch);
  const drillShare = Number(values['drill-share']);
  const tasks = embeddedTasks(preset);
  const backend = createBfclBackend({ runtime: createGeneratorRuntime() });
  const policy = await createOrtPolicy({ model: { directory: values.from } });
  const drills = buildCopyDrills({
    tasks: tasks.warmup,
    tokenizer: policy.tokenizer,
    repeats: 4000,
    seed,
  });
  const overlayRandom = new PyRandom(BigInt(seed) * 7919n + 17n);
  const demonstrations = tasks.warmup.map((task) =>
    buildDemonstration({
      task,
      tokenizer: policy.tokenizer,
      backend,
      ...embeddedEpisode,
      ...(overlayRandom.random() < 0.5
        ? {
            overlay: randomSealOverlay({
              tools: task.tools,
              random: overlayRandom,
            }),
          }
        : {}),
    }),
  );
  // The mix: drillShare of the examples are drills.
  const total = steps * batchSize;
  const pick = new PyRandom(BigInt(seed) + 99n);
  const drillCount = Math.round(total * drillShare);
  const mixed = [
    ...Array.from({ length: drillCount }, () => pick.choice(drills)),
    ...Array.from({ length: total - drillCount }, () =>
      pick.choice(demonstrations),
    ),
  ];
  console.log(
    `drills ${drills.length} (turn drills + repeats), demonstrations ${demonstrations.length}; stage: ${steps} steps × ${batchSize}, lr ${values.lr}, drill share ${drillShare}`,
  );
  const started = Date.now();
  const losses = await runSupervised({
    policy,
    demonstrations: mixed,
    epochs: 1,
    maxSteps: steps,
    batchSize,
    learningRate: Number(values.lr),
    contextWeight: 0.1,
    seed,
    onProgress: ({ step, steps: n, loss }) => {
      if (step % 50 === 0 || step === n)
        console.log(
          `step ${step}/${n} loss ${loss.toFixed(4)} (${Math.round((Date.now() - started) / 1000)} s)`,
        );
    },
  });
  await mkdir(out, { recursive: true });
  await policy.save({ directory: out });
  await policy.close();
  await writeFile(
    join(out, 'probe-losses.json'),
    JSON.stringify({ args: values, losses }),
  );
}
const figures = await measureWarmStart({ directory: out, preset });
const pct = (a: number, b: number) =>
  `${((100 * a) / Math.max(1, b)).toFixed(1)}% (${a}/${b})`;
console.log(
  `turn drills alone: exact ${pct(figures.copy.exact, figures.copy.drills)}, literals ${pct(figures.copy.literalsCopied, figures.copy.literals)}`,
);
console.log(
  `first turns in context: exact ${pct(figures.firstTurn.exact, figures.firstTurn.drills)}, literals ${pct(figures.firstTurn.literalsCopied, figures.firstTurn.literals)}`,
);
let c = 0;
let t = 0;
for (const [category, { correct, total }] of Object.entries(figures.heldOut)) {
  c += correct;
  t += total;
  console.log(`held-out ${category}: ${pct(correct, total)}`);
}
console.log(`held-out overall: ${pct(c, t)}`);
await writeFile(
  join(out, 'probe-figures.json'),
  JSON.stringify(figures, null, 2),
);

/**
 * `pnpm bench tinker [--steps N] [--prompts N] [--max-tokens N] [--model DIR]`
 *
 * The Tinker protocol's overhead per RL step, against the in-process engine.
 * The same model (default: the shipped base) is driven two ways. One is the
 * in-process engine. The other is `seal serve-trainer`, run as a child
 * process over loopback HTTP, reached by two clients: SEAL's exact
 * extension (JSON, `seal_sample_batch`) and the plain protocol on SDK 0.25's
 * protobuf wire (one `asample` per prompt). One RL step at the policy level
 * is: sample a batch (`--prompts` prompts, `--max-tokens` each, temperature
 * 1), score the sequences (old log-probabilities) and take one PPO step. The
 * variants run interleaved, step by step, after one warm-up step each. The
 * benchmark prints milliseconds per step and per phase (medians), and each
 * variant's ratio to in-process, side by side from one run.
 */
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { shippedBaseDirectory } from '@seal/cli';
import { createOrtPolicy } from '@seal/engine-ort';
import type { PolicyV1 } from '@seal/spec';
import {
  createTinkerClient,
  createTinkerPolicy,
  type TinkerWire,
} from '@seal/tinker';
import { sealCliEntry, sealCliNodeArguments } from './_cli';

const { values } = parseArgs({
  options: {
    steps: { type: 'string', default: '4' },
    prompts: { type: 'string', default: '8' },
    'max-tokens': { type: 'string', default: '24' },
    model: { type: 'string' },
  },
});
const steps = Number(values.steps);
const promptCount = Number(values.prompts);
const maxTokens = Number(values['max-tokens']);
const directory = values.model ?? shippedBaseDirectory();
if (directory === undefined) throw new Error('no model: pass --model DIR');

// seal serve-trainer in its own process, as a user runs it.
const child = spawn(
  process.execPath,
  [
    ...sealCliNodeArguments,
    sealCliEntry,
    'serve-trainer',
    '--model',
    directory,
    '--port',
    '0',
    '--name',
    'bench',
    '--json',
  ],
  { stdio: ['ignore', 'pipe', 'inherit'] },
);
const url = await new Promise<string>((resolve, reject) => {
  const lines = createInterface({ input: child.stdout });
  lines.on('line', (line) => {
    try {
      const event = JSON.parse(line) as { event?: string; url?: string };
      if (event.event === 'listening' && event.url) resolve(event.url);
    } catch {
      // Not an event line.
    }
  });
  child.once('exit', (code) =>
    reject(new Error(`seal serve-trainer exited (${code})`)),
  );
});

type Variant = { name: string; policy: PolicyV1 };
const local = await createOrtPolicy({ model: { directory } });
const remote = (wire: TinkerWire, sealExtensions: 'auto' | 'off') =>
  createTinkerPolicy({
    client: createTinkerClient({ baseUrl: url, wire }),
    baseModel: 'bench',
    tokenizer: local.tokenizer,
    sealExtensions,
  });
const variants: Variant[] = [
  { name: 'in-process engine', policy: local },
  {
    name: 'serve-trainer, exact extension (JSON)',
    policy: await remote('json', 'auto'),
  },
  {
    name: 'serve-trainer, plain protocol (protobuf)',
    policy: await remote('protobuf', 'off'),
  },
];

const texts = [
  'List the files in the current directory.',
  'Move report.txt into the archive folder.',
  'What is the weather in Paris tomorrow?',
  'Create a directory called drafts.',
  'Send a message to Alice saying hello.',
  'Sort the numbers 5, 3 and 9.',
  'Read the first line of notes.md.',
  'Book a table for two at eight.',
];
const prompts = Array.from(
  { length: promptCount },
  (_, i) =>
    local.tokenizer.renderChat({
      messages: [{ role: 'user', content: texts[i % texts.length]! }],
      addGenerationPrompt: true,
    }).tokenIds,
);

type Timing = { generate: number; score: number; train: number };

/** One RL step at the policy level: sample, score, one PPO update. */
async function rlStep(policy: PolicyV1, step: number): Promise<Timing> {
  const t0 = performance.now();
  const { generations } = await policy.generate({
    prompts,
    maxTokens,
    temperature: 1,
    seed: 1000 + step,
    stopTokenIds: [],
  });
  const t1 = performance.now();
  const sequences = generations.map((generation, i) => [
    ...prompts[i]!,
    ...generation.tokenIds,
  ]);
  const { logprobs } = await policy.score({ sequences });
  const t2 = performance.now();
  const generated = generations.reduce(
    (sum, generation) => sum + generation.tokenIds.length,
    0,
  );
  await policy.train({
    objective: 'ppo',
    sequences: sequences.map((tokenIds, i) => ({
      tokenIds,
      tokenWeights: tokenIds.map((_, t) =>
        t >= prompts[i]!.length ? 1 / generated : 0,
      ),
      advantages: tokenIds.map(() => (i % 2 === 0 ? 1 : -1)),
      oldLogprobs: logprobs[i]!,
    })),
    options: { learningRate: 1e-5, clipLow: 0.2, clipHigh: 0.2 },
  });
  const t3 = performance.now();
  return { generate: t1 - t0, score: t2 - t1, train: t3 - t2 };
}

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1
    ? sorted[middle]!
    : (sorted[middle - 1]! + sorted[middle]!) / 2;
};

const timings = new Map<string, Timing[]>(variants.map((v) => [v.name, []]));
try {
  for (const variant of variants) await rlStep(variant.policy, -1);
  for (let step = 0; step < steps; step++) {
    for (const variant of variants)
      timings.get(variant.name)!.push(await rlStep(variant.policy, step));
  }
} finally {
  await Promise.allSettled(variants.map((variant) => variant.policy.close()));
  child.kill('SIGTERM');
}

const summary = variants.map((variant) => {
  const runs = timings.get(variant.name)!;
  const phase = (key: keyof Timing) => median(runs.map((run) => run[key]));
  const total = median(runs.map((run) => run.generate + run.score + run.train));
  return {
    name: variant.name,
    total,
    generate: phase('generate'),
    score: phase('score'),
    train: phase('train'),
  };
});
const base = summary[0]!;
console.log(
  `pnpm bench tinker: ${steps} RL steps per variant (after 1 warm-up), ${promptCount} prompts × ${maxTokens} tokens, ${directory}, Node ${process.version}, ${new Date().toISOString().slice(0, 10)}`,
);
console.log(
  '| variant | ms / step | generate | score | train | × in-process | overhead ms / step |',
);
console.log('| --- | ---: | ---: | ---: | ---: | ---: | ---: |');
for (const row of summary) {
  console.log(
    `| ${row.name} | ${row.total.toFixed(0)} | ${row.generate.toFixed(0)} | ${row.score.toFixed(0)} | ${row.train.toFixed(0)} | ${(row.total / base.total).toFixed(2)} | ${(row.total - base.total).toFixed(0)} |`,
  );
}

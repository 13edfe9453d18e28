/**
 * `pnpm bench cues [--preset study|default|smoke] [--model DIR] [--split train|test-id] [--per-category N] [--samples K] [--seed S] [--variants none,schema,markers,note,err,cap]`
 *
 * What each training-interface cue does to one fixed policy, before any RL:
 * the same tasks rolled out under each variant of SEAL's interface, sampled
 * as in training (K rollouts per task at T = 1, the same seed in every
 * variant), and verified with BFCL's rules. SEAL's environment side can only
 * help if its cues make the policy succeed more often on the training
 * interface; this measures whether they do, category by category, and which
 * failures they move (the verifier's per-turn tags).
 *
 * Variants:
 * - `none`: the untouched interface (the prompt evaluation sees);
 * - `schema`: φ_schema as SEAL's headline runs use it (` [required]` and
 *   enum cues in the tool docs, and the observation note);
 * - `markers`: φ_schema's cues in the docs without the note;
 * - `note`: the note alone;
 * - `err`: φ_err's recovery hints alone;
 * - `cap`: φ_cap's guidelines alone, chosen as if every failure tag were
 *   frequent.
 *
 * The policy is the preset's warm start, or `--model DIR` (a model directory,
 * such as a training run's checkpoint: does a trained policy lean on a cue?).
 * Each variant's success is compared with `none` by a paired bootstrap over
 * the tasks (each task's mean over its K rollouts).
 */
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { createBfclBackend } from '@seal/bfcl';
import { createGeneratorRuntime } from '@seal/bfcl-tasks';
import { prepareEmbedded } from '@seal/cli';
import { embeddedEpisode, embeddedPresets } from '@seal/embedded';
import { createOrtPolicy } from '@seal/engine-ort';
import { createEpisode } from '@seal/env';
import {
  evolveSealOverlay,
  sealSettingsForModules,
  type SealInterfaceSettings,
} from '@seal/evolve';
import { formatPoints, pairedBootstrap, runRollouts } from '@seal/rl';
import { SealError, type Task, type ToolDoc } from '@seal/spec';
import { createBfclVerifier } from '@seal/verifier';

const { values } = parseArgs({
  options: {
    preset: { type: 'string', default: 'study' },
    model: { type: 'string' },
    split: { type: 'string', default: 'train' },
    'per-category': { type: 'string', default: '16' },
    samples: { type: 'string', default: '4' },
    seed: { type: 'string', default: '1' },
    variants: { type: 'string', default: 'none,schema,markers,note' },
    cache: { type: 'string', default: '.seal-cache' },
  },
});

const variantSettings = {
  none: sealSettingsForModules({ modules: [] }),
  schema: sealSettingsForModules({ modules: ['schema'] }),
  markers: {
    ...sealSettingsForModules({ modules: ['schema'] }),
    schema: { note: null },
  },
  note: {
    ...sealSettingsForModules({ modules: ['schema'] }),
    schema: { required: false, enum: false },
  },
  err: sealSettingsForModules({
    modules: ['err'],
    protocol: embeddedEpisode.protocol,
  }),
  cap: sealSettingsForModules({ modules: ['cap'] }),
} satisfies Record<string, SealInterfaceSettings>;
type Variant = keyof typeof variantSettings;

const positive = (name: string, text: string): number => {
  const value = Number(text);
  if (!Number.isInteger(value) || value < 1)
    throw new SealError({
      code: 'INVALID_ARGUMENT',
      message: `--${name} must be a positive integer, got ${text}`,
    });
  return value;
};
if (
  values.preset !== 'study' &&
  values.preset !== 'default' &&
  values.preset !== 'smoke'
) {
  throw new SealError({
    code: 'INVALID_ARGUMENT',
    message: `--preset must be study, default or smoke, got ${values.preset}`,
  });
}
if (values.split !== 'train' && values.split !== 'test-id') {
  throw new SealError({
    code: 'INVALID_ARGUMENT',
    message: `--split must be train or test-id, got ${values.split}`,
  });
}
const perCategory = positive('per-category', values['per-category']);
const samples = positive('samples', values.samples);
const seed = Number(values.seed);
if (!Number.isInteger(seed))
  throw new SealError({
    code: 'INVALID_ARGUMENT',
    message: `--seed must be an integer, got ${values.seed}`,
  });
const variants = values.variants.split(',') as Variant[];
const unknown = variants.filter((variant) => !(variant in variantSettings));
if (unknown.length > 0) {
  throw new SealError({
    code: 'INVALID_ARGUMENT',
    message: `--variants: unknown variant ${unknown.join(', ')} (known: ${Object.keys(variantSettings).join(', ')})`,
  });
}
if (variants[0] !== 'none') variants.unshift('none');

const preset = embeddedPresets[values.preset];
const assets = await prepareEmbedded({
  preset,
  cacheDirectory: resolve(values.cache),
  onProgress: (progress) => {
    if (progress.type === 'phase') console.error(`  ${progress.phase}…`);
  },
});
const runtime = createGeneratorRuntime();
const backend = createBfclBackend({ runtime });
const verifier = createBfclVerifier({ runtime });

// The first tasks of each category, in the split's own order (deterministic).
const pool: readonly Task[] =
  values.split === 'train'
    ? assets.trainTasks
    : (assets.evalSets.find((set) => set.name === 'test-id')?.tasks ?? []);
const categories = [...new Set(pool.map((task) => task.category))].sort();
const tasks = categories.flatMap((category) =>
  pool.filter((task) => task.category === category).slice(0, perCategory),
);
// The overlay covers every training tool, as in a training run.
const tools: ToolDoc[] = [
  ...new Map(
    assets.trainTasks
      .flatMap((task) => task.tools)
      .map((doc) => [doc.name, doc] as const),
  ).values(),
];
const statistics = Object.fromEntries(
  [
    'spurious_tool_call',
    'empty_turn_model_response',
    'state_mismatch',
    'response_mismatch',
  ].map((tag) => [tag, { count: 20, rewardSum: 0 }]),
);

const modelDirectory =
  values.model === undefined
    ? assets.warmStartDirectory
    : resolve(values.model);
const policy = await createOrtPolicy({ model: { directory: modelDirectory } });

type Outcome = {
  success: Map<string, number>;
  tags: Map<string, Map<string, number>>;
  episodes: Map<string, number>;
};
const outcomes = new Map<Variant, Outcome>();
const started = Date.now();
try {
  for (const variant of variants) {
    const { overlay } = evolveSealOverlay({
      tools,
      statistics,
      settings: variantSettings[variant],
    });
    const variantStarted = Date.now();
    const rollouts = await runRollouts({
      policy,
      tasks,
      groupSize: samples,
      sampling: { maxTokens: preset.rl.maxTokens, temperature: 1, seed },
      createEpisode: ({ task, index }) =>
        createEpisode({
          task,
          backend,
          ...embeddedEpisode,
          mode: 'train',
          overlay,
          limits: { maxModelCalls: preset.rl.maxModelCalls },
          episodeId: `cues-${variant}:${task.id}:${index}`,
        }),
    });
    const outcome: Outcome = {
      success: new Map(),
      tags: new Map(),
      episodes: new Map(),
    };
    for (const rollout of rollouts) {
      const result = verifier.verifySync({
        task: rollout.task,
        record: rollout.record,
      });
      const id = rollout.task.id;
      outcome.success.set(
        id,
        (outcome.success.get(id) ?? 0) +
          (result.official.valid ? 1 / samples : 0),
      );
      const category = rollout.task.category;
      outcome.episodes.set(category, (outcome.episodes.get(category) ?? 0) + 1);
      const counts = outcome.tags.get(category) ?? new Map<string, number>();
      for (const turn of result.turns)
        counts.set(turn.tag, (counts.get(turn.tag) ?? 0) + 1);
      outcome.tags.set(category, counts);
    }
    outcomes.set(variant, outcome);
    console.error(
      `  ${variant}: ${rollouts.length} episodes in ${((Date.now() - variantStarted) / 1000).toFixed(0)} s`,
    );
  }
} finally {
  await policy.close();
}

const none = outcomes.get('none')!;
const successOf = (
  outcome: Outcome,
  category?: string,
): { before: number[]; after: number[] } => {
  const ids = tasks
    .filter((task) => category === undefined || task.category === category)
    .map((task) => task.id);
  return {
    before: ids.map((id) => none.success.get(id) ?? 0),
    after: ids.map((id) => outcome.success.get(id) ?? 0),
  };
};
const percent = (values: readonly number[]): string =>
  `${((100 * values.reduce((a, b) => a + b, 0)) / Math.max(1, values.length)).toFixed(1)}%`;
const short = (category: string): string => category.replace('multi_turn_', '');

const lines: string[] = [];
lines.push(
  `bench cues: preset ${preset.name}, policy ${values.model ?? 'the warm start'}, ${tasks.length} ${values.split} tasks (${perCategory} per category) × ${samples} rollouts at T = 1, seed ${seed}; ${((Date.now() - started) / 60000).toFixed(1)} min`,
  '',
  '**Success on the training interface** — share of rollouts that pass; variant − none in points with a paired bootstrap 95% interval over the tasks',
  '',
  `| variant | all | ${categories.map(short).join(' | ')} |`,
  `| --- | ---: |${categories.map(() => ' ---: |').join('')}`,
);
for (const [variant, outcome] of outcomes) {
  const cell = (category?: string): string => {
    const { before, after } = successOf(outcome, category);
    return variant === 'none'
      ? percent(after)
      : `${percent(after)}, ${formatPoints(pairedBootstrap({ before, after, seed: 17 }))}`;
  };
  lines.push(
    `| ${variant} | ${cell()} | ${categories.map((category) => cell(category)).join(' | ')} |`,
  );
}
for (const category of categories) {
  const tags = [
    ...new Set(
      [...outcomes.values()].flatMap((outcome) => [
        ...(outcome.tags.get(category)?.keys() ?? []),
      ]),
    ),
  ]
    .filter((tag) => tag !== 'pass')
    .sort();
  if (tags.length === 0) {
    lines.push(
      '',
      `**Tags per episode, ${short(category)}**: no failure tags in any variant`,
    );
    continue;
  }
  lines.push(
    '',
    `**Tags per episode, ${short(category)}**`,
    '',
    `| variant | ${tags.join(' | ')} |`,
    `| --- |${tags.map(() => ' ---: |').join('')}`,
  );
  for (const [variant, outcome] of outcomes) {
    const episodes = outcome.episodes.get(category) ?? 0;
    lines.push(
      `| ${variant} | ${tags.map((tag) => ((outcome.tags.get(category)?.get(tag) ?? 0) / Math.max(1, episodes)).toFixed(2)).join(' | ')} |`,
    );
  }
}
console.log(lines.join('\n'));

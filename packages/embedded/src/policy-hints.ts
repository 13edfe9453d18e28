import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { basename, dirname, join, resolve } from 'node:path';
import {
  embeddedPresets,
  embeddedTasks,
  type EmbeddedPreset,
} from './embedded-preset';
import { protocolNames, type ProtocolName } from '@seal/env';
import {
  parseJsonText,
  promptModeSchema,
  runConfigSchema,
  runDirectoryLayout,
  safeParseJsonLines,
  safeParseWithSchema,
  warmStartManifestFile,
  warmStartManifestSchema,
  type PromptMode,
} from '@seal/spec';
import * as z from 'zod';

/**
 * What a model directory says about how it was trained, so `seal eval` and
 * `seal serve-policy` default to the same protocol, prompt mode, reply
 * length, call budget and task suite. Every field is optional.
 */
export type PolicyHints = {
  protocol?: ProtocolName;
  promptMode?: PromptMode;
  /** Tokens per reply the model was trained and evaluated with. */
  maxTokens?: number;
  /** Model calls per episode. */
  maxModelCalls?: number;
  /** The embedded preset whose task suite the model belongs to. */
  preset?: { name: 'default' | 'smoke'; seed: number };
};

/** The hints as `seal serve-policy` lists them in `/v1/models` (`seal.evalDefaults`). */
export const policyHintsSchema = z.object({
  protocol: z.enum(protocolNames).nullish(),
  promptMode: promptModeSchema.nullish(),
  maxTokens: z.number().int().positive().nullish(),
  maxModelCalls: z.number().int().positive().nullish(),
  preset: z
    .object({ name: z.enum(['default', 'smoke']), seed: z.number().int() })
    .nullish(),
});

/** The fields of a Hugging Face model's `config.json` that name an embedded preset's shape. */
const modelConfigSchema = z.object({
  vocab_size: z.number().nullish(),
  hidden_size: z.number().nullish(),
  intermediate_size: z.number().nullish(),
  num_hidden_layers: z.number().nullish(),
  num_attention_heads: z.number().nullish(),
  num_key_value_heads: z.number().nullish(),
});

async function readJson<T>(
  path: string,
  schema: z.ZodType<T>,
): Promise<T | undefined> {
  if (!existsSync(path)) return undefined;
  try {
    const parsed = safeParseWithSchema({
      schema,
      value: parseJsonText({
        text: await readFile(path, 'utf8'),
        source: path,
      }),
      source: path,
    });
    return parsed.success ? parsed.value : undefined;
  } catch {
    return undefined;
  }
}

function presetNamed(name: string): 'default' | 'smoke' | undefined {
  return name === 'default' || name === 'smoke' ? name : undefined;
}

/** The embedded preset whose model has these dimensions. */
function presetByShape(
  config: z.infer<typeof modelConfigSchema>,
): 'default' | 'smoke' | undefined {
  const matches = (preset: EmbeddedPreset): boolean =>
    config.vocab_size === preset.model.vocabSize &&
    config.hidden_size === preset.model.hiddenSize &&
    config.intermediate_size === preset.model.intermediateSize &&
    config.num_hidden_layers === preset.model.numLayers &&
    config.num_attention_heads === preset.model.numHeads &&
    config.num_key_value_heads === preset.model.numKeyValueHeads;
  return (['default', 'smoke'] as const).find((name) =>
    matches(embeddedPresets[name]),
  );
}

/**
 * Reads the hints of a model directory: an embedded warm start
 * (`warmstart.json`, written by `seal train`), or a run checkpoint
 * (`runs/<run>/checkpoints/step-N`, whose run's `config.json` holds the
 * episode and sampling settings; the preset is recognised by the model's
 * shape, its suite's seed by the run's `tasks.jsonl`). An unknown directory
 * gives no hints.
 */
export async function readPolicyHints(directory: string): Promise<PolicyHints> {
  const dir = resolve(directory);
  const warmStart = await readJson(
    join(dir, warmStartManifestFile),
    warmStartManifestSchema,
  );
  if (warmStart !== undefined) {
    const name = presetNamed(warmStart.preset.name);
    const rl = warmStart.preset.rl;
    return {
      protocol: 'bfcl-python',
      promptMode: 'compact',
      ...(rl
        ? { maxTokens: rl.maxTokens, maxModelCalls: rl.maxModelCalls }
        : {}),
      ...(name ? { preset: { name, seed: warmStart.preset.seed } } : {}),
    };
  }
  if (basename(dirname(dir)) !== runDirectoryLayout.checkpoints) return {};
  const run = await readJson(
    join(dir, '..', '..', runDirectoryLayout.config),
    runConfigSchema,
  );
  if (run === undefined) return {};
  // The checkpoint's own config.json is the model's (Hugging Face's), not the run's.
  const shape = await readJson(join(dir, 'config.json'), modelConfigSchema);
  const name = shape === undefined ? undefined : presetByShape(shape);
  return {
    ...(run.episode
      ? {
          protocol: run.episode.protocol,
          promptMode: run.episode.promptMode,
          ...(run.episode.maxModelCalls
            ? { maxModelCalls: run.episode.maxModelCalls }
            : {}),
        }
      : {}),
    ...(run.sampling ? { maxTokens: run.sampling.maxTokens } : {}),
    ...(name
      ? {
          preset: {
            name,
            seed: await runSuiteSeed({
              runDirectory: join(dir, '..', '..'),
              name,
              runSeed: run.seed ?? undefined,
            }),
          },
        }
      : {}),
  };
}

/**
 * The seed of the embedded suite a run trained and evaluated on. A run's
 * `seed` is its RL seed: `seal train --seed` leaves the tasks the preset's
 * (since 2026-11-24), while earlier runs generated their tasks from it. The
 * run's `tasks.jsonl` settles which: the seed whose suite holds the run's
 * first recorded test-id task unchanged. Without that file, the preset's.
 */
async function runSuiteSeed({
  runDirectory,
  name,
  runSeed,
}: {
  runDirectory: string;
  name: 'default' | 'smoke';
  runSeed: number | undefined;
}): Promise<number> {
  const presetSeed = embeddedPresets[name].seed;
  if (runSeed === undefined || runSeed === presetSeed) return presetSeed;
  const recorded = await firstRecordedTestTask(
    join(runDirectory, runDirectoryLayout.tasks),
  );
  if (recorded === undefined) return presetSeed;
  for (const seed of [presetSeed, runSeed]) {
    const generated = embeddedTasks({
      ...embeddedPresets[name],
      seed,
    }).testId.find((task) => task.id === recorded.id);
    if (
      generated !== undefined &&
      JSON.stringify(generated) === recorded.line
    ) {
      return seed;
    }
  }
  return presetSeed;
}

/** The first test-id task of a run's `tasks.jsonl`, re-serialised, or none. */
async function firstRecordedTestTask(
  path: string,
): Promise<{ id: string; line: string } | undefined> {
  if (!existsSync(path)) return undefined;
  const isTestIdTask = (value: unknown): value is { id: string } =>
    typeof value === 'object' &&
    value !== null &&
    'id' in value &&
    typeof value.id === 'string' &&
    value.id.startsWith('gen_test-id_');
  const [task] = safeParseJsonLines({
    text: await readFile(path, 'utf8'),
    source: path,
    schema: z.custom<{ id: string }>(isTestIdTask),
    accept: isTestIdTask,
  }).values;
  return task === undefined
    ? undefined
    : { id: task.id, line: JSON.stringify(task) };
}

/** Hints from `/v1/models` (`seal.evalDefaults`), or none when absent or malformed. */
export function parsePolicyHints(value: unknown): PolicyHints {
  const parsed = policyHintsSchema.safeParse(value);
  if (!parsed.success) return {};
  const v = parsed.data;
  return {
    ...(v.protocol ? { protocol: v.protocol } : {}),
    ...(v.promptMode ? { promptMode: v.promptMode } : {}),
    ...(v.maxTokens ? { maxTokens: v.maxTokens } : {}),
    ...(v.maxModelCalls ? { maxModelCalls: v.maxModelCalls } : {}),
    ...(v.preset ? { preset: v.preset } : {}),
  };
}

import { loadTokenizer } from '@seal/engine-ort';
import {
  createOpenAiSampler,
  createSampledPolicy,
  type SampledPolicy,
} from '@seal/openai';
import {
  SealError,
  toSealError,
  type PolicyV1,
  type RunConfigInput,
} from '@seal/spec';
import {
  createTinkerClient,
  createTinkerPolicy,
  type TinkerPolicy,
} from '@seal/tinker';
import * as z from 'zod';

/** Where `seal train` keeps its policy: in process, or in a Tinker service. */
export const trainerKinds = ['local', 'tinker'] as const;

/** The flags of `seal train` that choose the trainer. */
export const trainerFlagOptions = {
  trainer: { type: 'string' },
  'trainer-url': { type: 'string' },
  'base-model': { type: 'string' },
  'lora-rank': { type: 'string' },
  'sampler-url': { type: 'string' },
  'sampler-model': { type: 'string' },
  'sampler-sync': { type: 'string' },
  'tis-cap': { type: 'string' },
} as const;

/** How `--sampler-url` gets the trainer's weights. */
export const samplerSyncKinds = ['disk', 'none'] as const;

/** Their schema (merged into `seal train`'s). */
export const trainerFlagSchemas = {
  trainer: z
    .enum(trainerKinds, {
      error: (issue) =>
        `unknown trainer '${String(issue.input)}' (valid: ${trainerKinds.join(', ')})`,
    })
    .optional(),
  'trainer-url': z.url({ protocol: /^https?$/ }).optional(),
  'base-model': z.string().min(1).optional(),
  'lora-rank': z.coerce.number().int().positive().max(4096).optional(),
  'sampler-url': z.url({ protocol: /^https?$/ }).optional(),
  'sampler-model': z.string().min(1).optional(),
  'sampler-sync': z
    .enum(samplerSyncKinds, {
      error: (issue) =>
        `unknown sampler sync '${String(issue.input)}' (valid: ${samplerSyncKinds.join(', ')})`,
    })
    .optional(),
  'tis-cap': z.coerce.number().min(1).max(1000).optional(),
};

/** The trainer flags, parsed. */
export type TrainerFlags = {
  trainer?: (typeof trainerKinds)[number] | undefined;
  'trainer-url'?: string | undefined;
  'base-model'?: string | undefined;
  'lora-rank'?: number | undefined;
  'sampler-url'?: string | undefined;
  'sampler-model'?: string | undefined;
  'sampler-sync'?: (typeof samplerSyncKinds)[number] | undefined;
  'tis-cap'?: number | undefined;
};

/** The truncated importance sampling cap `--sampler-url` uses by default (the TIS paper's and verl's). */
export const defaultTisCap = 2;

export const trainerFlagHelp = `  --trainer local|tinker
                   local (default): the policy trains in this process.
                   tinker: the policy's weights live in a Tinker-compatible
                   service at --trainer-url (seal serve-trainer, SkyRL's
                   Tinker API, hosted Tinker; the API key from
                   TINKER_API_KEY); the loop, rewards and advantages stay
                   here. Against seal serve-trainer the run reproduces the
                   local one (SEAL's exact extension)
  --trainer-url URL
                   the Tinker service (with --trainer tinker), e.g.
                   http://127.0.0.1:8088 after seal serve-trainer --preset P
  --base-model NAME
                   the service's base_model (default: seal serve-trainer's
                   name for the same model, seal-<preset> or the --model
                   directory's name)
  --lora-rank R    train a LoRA adapter of rank R in the service (seal
                   serve-trainer refuses it: full fine-tuning only)
  --sampler-url URL
                   take every generation (rollouts and evaluation) from an
                   OpenAI-compatible server that returns token ids and
                   log-probabilities (vLLM 0.10.2+ with --logprobs-mode
                   processed_logprobs, seal serve-policy): prompts go as
                   token ids, the loop trains on exactly the returned
                   tokens, and truncated importance sampling corrects the
                   sampler/trainer mismatch (--tis-cap)
  --sampler-model NAME
                   the sampler's model name (default: its first listed)
  --sampler-sync disk|none
                   disk (default): before each step's rollouts the trainer
                   saves its weights into <run>/sampler-weights and the
                   sampler loads them (POST /update_weights_from_disk, as
                   SGLang and seal serve-policy --weight-updates; the
                   server must read this machine's disk). none: the
                   sampler keeps its own weights (sync them yourself)
  --tis-cap C      each sampled token's loss weight is multiplied by the
                   trainer-to-sampler probability ratio truncated at C
                   (default 2, as the TIS paper and verl)`;

/** Checks the trainer flags' combinations before anything loads. */
export function checkTrainerFlags(flags: TrainerFlags): void {
  checkSamplerFlags(flags);
  if ((flags.trainer ?? 'local') === 'tinker') {
    if (flags['trainer-url'] === undefined) {
      throw new SealError({
        code: 'INVALID_ARGUMENT',
        message:
          '--trainer tinker needs --trainer-url URL (for example http://127.0.0.1:8088 after seal serve-trainer --preset smoke)',
      });
    }
    return;
  }
  const stray = (['trainer-url', 'base-model', 'lora-rank'] as const).filter(
    (name) => flags[name] !== undefined,
  );
  if (stray.length > 0) {
    throw new SealError({
      code: 'INVALID_ARGUMENT',
      message: `${stray.map((name) => `--${name}`).join(', ')} ${stray.length === 1 ? 'needs' : 'need'} --trainer tinker (the local trainer keeps the policy in this process)`,
    });
  }
}

function checkSamplerFlags(flags: TrainerFlags): void {
  if (flags['sampler-url'] === undefined) {
    const stray = (
      ['sampler-model', 'sampler-sync', 'tis-cap'] as const
    ).filter((name) => flags[name] !== undefined);
    if (stray.length > 0) {
      throw new SealError({
        code: 'INVALID_ARGUMENT',
        message: `${stray.map((name) => `--${name}`).join(', ')} ${stray.length === 1 ? 'needs' : 'need'} --sampler-url URL`,
      });
    }
    return;
  }
  if (
    (flags['sampler-sync'] ?? 'disk') === 'disk' &&
    (flags.trainer ?? 'local') === 'tinker'
  ) {
    throw new SealError({
      code: 'INVALID_ARGUMENT',
      message:
        '--sampler-sync disk needs --trainer local (a Tinker service keeps its weights; pass --sampler-sync none and sync the sampler yourself)',
    });
  }
}

/**
 * With `--sampler-url`: the run's configuration with truncated importance
 * sampling on (`ppo.truncatedImportanceSamplingCap`, default
 * {@link defaultTisCap}); unchanged otherwise.
 */
export function withSamplerCorrection<TConfig extends RunConfigInput>(
  flags: TrainerFlags,
  config: TConfig,
): TConfig {
  if (flags['sampler-url'] === undefined) return config;
  return {
    ...config,
    ppo: {
      ...config.ppo,
      truncatedImportanceSamplingCap: flags['tis-cap'] ?? defaultTisCap,
    },
  };
}

/**
 * With `--trainer tinker`: one short health check of the service, so an
 * unreachable one is one clear error before anything loads or trains (the
 * training client itself retries for a minute or more).
 */
export async function probeTrainerService(flags: TrainerFlags): Promise<void> {
  if ((flags.trainer ?? 'local') !== 'tinker') return;
  const baseUrl = flags['trainer-url']!;
  try {
    await createTinkerClient({ baseUrl, maxRetries: 1 }).health();
  } catch (error) {
    throw new SealError({
      code: 'NETWORK_ERROR',
      message: `the Tinker service at ${baseUrl} is unreachable (${toSealError(error).message}); start one, e.g. seal serve-trainer --preset smoke --port 8088`,
      cause: error,
      details: { baseUrl },
    });
  }
}

/**
 * The loop's policy and its reference: engine policies in process (`local`),
 * or, with `--trainer tinker`, two models in the Tinker service (the
 * reference is never trained), tokenised here with the model directory's
 * tokenizer. The service is checked first: an unreachable one is one clear
 * error before training starts. With `--sampler-url` the policy generates
 * through the sampler (the reference stays the trainer's).
 */
export async function createTrainerPolicies({
  flags,
  directory,
  defaultBaseModel,
  withReference,
  createLocal,
  samplerSyncDirectory,
}: {
  flags: TrainerFlags;
  /** The model directory (its tokenizer is the service model's). */
  directory: string;
  /** `--base-model`'s default. */
  defaultBaseModel: string;
  /** Whether the loop needs a reference policy. */
  withReference: boolean;
  /** An in-process policy of the model. */
  createLocal: () => Promise<PolicyV1>;
  /** Where `--sampler-sync disk` writes the trainer's weights for the sampler. */
  samplerSyncDirectory?: string;
}): Promise<{ policy: PolicyV1; referencePolicy: PolicyV1 | undefined }> {
  const policies = await createTrainers({
    flags,
    directory,
    defaultBaseModel,
    withReference,
    createLocal,
  });
  if (flags['sampler-url'] === undefined) return policies;
  try {
    return {
      policy: await createSamplerPolicy({
        flags,
        trainer: policies.policy,
        syncDirectory: samplerSyncDirectory,
      }),
      referencePolicy: policies.referencePolicy,
    };
  } catch (error) {
    await Promise.all([
      policies.policy.close(),
      policies.referencePolicy?.close(),
    ]);
    throw error;
  }
}

/**
 * With `--sampler-url`: the trainer behind an OpenAI-compatible sampler
 * (see `createSampledPolicy`), after one check that the server answers
 * with token ids and log-probabilities (a server that does not is one clear
 * error before training starts).
 */
async function createSamplerPolicy({
  flags,
  trainer,
  syncDirectory,
}: {
  flags: TrainerFlags;
  trainer: PolicyV1;
  syncDirectory: string | undefined;
}): Promise<SampledPolicy> {
  const baseUrl = flags['sampler-url']!;
  const sampler = createOpenAiSampler({
    baseUrl,
    ...(flags['sampler-model'] === undefined
      ? {}
      : { model: flags['sampler-model'] }),
    ...(process.env.OPENAI_API_KEY === undefined
      ? {}
      : { apiKey: process.env.OPENAI_API_KEY }),
  });
  try {
    // One token of the stop token's context: answers with token ids and
    // log-probabilities, or one error naming what is missing.
    await sampler.sample({
      prompt: [trainer.tokenizer.stopTokenIds[0] ?? 0],
      maxTokens: 1,
      temperature: 1,
      seed: 0,
    });
  } catch (error) {
    const sealError = toSealError(error);
    throw new SealError({
      code: sealError.code,
      message: `--sampler-url: ${sealError.message}`,
      cause: error,
      details: { samplerUrl: baseUrl },
    });
  }
  const sync = flags['sampler-sync'] ?? 'disk';
  return createSampledPolicy({
    trainer,
    sampler,
    sync,
    ...(syncDirectory === undefined ? {} : { syncDirectory }),
  });
}

async function createTrainers({
  flags,
  directory,
  defaultBaseModel,
  withReference,
  createLocal,
}: {
  flags: TrainerFlags;
  directory: string;
  defaultBaseModel: string;
  withReference: boolean;
  createLocal: () => Promise<PolicyV1>;
}): Promise<{ policy: PolicyV1; referencePolicy: PolicyV1 | undefined }> {
  if ((flags.trainer ?? 'local') === 'local') {
    const policy = await createLocal();
    try {
      return {
        policy,
        referencePolicy: withReference ? await createLocal() : undefined,
      };
    } catch (error) {
      await policy.close();
      throw error;
    }
  }
  const baseUrl = flags['trainer-url']!;
  await probeTrainerService(flags);
  const client = createTinkerClient({ baseUrl });
  const tokenizer = await loadTokenizer(directory);
  const baseModel = flags['base-model'] ?? defaultBaseModel;
  const served = (await client.capabilities()).supported_models
    .map((model) => model.model_name)
    .filter((name) => typeof name === 'string');
  if (!served.includes(baseModel)) {
    throw new SealError({
      code: 'INVALID_ARGUMENT',
      message: `--trainer tinker: the service at ${baseUrl} serves ${served.map((name) => `'${name}'`).join(', ') || 'no model it names'}, not '${baseModel}'${flags['base-model'] === undefined ? ` (this run's model; start seal serve-trainer with the same --preset or --model)` : ''}; --base-model NAME picks a served model with the same tokenizer`,
      details: { baseUrl, baseModel, served },
    });
  }
  const create = () =>
    createTinkerPolicy({
      client,
      baseModel,
      tokenizer,
      ...(flags['lora-rank'] === undefined
        ? {}
        : { lora: { rank: flags['lora-rank'] } }),
      tags: ['seal', 'seal-train'],
    });
  let policy: TinkerPolicy;
  try {
    policy = await create();
  } catch (error) {
    const sealError = toSealError(error);
    throw new SealError({
      code: sealError.code,
      message: `--trainer tinker: ${sealError.message}`,
      cause: error,
      details: { baseUrl, baseModel },
    });
  }
  try {
    return {
      policy,
      referencePolicy: withReference ? await create() : undefined,
    };
  } catch (error) {
    await policy.close();
    throw error;
  }
}

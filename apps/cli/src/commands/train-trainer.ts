import { loadTokenizer } from '@seal/engine-ort';
import { SealError, toSealError, type PolicyV1 } from '@seal/spec';
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
} as const;

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
};

/** The trainer flags, parsed. */
export type TrainerFlags = {
  trainer?: (typeof trainerKinds)[number] | undefined;
  'trainer-url'?: string | undefined;
  'base-model'?: string | undefined;
  'lora-rank'?: number | undefined;
};

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
                   serve-trainer refuses it: full fine-tuning only)`;

/** Checks the trainer flags' combinations before anything loads. */
export function checkTrainerFlags(flags: TrainerFlags): void {
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
 * error before training starts.
 */
export async function createTrainerPolicies({
  flags,
  directory,
  defaultBaseModel,
  withReference,
  createLocal,
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

import { createHash } from 'node:crypto';
import { createReadStream, existsSync, statSync } from 'node:fs';
import { basename, join, resolve } from 'node:path';
import {
  createOrtPolicy,
  type DeviceRequest,
  type Precision,
} from '@seal/engine-ort';
import { protocolNames, type PromptMode, type ProtocolName } from '@seal/env';
import {
  createInProcessChatModel,
  createOpenAiChatModel,
  createPolicyChatModel,
  listOpenAiModels,
} from '@seal/openai';
import {
  parsePolicyHints,
  readPolicyHints,
  type PolicyHints,
} from '@seal/embedded';
import { SealError, type ChatModelV1, type PolicyV1 } from '@seal/spec';
import { precisionSetting, resolveDevice } from '../device-flag';
import type { Output } from '../ui/output';

/** The policy of one evaluation: a chat model, its name and identity, and what to close. */
export type PolicySource = {
  model: ChatModelV1;
  /** The model name in the score files. */
  name: string;
  /** The name in the default results directory. */
  label: string;
  /** What the results file's config hash covers of the policy. */
  identity: Record<string, unknown>;
  hints: PolicyHints;
  close: () => Promise<void>;
};

/** The flags of `seal eval` that choose and open its policy. */
export type PolicySourceFlags = {
  /** A local model directory, or with `endpoint` a served model name. */
  model?: string | undefined;
  endpoint?: string | undefined;
  'api-key'?: string | undefined;
  name?: string | undefined;
  'max-batch'?: number | undefined;
  retries?: number | undefined;
  timeout?: number | undefined;
  device?: DeviceRequest | undefined;
  precision?: Precision | undefined;
};

/** What {@link resolvePolicyHints} found: the hints, and for an endpoint its model and key. */
export type ResolvedPolicy = {
  hints: PolicyHints;
  endpointModel?: string;
  apiKey?: string;
};

/**
 * Reads the hints of the policy before anything heavy is loaded: a local
 * model directory's training-run defaults, or the model card an endpoint's
 * `/v1/models` lists (its first model when `--model` names none).
 */
export async function resolvePolicyHints(
  flags: PolicySourceFlags,
): Promise<ResolvedPolicy> {
  if (flags.endpoint === undefined) {
    const directory = resolve(flags.model!);
    if (!existsSync(directory) || !statSync(directory).isDirectory()) {
      throw new SealError({
        code: 'FILE_NOT_FOUND',
        message: `model directory not found: ${directory} (for an endpoint's model name, pass --endpoint URL too)`,
        details: { path: directory },
      });
    }
    return { hints: await readPolicyHints(directory) };
  }
  const apiKey = flags['api-key'] ?? process.env['OPENAI_API_KEY'];
  let listed: Awaited<ReturnType<typeof listOpenAiModels>> = [];
  try {
    listed = await listOpenAiModels({
      baseUrl: flags.endpoint,
      ...(apiKey ? { apiKey } : {}),
    });
  } catch (error) {
    // Some endpoints do not list models; a named model needs no list.
    if (flags.model === undefined) throw error;
  }
  const name = flags.model ?? listed[0]?.id;
  if (name === undefined) {
    throw new SealError({
      code: 'NOT_FOUND',
      message: `${flags.endpoint} lists no model; pass --model NAME`,
    });
  }
  const card = listed.find((model) => model.id === name);
  const hints: PolicyHints = {
    ...parsePolicyHints(card?.evalDefaults),
    ...(card?.protocol &&
    (protocolNames as readonly string[]).includes(card.protocol)
      ? { protocol: card.protocol as ProtocolName }
      : {}),
    ...(card?.promptMode ? { promptMode: card.promptMode } : {}),
  };
  return { hints, endpointModel: name, ...(apiKey ? { apiKey } : {}) };
}

/**
 * Opens the policy {@link resolvePolicyHints} found: a local model run in
 * process behind the OpenAI wire format, or a client of the endpoint that
 * retries and reports its retries on stderr.
 */
export async function openPolicySource({
  flags,
  resolved,
  output,
  protocol,
  promptMode,
}: {
  flags: PolicySourceFlags;
  resolved: ResolvedPolicy;
  output: Output;
  protocol: ProtocolName;
  promptMode: PromptMode;
}): Promise<PolicySource> {
  const { hints, endpointModel, apiKey } = resolved;
  if (flags.endpoint === undefined) {
    return {
      ...(await localSource({
        flags,
        output,
        directory: resolve(flags.model!),
        protocol,
        promptMode,
      })),
      hints,
    };
  }
  return {
    model: createOpenAiChatModel({
      baseUrl: flags.endpoint,
      model: endpointModel!,
      ...(apiKey ? { apiKey } : {}),
      ...(flags.retries === undefined ? {} : { maxRetries: flags.retries }),
      ...(flags.timeout === undefined
        ? {}
        : { timeoutMs: flags.timeout * 1000 }),
      onRetry: ({ attempt, delayMs, error }) => {
        if (!output.json) {
          process.stderr.write(
            `\nseal eval: ${error.message}; retry ${attempt} in ${(delayMs / 1000).toFixed(1)} s\n`,
          );
        }
      },
    }),
    name: flags.name ?? endpointModel!,
    label: flags.name ?? endpointModel!,
    identity: {
      kind: 'endpoint',
      url: flags.endpoint,
      model: endpointModel!,
    },
    hints,
    close: () => Promise.resolve(),
  };
}

async function localSource({
  flags,
  output,
  directory,
  protocol,
  promptMode,
}: {
  flags: PolicySourceFlags;
  output: Output;
  directory: string;
  protocol: ProtocolName;
  promptMode: PromptMode;
}): Promise<Omit<PolicySource, 'hints'>> {
  const weights = join(directory, 'model.safetensors');
  const identity = {
    kind: 'local',
    weights: existsSync(weights) ? await hashFile(weights) : directory,
  };
  const executionProvider = await resolveDevice({ flag: flags.device, output });
  const policy: PolicyV1 = await createOrtPolicy({
    model: { directory },
    executionProvider,
    ...precisionSetting({
      flag: flags.precision,
      device: executionProvider,
      output,
    }),
  });
  const name = flags.name ?? basename(directory);
  const chat = createPolicyChatModel({
    policy,
    protocol,
    promptMode,
    maxBatch: flags['max-batch'] ?? 8,
    modelId: name,
  });
  return {
    model: createInProcessChatModel({ model: chat, modelName: name }),
    name,
    label: name,
    identity,
    close: () => Promise.resolve(policy.close()),
  };
}

/** The first 16 hex digits of a file's SHA-256. */
async function hashFile(path: string): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(path))
    hash.update(chunk as Buffer);
  return hash.digest('hex').slice(0, 16);
}

import { existsSync, statSync } from 'node:fs';
import { basename, resolve } from 'node:path';
import { readPolicyHints } from '@seal/embedded';
import { createOrtPolicy } from '@seal/engine-ort';
import { protocolNames } from '@seal/env';
import {
  createPolicyChatModel,
  startOpenAiServer,
  type OpenAiServer,
} from '@seal/openai';
import { SealError, promptModeSchema, toSealError } from '@seal/spec';
import * as z from 'zod';
import {
  deviceFlagHelp,
  deviceFlagOption,
  deviceFlagSchema,
  precisionFlagHelp,
  precisionFlagOption,
  precisionFlagSchema,
  precisionSetting,
  resolveDevice,
} from '../device-flag';
import { parseFlags } from '../args';
import type { CommandContext } from '../command';
import { exitCodes } from '../exit-codes';
import { waitForStopSignal } from '../stop-signal';

const whole = (min: number, max = Number.MAX_SAFE_INTEGER) =>
  z
    .string()
    .regex(/^\d+$/, 'must be a whole number')
    .transform(Number)
    .refine(
      (value) => value >= min && value <= max,
      `must be between ${min} and ${max}`,
    )
    .optional();

const flagsSchema = z.object({
  model: z.string().min(1).optional(),
  port: whole(0, 65_535),
  host: z.string().min(1).optional(),
  name: z.string().min(1).optional(),
  protocol: z.enum(protocolNames).optional(),
  'prompt-mode': promptModeSchema.optional(),
  'max-batch': whole(1),
  'max-queue': whole(1),
  'max-body': whole(1024),
  json: z.boolean().optional(),
  'weight-updates': z.boolean().optional(),
  device: deviceFlagSchema,
  precision: precisionFlagSchema,
});

export const servePolicyHelp = `usage: seal serve-policy --model DIR [--port 8000] [--host 127.0.0.1] [--name NAME]
                         [--protocol P] [--prompt-mode M] [--max-batch N]
                         [--max-queue N] [--max-body BYTES] [--json]
                         [--weight-updates] [--device cpu|webgpu|cuda|auto]

Serves a local model (a checkpoint or warm start saved by seal train) behind
an OpenAI-compatible API: POST /v1/chat/completions, POST /v1/completions,
GET /v1/models, GET /health. Requests with \`tools\` get \`tool_calls\` back: the tools are rendered
into the system prompt with the model's tool-call protocol and its reply is
parsed with it (assistant tool calls and tool results in later requests are
rendered back the same way). temperature, top_p, max_tokens, seed and stop
are honoured; temperature 0 is greedy. Greedy requests that arrive while the
model is busy are decoded in one batch. Malformed bodies get 400 with an
OpenAI error body, bodies over --max-body get 413.

POST /v1/completions answers as vLLM does for RL rollouts (seal train
--sampler-url): prompts as token ids (or text), \`return_token_ids\` puts
\`prompt_token_ids\` and \`token_ids\` in each choice, and \`logprobs\` gives
each sampled token's log-probability under the distribution it was drawn
from (after temperature, top-k and top-p: vLLM's processed_logprobs).

  --model DIR       the model directory (config.json, model.safetensors, tokenizer files)
  --port N          port (default 8000; 0 picks a free one)
  --host H          interface (default 127.0.0.1; 0.0.0.0 exposes it)
  --name NAME       the model name clients send (default: the directory's name)
  --protocol P      the model's tool-call protocol (default: the training run's,
                    else bfcl-python)
  --prompt-mode M   how tools are rendered: compact or full (default: the
                    training run's, else full, BFCL's prompt)
  --max-batch N     greedy requests decoded together (default 8; 1: none)
  --max-queue N     waiting requests at most; more get 503 (default 1024)
  --max-body BYTES  largest request body (default 4194304)
  --json            print events as JSON Lines
  --weight-updates  also serve POST /update_weights_from_disk ({model_path}, as
                    SGLang): loads a checkpoint directory the client names, so
                    seal train --sampler-url samples the trainer's weights.
                    Off by default: it reads any path this process can
${deviceFlagHelp}
${precisionFlagHelp}

/v1/models lists the model with a \`seal\` block (protocol, prompt mode,
context length, and the evaluation defaults of its training run), which
seal eval --endpoint reads, so it evaluates the served model exactly as
seal eval --model evaluates the directory.

Exit codes: 0 stopped by a signal, 2 bad flags or port in use, 3 bad model.`;

/** A started `seal serve-policy`: the server and what stops it. */
export type ServePolicyHandle = {
  server: OpenAiServer;
  /** Stops the server (requests in flight finish) and frees the policy. */
  close(): Promise<void>;
};

/**
 * Starts `seal serve-policy` from its flags and returns once listening
 * (embedding and tests; the command waits for a signal, then closes).
 */
export async function startServePolicy({
  argv,
  output,
}: CommandContext): Promise<ServePolicyHandle> {
  const { flags } = parseFlags({
    argv,
    options: {
      model: { type: 'string' },
      port: { type: 'string' },
      host: { type: 'string' },
      name: { type: 'string' },
      protocol: { type: 'string' },
      'prompt-mode': { type: 'string' },
      'max-batch': { type: 'string' },
      'max-queue': { type: 'string' },
      'max-body': { type: 'string' },
      json: { type: 'boolean' },
      'weight-updates': { type: 'boolean' },
      ...deviceFlagOption,
      ...precisionFlagOption,
    },
    schema: flagsSchema,
  });
  if (flags.model === undefined) {
    throw new SealError({
      code: 'INVALID_ARGUMENT',
      message: `pass --model DIR\n\n${servePolicyHelp}`,
    });
  }
  const directory = resolve(flags.model);
  if (!existsSync(directory) || !statSync(directory).isDirectory()) {
    throw new SealError({
      code: 'FILE_NOT_FOUND',
      message: `model directory not found: ${directory}`,
      details: { path: directory },
    });
  }
  const hints = await readPolicyHints(directory);
  const executionProvider = await resolveDevice({ flag: flags.device, output });
  const policy = await createOrtPolicy({
    model: { directory },
    executionProvider,
    ...precisionSetting({
      flag: flags.precision,
      device: executionProvider,
      output,
    }),
  });
  try {
    const name = flags.name ?? basename(directory);
    const protocol = flags.protocol ?? hints.protocol ?? 'bfcl-python';
    // BFCL's full prompt unless the model's training hints say compact.
    const promptMode = flags['prompt-mode'] ?? hints.promptMode ?? 'full';
    const model = createPolicyChatModel({
      policy,
      protocol,
      promptMode,
      maxBatch: flags['max-batch'] ?? 8,
      ...(flags['max-queue'] === undefined
        ? {}
        : { maxQueue: flags['max-queue'] }),
      modelId: name,
    });
    const server = await startOpenAiServer({
      model,
      modelName: name,
      host: flags.host ?? '127.0.0.1',
      port: flags.port ?? 8000,
      ...(flags['max-body'] === undefined
        ? {}
        : { maxBodyBytes: flags['max-body'] }),
      completionPolicy: policy,
      ...(flags['weight-updates']
        ? {
            updateWeights: async (weights: string) => {
              await policy.load({ directory: resolve(weights) });
              await policy.resetCache?.();
              event(
                output,
                'weights-loaded',
                { directory: resolve(weights) },
                `seal serve-policy: loaded ${resolve(weights)}`,
              );
            },
          }
        : {}),
      evalDefaults: {
        protocol,
        promptMode,
        ...(hints.maxTokens === undefined
          ? {}
          : { maxTokens: hints.maxTokens }),
        ...(hints.maxModelCalls === undefined
          ? {}
          : { maxModelCalls: hints.maxModelCalls }),
        ...(hints.preset === undefined ? {} : { preset: hints.preset }),
      },
      onInternalError: ({ error, reference }) => {
        process.stderr.write(
          `seal serve-policy: internal error ${reference}: ${toSealError(error).message}\n${error instanceof Error && error.stack ? `${error.stack}\n` : ''}`,
        );
      },
    });
    event(
      output,
      'listening',
      {
        url: server.url,
        model: name,
        protocol,
        promptMode,
        maxSequenceLength: policy.maxSequenceLength,
      },
      `seal serve-policy: ${name} (${policy.policyId}, ${protocol} protocol, ${promptMode} prompt, context ${policy.maxSequenceLength}) on ${server.url}/v1; Ctrl-C stops it`,
    );
    let closing: Promise<void> | undefined;
    return {
      server,
      close: () => (closing ??= server.close().finally(() => policy.close())),
    };
  } catch (error) {
    await policy.close();
    throw error;
  }
}

function event(
  output: CommandContext['output'],
  name: string,
  fields: Record<string, unknown>,
  text: string,
): void {
  if (output.json) {
    process.stdout.write(
      `${JSON.stringify({ event: name, time: new Date().toISOString(), ...fields })}\n`,
    );
  } else output.line(text);
}

/** `seal serve-policy`. */
export async function runServePolicy(context: CommandContext): Promise<number> {
  const handle = await startServePolicy(context);
  try {
    const signal = await waitForStopSignal();
    await handle.close();
    event(
      context.output,
      'stopped',
      { signal },
      `seal serve-policy: stopped (${signal})`,
    );
    return exitCodes.success;
  } finally {
    await handle.close();
  }
}

import { existsSync, statSync } from 'node:fs';
import { basename, resolve } from 'node:path';
import { embeddedPresets } from '@seal/embedded';
import { createOrtPolicy } from '@seal/engine-ort';
import { SealError, toSealError } from '@seal/spec';
import { createTinkerServer, type TinkerServer } from '@seal/tinker';
import * as z from 'zod';
import { parseFlags } from '../args';
import type { CommandContext } from '../command';
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
import { exitCodes } from '../exit-codes';
import { prepareEmbedded } from '../shipped-base';
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

const presetNames = ['default', 'smoke', 'study', 'extended'] as const;

const flagsSchema = z.object({
  model: z.string().min(1).optional(),
  preset: z.enum(presetNames).optional(),
  cache: z.string().min(1).optional(),
  checkpoints: z.string().min(1).optional(),
  port: whole(0, 65_535),
  host: z.string().min(1).optional(),
  name: z.string().min(1).optional(),
  'max-body': whole(1024),
  json: z.boolean().optional(),
  device: deviceFlagSchema,
  precision: precisionFlagSchema,
});

export const serveTrainerHelp = `usage: seal serve-trainer [--model DIR | --preset P] [--port 8088] [--host 127.0.0.1]
                          [--name NAME] [--cache DIR] [--checkpoints DIR]
                          [--max-body BYTES] [--json]
                          [--device cpu|webgpu|cuda|auto]

Serves our engine as a Tinker-compatible training service (the Tinker REST
API under /api/v1: create_session, session_heartbeat, create_model,
forward_backward, forward, optim_step, save_weights, load_weights,
save_weights_for_sampler, asample, retrieve_future; JSON, and protobuf
forward_backward bodies and results as the tinker SDK 0.25 sends and asks
for them), so a Tinker client (@seal/tinker's createTinkerPolicy, the tinker
SDK, SkyRL's clients) trains the model out of process or on another machine.
SEAL's exact extension (GET /api/v1/seal_extensions, seal_sample_batch)
lets seal train --trainer tinker reproduce the in-process run exactly.
Each create_model gets its own copy of the base model's weights.

Supported: full fine-tuning only (a lora_config is refused with 400),
losses cross_entropy, importance_sampling and ppo (clip_low_threshold,
clip_high_threshold), token-id prompts; futures live in memory until the
server stops; checkpoints (save_weights) in --checkpoints DIR, kept across
restarts so a client's run resumes after the service comes back, else in a
temporary directory removed on exit.

  --model DIR       a model directory (config.json, model.safetensors, tokenizer files)
  --preset P        without --model: the embedded preset's warm start
                    (default, smoke, study, extended; default: default)
  --cache DIR       where the embedded warm start is cached (default .seal-cache)
  --checkpoints DIR where save_weights writes (kept; default: a temporary directory)
  --port N          port (default 8088; 0 picks a free one)
  --host H          interface (default 127.0.0.1; 0.0.0.0 exposes it)
  --name NAME       the base_model name clients send (default: the directory's
                    name, or seal-<preset>)
  --max-body BYTES  largest request body (default 67108864)
  --json            print events as JSON Lines
${deviceFlagHelp}
${precisionFlagHelp}

Exit codes: 0 stopped by a signal, 2 bad flags or port in use, 3 bad model.`;

/** A started `seal serve-trainer`. */
export type ServeTrainerHandle = {
  server: TinkerServer;
  /** Stops the server and frees its policies. */
  close(): Promise<void>;
};

/** Starts `seal serve-trainer` from its flags and returns once listening. */
export async function startServeTrainer({
  argv,
  output,
}: CommandContext): Promise<ServeTrainerHandle> {
  const { flags } = parseFlags({
    argv,
    options: {
      model: { type: 'string' },
      preset: { type: 'string' },
      cache: { type: 'string' },
      checkpoints: { type: 'string' },
      port: { type: 'string' },
      host: { type: 'string' },
      name: { type: 'string' },
      'max-body': { type: 'string' },
      json: { type: 'boolean' },
      ...deviceFlagOption,
      ...precisionFlagOption,
    },
    schema: flagsSchema,
  });
  if (flags.model !== undefined && flags.preset !== undefined) {
    throw new SealError({
      code: 'INVALID_ARGUMENT',
      message: `pass --model DIR or --preset P, not both\n\n${serveTrainerHelp}`,
    });
  }
  let directory: string;
  let name: string;
  if (flags.model !== undefined) {
    directory = resolve(flags.model);
    if (!existsSync(directory) || !statSync(directory).isDirectory()) {
      throw new SealError({
        code: 'FILE_NOT_FOUND',
        message: `model directory not found: ${directory}`,
        details: { path: directory },
      });
    }
    name = flags.name ?? basename(directory);
  } else {
    const preset = embeddedPresets[flags.preset ?? 'default'];
    output.line(`seal serve-trainer: preparing the ${preset.name} warm start…`);
    const assets = await prepareEmbedded({
      preset,
      cacheDirectory: resolve(flags.cache ?? '.seal-cache'),
    });
    directory = assets.warmStartDirectory;
    name = flags.name ?? `seal-${preset.name}`;
  }
  const executionProvider = await resolveDevice({ flag: flags.device, output });
  const precision = precisionSetting({
    flag: flags.precision,
    device: executionProvider,
    output,
  });
  // The same composition as seal serve-policy: one engine policy per model.
  const createPolicy = () =>
    createOrtPolicy({
      model: { directory },
      executionProvider,
      ...precision,
    });
  // Load once before listening, so a bad model fails the command at start.
  const probe = await createPolicy();
  const maxContextLength = probe.maxSequenceLength;
  await probe.close();
  const server = await createTinkerServer({
    baseModel: name,
    createPolicy,
    maxContextLength,
    ...(flags.checkpoints === undefined
      ? {}
      : { checkpointDirectory: resolve(flags.checkpoints) }),
    host: flags.host ?? '127.0.0.1',
    port: flags.port ?? 8088,
    ...(flags['max-body'] === undefined
      ? {}
      : { maxBodyBytes: flags['max-body'] }),
    onInternalError: (error) => {
      process.stderr.write(
        `seal serve-trainer: internal error: ${toSealError(error).message}\n`,
      );
    },
  });
  event(
    output,
    'listening',
    { url: server.url, model: name, directory, maxContextLength },
    `seal serve-trainer: ${name} (context ${maxContextLength}, full fine-tuning) on ${server.url}/api/v1; Ctrl-C stops it`,
  );
  return { server, close: () => server.close() };
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

/** `seal serve-trainer`. */
export async function runServeTrainer(
  context: CommandContext,
): Promise<number> {
  const handle = await startServeTrainer(context);
  try {
    const signal = await waitForStopSignal();
    await handle.close();
    event(
      context.output,
      'stopped',
      { signal },
      `seal serve-trainer: stopped (${signal})`,
    );
    return exitCodes.success;
  } finally {
    await handle.close();
  }
}

import {
  createBfclBackend,
  loadBfclData,
  resolveBfclDataDir,
} from '@seal/bfcl';
import {
  createBfclTaskSource,
  createStateFileStatisticsLoader,
  startEnvServer,
  type EnvServer,
} from '@seal/server';
import { toSealError } from '@seal/spec';
import { createBfclVerifier } from '@seal/verifier';
import { availableParallelism } from 'node:os';
import { extname } from 'node:path';
import { fileURLToPath } from 'node:url';
import * as z from 'zod';
import { parseFlags } from '../args';
import type { CommandContext } from '../command';
import { exitCodes } from '../exit-codes';
import type { ServeSettingsOptions } from './serve-settings';
import { waitForStopSignal } from '../stop-signal';

const integer = (name: string, min: number) =>
  z
    .string()
    .regex(/^\d+$/, `must be a whole number`)
    .transform(Number)
    .refine((value) => value >= min, `must be at least ${min}`)
    .optional()
    .describe(name);

const flagsSchema = z.object({
  port: integer('port', 0).refine(
    (value) => value === undefined || value <= 65_535,
    'must be at most 65535',
  ),
  host: z.string().min(1).optional(),
  data: z.string().optional(),
  'idle-timeout': integer('idle-timeout', 1),
  'reclaim-interval': integer('reclaim-interval', 1),
  'max-body': integer('max-body', 256),
  'max-instances': integer('max-instances', 1),
  'max-model-calls': integer('max-model-calls', 1),
  'allow-state-path': z.boolean().optional(),
  workers: integer('workers', 0),
  debug: z.boolean().optional(),
  json: z.boolean().optional(),
});

export const serveHelp = `usage: seal serve [--port 8082] [--host 127.0.0.1] [--data DIR] [--idle-timeout S]
                  [--max-body BYTES] [--max-instances N] [--max-model-calls N]
                  [--reclaim-interval S] [--allow-state-path] [--workers N] [--debug] [--json]

Serves BFCL v3 multi-turn episodes over SEAL's environment-service HTTP API
(GET /healthz; POST /get_env_profile /create /step /evaluate /get_info
/release), plus POST /diagnose and /apatch_weights for external trainers.
Prints the URL once listening; SIGINT or SIGTERM stops it cleanly (requests
in flight finish) with exit code 0.

  --port N              port (default 8082, SEAL's; 0 picks a free one)
  --host H              interface (default 127.0.0.1; 0.0.0.0 exposes it)
  --data DIR            BFCL data directory (default: $SEAL_BFCL_DATA)
  --idle-timeout S      reclaim instances idle this many seconds (default 3600)
  --reclaim-interval S  look for idle instances this often (default 300)
  --max-body BYTES      largest request body; larger ones get 413 (default 1048576)
  --max-instances N     live instances at most; more get 503 (default 4096)
  --max-model-calls N   model calls per episode at most (default 1000)
  --allow-state-path    let /create read diagnostic_evolution.state_path files
  --workers N           serve from N worker threads, each holding its own
                        instances, behind the HTTP thread (default: the
                        machine's cores less one, at least 1; 0 serves
                        from the main thread)
  --debug               put internal error messages and stacks in 500 bodies
  --json                print events as JSON Lines ({"event": "listening", ...})

Exit codes: 0 stopped by a signal, 2 bad flags or port in use, 3 bad data.`;

/** `seal serve`. */
export async function runServe({
  argv,
  output,
}: CommandContext): Promise<number> {
  const { flags } = parseFlags({
    argv,
    options: {
      port: { type: 'string' },
      host: { type: 'string' },
      data: { type: 'string' },
      'idle-timeout': { type: 'string' },
      'reclaim-interval': { type: 'string' },
      'max-body': { type: 'string' },
      'max-instances': { type: 'string' },
      'max-model-calls': { type: 'string' },
      'allow-state-path': { type: 'boolean' },
      workers: { type: 'string' },
      debug: { type: 'boolean' },
      json: { type: 'boolean' },
    },
    schema: flagsSchema,
  });
  // One JSON document per line: a server's output is a stream of events.
  const event = (
    name: string,
    fields: Record<string, unknown>,
    text: string,
  ) => {
    if (output.json)
      process.stdout.write(
        `${JSON.stringify({ event: name, time: new Date().toISOString(), ...fields })}\n`,
      );
    else output.line(text);
  };

  const dir = resolveBfclDataDir({ flag: flags.data });
  if (!output.json) process.stderr.write(`loading BFCL data from ${dir}\n`);
  const dataset = await loadBfclData({ dir });
  const tasks = createBfclTaskSource({ dataset });
  const idleTimeoutSeconds = flags['idle-timeout'] ?? 3600;

  // One core stays with the HTTP thread: on two cores, two workers beside it
  // raised the step p99 at 5,000 steps/s from 11 to 12 ms (bench/RESULTS.md).
  const workerCount = flags.workers ?? Math.max(1, availableParallelism() - 1);
  const settingsOptions: ServeSettingsOptions = {
    dir,
    allowStatePath: flags['allow-state-path'] ?? false,
    ...(flags['max-model-calls'] === undefined
      ? {}
      : { maxModelCalls: flags['max-model-calls'] }),
  };
  const server: EnvServer = await startEnvServer({
    ...(workerCount > 0
      ? {
          workers: {
            count: workerCount,
            settingsModule: new URL(
              `./serve-settings${extname(fileURLToPath(import.meta.url))}`,
              import.meta.url,
            ).href,
            settingsOptions,
          },
        }
      : {}),
    host: flags.host ?? '127.0.0.1',
    port: flags.port ?? 8082,
    tasks,
    backend: createBfclBackend({ runtime: dataset.runtime }),
    // Records come from the service's own episodes.
    verifier: createBfclVerifier({
      runtime: dataset.runtime,
      checkRecords: false,
    }),
    idleTimeoutMs: idleTimeoutSeconds * 1000,
    reclaimIntervalMs: (flags['reclaim-interval'] ?? 300) * 1000,
    ...(flags['max-body'] === undefined
      ? {}
      : { maxBodyBytes: flags['max-body'] }),
    ...(flags['max-instances'] === undefined
      ? {}
      : { maxInstances: flags['max-instances'] }),
    ...(flags['max-model-calls'] === undefined
      ? {}
      : { maxModelCalls: flags['max-model-calls'] }),
    ...(flags['allow-state-path']
      ? { loadStatistics: createStateFileStatisticsLoader() }
      : {}),
    exposeInternalErrors: flags.debug ?? false,
    onInternalError: ({ error, reference }) => {
      const sealError = toSealError(error);
      process.stderr.write(
        `seal serve: internal error ${reference}: ${sealError.message}\n${error instanceof Error && error.stack ? `${error.stack}\n` : ''}`,
      );
    },
    onReclaim: (ids) =>
      event(
        'reclaimed',
        { instances: ids },
        `reclaimed ${ids.length} instance${ids.length === 1 ? '' : 's'} idle for over ${idleTimeoutSeconds} s`,
      ),
  });

  const splits = Object.fromEntries(
    tasks.splits.map((name) => [name, tasks.list(name)?.length ?? 0]),
  );
  event(
    'listening',
    {
      url: server.url,
      host: server.host,
      port: server.port,
      data: dir,
      tasks: dataset.entries.length,
      splits,
    },
    `seal serve: listening on ${server.url} (${dataset.entries.length} BFCL tasks; splits ${Object.entries(
      splits,
    )
      .filter(([name]) => name === 'train' || name === 'val')
      .map(([name, count]) => `${name} ${count}`)
      .join(', ')}); Ctrl-C stops it`,
  );

  const signal = await waitForStopSignal();
  const live = server.service.size;
  await server.close();
  event(
    'stopped',
    { signal, releasedInstances: live },
    `seal serve: stopped (${signal}); released ${live} instance${live === 1 ? '' : 's'}`,
  );
  return exitCodes.success;
}

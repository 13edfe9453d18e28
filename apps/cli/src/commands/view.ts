import { readRunDirectory, startViewer } from '@seal/report';
import { SealError } from '@seal/spec';
import * as z from 'zod';
import { parseFlags } from '../args';
import type { CommandContext } from '../command';
import { exitCodes } from '../exit-codes';
import { createRunDiagnoser } from '../run-diagnoser';
import { waitForStopSignal } from '../stop-signal';

const flagsSchema = z.object({
  port: z
    .string()
    .regex(/^\d+$/, 'must be a whole number')
    .transform(Number)
    .refine((value) => value <= 65_535, 'must be at most 65535')
    .optional(),
  host: z.string().min(1).optional(),
  data: z.string().optional(),
  tasks: z.string().optional(),
  'no-verify': z.boolean().optional(),
  json: z.boolean().optional(),
});

export const viewHelp = `usage: seal view RUN_DIR [--port 8090] [--host 127.0.0.1] [--data DIR] [--tasks FILE] [--no-verify] [--json]

Serves a trajectory browser for a training run directory: the episode files
(training steps, evaluations) with each episode's task, category, reward and
dominant SEAL tag; and per episode the messages, tool calls and results, the
verdict, the tag of every turn, the ground truth, and the interface overlay
in force. For a Connect the Dots run, each pack run task by task with the
hints it was solved with and the hint update between the tasks. Model output
is shown as text, never as markup. Files are read on each request, so a run
still training shows its new steps. Prints the URL once listening; SIGINT or
SIGTERM stops it with exit code 0.

  --port N      port (default 8090; 0 picks a free one)
  --host H      interface (default 127.0.0.1; 0.0.0.0 exposes it)
  --data DIR    BFCL data directory for runs on BFCL (default: $SEAL_BFCL_DATA)
  --tasks FILE  read the tasks from Task JSON Lines instead
  --no-verify   do not re-verify episodes (no verdicts or tags)
  --json        print events as JSON Lines ({"event": "listening", ...})

Exit codes: 0 stopped by a signal, 2 bad flags or port in use, 3 not a run directory.`;

/** `seal view`. */
export async function runView({
  argv,
  output,
}: CommandContext): Promise<number> {
  const { flags, positionals } = parseFlags({
    argv,
    options: {
      port: { type: 'string' },
      host: { type: 'string' },
      data: { type: 'string' },
      tasks: { type: 'string' },
      'no-verify': { type: 'boolean' },
      json: { type: 'boolean' },
    },
    schema: flagsSchema,
    allowPositionals: true,
  });
  if (positionals.length !== 1) {
    throw new SealError({
      code: 'INVALID_ARGUMENT',
      message: `${positionals.length === 0 ? 'no run directory given' : 'give one run directory'}\n\n${viewHelp}`,
    });
  }
  const runDirectory = positionals[0]!;
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
  const run = await readRunDirectory({ runDirectory });
  const diagnose = flags['no-verify']
    ? undefined
    : await createRunDiagnoser({
        runDirectory,
        seed: run.config?.seed ?? undefined,
        ...(flags.data === undefined ? {} : { dataDirectory: flags.data }),
        ...(flags.tasks === undefined ? {} : { tasksFile: flags.tasks }),
      });
  const viewer = await startViewer({
    runDirectory,
    port: flags.port ?? 8090,
    host: flags.host ?? '127.0.0.1',
    ...(diagnose ? { diagnose } : {}),
  });
  event(
    'listening',
    {
      url: viewer.url,
      host: viewer.host,
      port: viewer.port,
      runDirectory: run.root,
    },
    `seal view: listening on ${viewer.url} (${run.episodeFiles.length} episode files${run.packRuns.length > 0 ? `, ${run.packRuns.length} pack-run files` : ''} in ${run.root}); Ctrl-C stops it`,
  );

  const signal = await waitForStopSignal();
  await viewer.close();
  event('stopped', { signal }, `seal view: stopped (${signal})`);
  return exitCodes.success;
}

/**
 * `pnpm bench fuzz [--n N] [--seed S] [--data DIR] [--no-service]`: sends N
 * hostile model outputs (default 100,000) through the parser, the executor,
 * the verifier and the environment service over HTTP (started in process
 * with `startEnvServer`), from a corpus that grows from what it finds (see
 * `bench/fuzz`). Prints the counts that must be 0 (code executions,
 * uncaught exceptions, 5xx answers, polluted prototypes), the memory peak,
 * and throughput; exits 1 when any of them is not 0.
 */
import { loadBfclData, resolveBfclDataDir } from '@seal/bfcl';
import { sharedBfclDataDir } from '@seal/bfcl/test';
import {
  runHostileFuzz,
  slowInputMs,
  slowRequestMs,
  type HostileFuzzReport,
} from './fuzz/hostile-fuzz';
import { benchFlags } from './_args';

const flags = benchFlags(['n', 'seed', 'data'], ['no-service']);
const flag = flags.value;
const count = Number(flag('n') ?? 100_000);
const seed = Number(flag('seed') ?? 20261125);
if (!Number.isSafeInteger(count) || count <= 0 || !Number.isSafeInteger(seed)) {
  throw Object.assign(new Error('--n and --seed take positive integers'), {
    code: 'INVALID_ARGUMENT',
  });
}
const dir = resolveBfclDataDir({
  flag: flag('data') ?? process.env['SEAL_BFCL_DATA'] ?? sharedBfclDataDir,
});
const dataset = await loadBfclData({ dir });

const line = (report: HostileFuzzReport) =>
  `${report.inputs} inputs, ${(report.durationMs / 1000).toFixed(1)} s: code executions ${report.codeExecutions}, uncaught ${report.uncaughtExceptions}, slow ${report.slowInputs}, 5xx ${report.service.serverErrors}, no answer ${report.service.transportErrors}, corpus ${report.corpusSize}, signatures ${report.signatures}, heap peak ${report.memory.peakHeapMiB.toFixed(0)} MiB`;

const report = await runHostileFuzz({
  dataset,
  count,
  seed,
  service: !flags.has('no-service'),
  progressEvery: 10_000,
  onProgress: (progress) => console.error(line(progress)),
});

const rows: [string, string][] = [
  [
    'inputs (seed)',
    `${report.inputs.toLocaleString('en-US')} (${report.seed})`,
  ],
  [
    'parser calls / accepted as literal calls',
    `${report.parser.calls.toLocaleString('en-US')} / ${report.parser.accepted.toLocaleString('en-US')}`,
  ],
  [
    'executor calls: ok / raised / rejected',
    `${report.executor.calls.toLocaleString('en-US')}: ${report.executor.ok.toLocaleString('en-US')} / ${report.executor.raised.toLocaleString('en-US')} / ${report.executor.rejected.toLocaleString('en-US')}`,
  ],
  [
    'verifier trajectories (calls)',
    `${report.verifier.trajectories.toLocaleString('en-US')} (${report.verifier.calls.toLocaleString('en-US')})`,
  ],
  [
    'HTTP requests by status',
    `${report.service.requests.toLocaleString('en-US')}: ${Object.entries(
      report.service.byStatus,
    )
      .map(([status, n]) => `${status} ×${n.toLocaleString('en-US')}`)
      .join(', ')}`,
  ],
  [
    'corpus kept / distinct outcome signatures',
    `${report.corpusSize.toLocaleString('en-US')} / ${report.signatures.toLocaleString('en-US')}`,
  ],
  ['**code executions (canary)**', `**${report.codeExecutions}**`],
  ['**uncaught exceptions**', `**${report.uncaughtExceptions}**`],
  [
    '**5xx answers / requests without an answer**',
    `**${report.service.serverErrors} / ${report.service.transportErrors}**`,
  ],
  ['**prototype properties added**', `**${report.prototypePollution.length}**`],
  [
    `**inputs slower than ${slowInputMs / 1000} s (local) / ${slowRequestMs / 1000} s (request)**`,
    `**${report.slowInputs}**`,
  ],
  [
    'slowest input: local / request',
    `${report.slowestMs.local.toFixed(0)} / ${report.slowestMs.request.toFixed(0)} ms`,
  ],
  [
    'heap start / peak / end',
    `${report.memory.startHeapMiB.toFixed(0)} / ${report.memory.peakHeapMiB.toFixed(0)} / ${report.memory.endHeapMiB.toFixed(0)} MiB`,
  ],
  ['peak RSS', `${report.memory.peakRssMiB.toFixed(0)} MiB`],
  [
    'duration',
    `${(report.durationMs / 1000).toFixed(1)} s (${((report.inputs / report.durationMs) * 1000).toFixed(0)} inputs/s)`,
  ],
];
console.log('| metric | value |\n| --- | ---: |');
for (const [label, value] of rows) console.log(`| ${label} | ${value} |`);
console.log(
  `\nslowest input (local): ${JSON.stringify(report.slowestLocalInput)}`,
);
for (const failure of report.failures) console.log(`failure: ${failure}`);
for (const key of report.prototypePollution) console.log(`polluted: ${key}`);
const failed =
  report.codeExecutions +
  report.uncaughtExceptions +
  report.slowInputs +
  report.service.serverErrors +
  report.service.transportErrors +
  report.prototypePollution.length;
if (failed > 0) process.exitCode = 1;

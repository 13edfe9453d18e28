/**
 * `pnpm bench chaos [--kills 20] [--seed S] [--dir DIR] [--cache DIR] [-- TRAIN ARGS]`:
 * the resume chaos test (see `bench/chaos/resume-chaos.ts`). Runs
 * `seal train --preset smoke` uninterrupted, then again in a child process
 * SIGKILLed at `--kills` seeded random points (the model phase, checkpoint
 * writes, event and overlay appends, episode and state writes, atomic
 * renames; half the writes torn), resumed after each, and compares the two
 * run directories. Prints one line per kill and the comparison; exits 1
 * unless the runs are identical. Arguments after `--` replace `--preset
 * smoke`.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runResumeChaos } from './chaos/resume-chaos';
import { benchFlags } from './_args';

const argv = process.argv.slice(2);
const separator = argv.indexOf('--');
const flags = benchFlags(
  ['kills', 'seed', 'dir', 'cache'],
  [],
  separator >= 0 ? argv.slice(0, separator) : argv,
);
const kills = Number(flags.value('kills') ?? 20);
const seed = Number(flags.value('seed') ?? 20261125);
if (!Number.isSafeInteger(kills) || kills < 1 || !Number.isSafeInteger(seed)) {
  throw Object.assign(
    new Error('--kills takes a positive integer, --seed an integer'),
    { code: 'INVALID_ARGUMENT' },
  );
}
const root = flags.value('dir') ?? mkdtempSync(join(tmpdir(), 'seal-chaos-'));
const cache = flags.value('cache');
const trainArgs =
  separator >= 0 ? argv.slice(separator + 1) : ['--preset', 'smoke'];

console.log(
  `resume chaos: seal train ${trainArgs.join(' ')}, ${kills} kills, seed ${seed}, in ${root}`,
);
const report = await runResumeChaos({
  root,
  kills,
  seed,
  trainArgs,
  ...(cache ? { cacheDirectory: cache } : {}),
  onLog: (line) => console.log(`  ${line}`),
});

const byKind = new Map<string, number>();
for (const kill of report.kills)
  byKind.set(kill.kind, (byKind.get(kill.kind) ?? 0) + 1);
const killed = report.kills.filter((kill) => kill.killed).length;
console.log('');
console.log('| metric | value |');
console.log('| --- | ---: |');
console.log(
  `| kills (SIGKILL) | ${killed} of ${report.kills.length} (${[...byKind].map(([kind, n]) => `${kind} ${n}`).join(', ')}; torn writes ${report.kills.filter((kill) => kill.torn).length}) |`,
);
console.log(
  `| phases hit | ${[...new Set(report.kills.map((kill) => kill.phase.replace(/-\d{6}/g, '-N')))].join('; ')} |`,
);
console.log(
  `| uninterrupted run / killed run with resumes | ${report.referenceSeconds.toFixed(1)} s / ${report.chaosSeconds.toFixed(1)} s |`,
);
console.log(
  `| files compared / JSONL lines checked | ${report.files} / ${report.jsonlLines} |`,
);
console.log(`| differences | ${report.differences.length} |`);
for (const difference of report.differences)
  console.log(`difference: ${difference}`);
console.log('');
console.log(
  report.identical && killed === report.kills.length
    ? `identical to the uninterrupted run (${killed} kills)`
    : 'NOT identical to the uninterrupted run',
);
process.exitCode = report.identical && killed === report.kills.length ? 0 : 1;

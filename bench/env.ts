/**
 * `pnpm bench env [--data DIR] [--repeat N] [--bfcl-python DIR]`: replays the
 * ground truth of all 800 BFCL v3 multi-turn entries on fresh instances, with
 * a comparable-state snapshot after every turn, and prints entries per second
 * and mean microseconds per tool call. The same replay without snapshots runs
 * side by side, so the snapshot share is a ratio from one run.
 *
 * With `--bfcl-python DIR` (or `SEAL_BFCL_PYTHON`), the folder
 * `berkeley-function-call-leaderboard` of a BFCL checkout at commit cd9429cc,
 * BFCL's own Python executor replays the same calls in a child process
 * (`bench/env-bfcl-python.py`, timed inside Python, so start-up is not
 * counted), alternated with the TypeScript runs, and the table gets
 * "× BFCL's Python" columns (wall clock and process CPU time). Then both
 * replay once more, untimed, and every result string is compared: the
 * speed counts only if the results are BFCL's, byte for byte.
 */
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { performance } from 'node:perf_hooks';
import {
  BfclRealm,
  BfclSession,
  loadBfclData,
  resolveBfclDataDir,
  type BfclDataset,
} from '@seal/bfcl';
import { sharedBfclDataDir } from '@seal/bfcl/test';
import { benchFlags } from './_args';

const flags = benchFlags(['data', 'repeat', 'bfcl-python']);
const flag = flags.value;
const dir = resolveBfclDataDir({
  flag: flag('data') ?? process.env['SEAL_BFCL_DATA'] ?? sharedBfclDataDir,
});
const repeat = Number(flag('repeat') ?? 5);
const bfclPython = flag('bfcl-python') ?? process.env['SEAL_BFCL_PYTHON'];
const dataset = await loadBfclData({ dir });

/** BFCL's Python replay in a child process, one `run` per call. */
function startPythonReplay(bfclDir: string) {
  const script = fileURLToPath(
    new URL('./env-bfcl-python.py', import.meta.url),
  );
  const child = spawn(
    process.env['PYTHON'] ?? 'python3',
    [script, bfclDir, dir],
    {
      stdio: ['pipe', 'pipe', 'inherit'],
    },
  );
  const lines = createInterface({ input: child.stdout })[
    Symbol.asyncIterator
  ]();
  return {
    async run(): Promise<{
      ms: number;
      cpuMs: number;
      calls: number;
      entries: number;
    }> {
      child.stdin.write('run\n');
      const next = await lines.next();
      if (next.done) throw new Error('the BFCL Python replay exited early');
      return JSON.parse(next.value) as {
        ms: number;
        cpuMs: number;
        calls: number;
        entries: number;
      };
    },
    async results(): Promise<string[]> {
      child.stdin.write('results\n');
      const next = await lines.next();
      if (next.done) throw new Error('the BFCL Python replay exited early');
      return JSON.parse(next.value) as string[];
    },
    stop() {
      child.stdin.end('quit\n');
    },
  };
}

function replayAll(
  data: BfclDataset,
  snapshots: boolean,
): { calls: number; entries: number } {
  let calls = 0;
  for (const entry of data.entries) {
    const session = new BfclSession({
      realm: new BfclRealm({ data: data.runtime }),
      initialConfig: entry.initialConfig,
      involvedClasses: entry.involvedClasses,
      longContext: entry.category === 'multi_turn_long_context',
    });
    if (snapshots) session.comparableState();
    for (const turn of entry.groundTruth) {
      for (const call of turn) {
        session.execute(call);
        calls++;
      }
      if (snapshots) session.comparableState();
    }
  }
  return { calls, entries: data.entries.length };
}

type Timing = { ms: number; cpuMs: number };

/** Wall-clock and process CPU time of one call (CPU time holds up better on a shared machine). */
function timed<T>(run: () => T): { value: T } & Timing {
  const cpu = process.cpuUsage();
  const start = performance.now();
  const value = run();
  const ms = performance.now() - start;
  const used = process.cpuUsage(cpu);
  return { value, ms, cpuMs: (used.user + used.system) / 1000 };
}

const python =
  bfclPython === undefined ? undefined : startPythonReplay(bfclPython);
// Warm up the JIT (and Python's imports), then alternate the variants so
// drift and other load on the machine hit all of them alike.
replayAll(dataset, true);
replayAll(dataset, false);
await python?.run();
const times = {
  with: [] as Timing[],
  without: [] as Timing[],
  python: [] as Timing[],
};
let counts = { calls: 0, entries: 0 };
for (let i = 0; i < repeat; i++) {
  for (const snapshots of [true, false]) {
    const run = timed(() => replayAll(dataset, snapshots));
    counts = run.value;
    times[snapshots ? 'with' : 'without'].push(run);
  }
  if (python !== undefined) {
    const run = await python.run();
    if (run.calls !== counts.calls || run.entries !== counts.entries) {
      throw new Error(
        `BFCL's Python replayed ${run.calls} calls of ${run.entries} entries, we ${counts.calls} of ${counts.entries}`,
      );
    }
    times.python.push(run);
  }
}
let identical: { same: number; total: number; first?: string } | undefined;
if (python !== undefined) {
  const expected = await python.results();
  const actual: string[] = [];
  for (const entry of dataset.entries) {
    const session = new BfclSession({
      realm: new BfclRealm({ data: dataset.runtime }),
      initialConfig: entry.initialConfig,
      involvedClasses: entry.involvedClasses,
      longContext: entry.category === 'multi_turn_long_context',
    });
    for (const turn of entry.groundTruth)
      for (const call of turn) actual.push(session.execute(call).result);
  }
  identical = { same: 0, total: Math.max(expected.length, actual.length) };
  for (let i = 0; i < identical.total; i++) {
    if (expected[i] === actual[i]) identical.same++;
    else
      identical.first ??= `call ${i}: ours ${JSON.stringify(actual[i]?.slice(0, 120))}, BFCL ${JSON.stringify(expected[i]?.slice(0, 120))}`;
  }
}
python?.stop();
const median = (values: number[]) =>
  [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
const summary = (runs: Timing[]): Timing => ({
  ms: median(runs.map((run) => run.ms)),
  cpuMs: median(runs.map((run) => run.cpuMs)),
});
const withTs = summary(times.with);
const withoutTs = summary(times.without);
const pythonTs = times.python.length > 0 ? summary(times.python) : undefined;
const rows: [string, Timing][] = [
  ['replay + state snapshots', withTs],
  ['replay only', withoutTs],
];
if (pythonTs !== undefined)
  rows.push(["BFCL's Python executor (replay only, cd9429cc)", pythonTs]);
console.log(
  `BFCL v3 ground-truth replay: ${counts.entries} entries, ${counts.calls} tool calls, median of ${repeat} runs\n`,
);
const pythonColumns =
  pythonTs === undefined
    ? ''
    : " × BFCL's Python (wall) | × BFCL's Python (CPU) |";
console.log(
  `| variant | total ms | CPU ms | entries/s | µs per tool call |${pythonColumns}`,
);
console.log(
  `| --- | ---: | ---: | ---: | ---: |${pythonTs === undefined ? '' : ' ---: | ---: |'}`,
);
for (const [label, timing] of rows) {
  const speedup =
    pythonTs === undefined
      ? ''
      : ` ${(pythonTs.ms / timing.ms).toFixed(2)} | ${(pythonTs.cpuMs / timing.cpuMs).toFixed(2)} |`;
  console.log(
    `| ${label} | ${timing.ms.toFixed(0)} | ${timing.cpuMs.toFixed(0)} | ${((counts.entries / timing.ms) * 1000).toFixed(0)} | ${((timing.ms * 1000) / counts.calls).toFixed(1)} |${speedup}`,
  );
}
console.log(
  `\nsnapshot overhead: ${(withTs.ms / withoutTs.ms).toFixed(2)}x the replay alone`,
);
if (identical !== undefined) {
  console.log(
    `result strings identical to BFCL's Python: ${identical.same}/${identical.total}${identical.first === undefined ? '' : ` (first difference: ${identical.first})`}`,
  );
  if (identical.same !== identical.total) process.exitCode = 1;
}
if (pythonTs !== undefined) {
  console.log(
    `replay only: ${(pythonTs.ms / withoutTs.ms).toFixed(2)}x faster than BFCL's Python in process (wall clock), ${(pythonTs.cpuMs / withoutTs.cpuMs).toFixed(2)}x by CPU time`,
  );
}

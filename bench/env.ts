/**
 * `pnpm bench env [--data DIR] [--repeat N]`: replays the ground truth of all
 * 800 BFCL v3 multi-turn entries on fresh instances, with a comparable-state
 * snapshot after every turn, and prints entries per second and mean
 * microseconds per tool call. The same replay without snapshots runs side by
 * side, so the snapshot share is a ratio from one run.
 */
import { performance } from 'node:perf_hooks';
import { BfclRealm, BfclSession, loadBfclData, resolveBfclDataDir, type BfclDataset } from '@seal/bfcl';
import { sharedBfclDataDir } from '@seal/bfcl/test';

const argv = process.argv.slice(2);
const flag = (name: string) => {
  const index = argv.indexOf(`--${name}`);
  return index >= 0 ? argv[index + 1] : undefined;
};
const dir = resolveBfclDataDir({ flag: flag('data') ?? process.env['SEAL_BFCL_DATA'] ?? sharedBfclDataDir });
const repeat = Number(flag('repeat') ?? 5);
const dataset = await loadBfclData({ dir });

function replayAll(data: BfclDataset, snapshots: boolean): { calls: number; entries: number } {
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

// Warm up the JIT, then alternate the two variants so drift hits both alike.
replayAll(dataset, true);
replayAll(dataset, false);
const times = { with: [] as number[], without: [] as number[] };
let counts = { calls: 0, entries: 0 };
for (let i = 0; i < repeat; i++) {
  for (const snapshots of [true, false]) {
    const start = performance.now();
    counts = replayAll(dataset, snapshots);
    times[snapshots ? 'with' : 'without'].push(performance.now() - start);
  }
}
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
const withMs = median(times.with);
const withoutMs = median(times.without);
const rows = [
  ['replay + state snapshots', withMs],
  ['replay only', withoutMs],
] as const;
console.log(`BFCL v3 ground-truth replay: ${counts.entries} entries, ${counts.calls} tool calls, median of ${repeat} runs\n`);
console.log('| variant | total ms | entries/s | µs per tool call |');
console.log('| --- | ---: | ---: | ---: |');
for (const [label, ms] of rows) {
  console.log(
    `| ${label} | ${ms.toFixed(0)} | ${((counts.entries / ms) * 1000).toFixed(0)} | ${((ms * 1000) / counts.calls).toFixed(1)} |`,
  );
}
console.log(`\nsnapshot overhead: ${(withMs / withoutMs).toFixed(2)}x the replay alone`);

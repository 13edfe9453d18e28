/**
 * A preload (`node --import`) for the resume chaos test, never imported by
 * the CLI: it watches the file writes of a `seal train` child under
 * `SEAL_CHAOS_RUN_DIR` and, when `SEAL_CHAOS_KILL` names one, SIGKILLs its
 * own process right before that write or half-way through it (a torn write:
 * the first half of the bytes reach the file). `SEAL_CHAOS_TRACE` receives
 * one line per write under the run directory, `<ms since start> <op>
 * <relative path>` with temporary-file suffixes normalised to `.tmp`, written
 * synchronously so that the parent sees every line a killed child wrote.
 *
 * `SEAL_CHAOS_KILL` is a JSON list of `{op, path, nth, tear}`: the process
 * dies at the first of them to happen, the `nth` write (from 1) of kind `op`
 * (`write`, `append` or `rename`) to the normalised `path` (for a rename,
 * the destination) in this process.
 */
import fs from 'node:fs';
import { syncBuiltinESMExports } from 'node:module';
import { relative } from 'node:path';

/** The kill the parent asked for. */
type KillSpec = {
  op: 'write' | 'append' | 'rename';
  path: string;
  nth: number;
  tear: boolean;
};

const runDirectory = process.env['SEAL_CHAOS_RUN_DIR'];
const tracePath = process.env['SEAL_CHAOS_TRACE'];
const killText = process.env['SEAL_CHAOS_KILL'];
const kills: KillSpec[] = killText ? (JSON.parse(killText) as KillSpec[]) : [];
const started = performance.timeOrigin;
const seen = new Map<string, number>();

const original = {
  writeFile: fs.promises.writeFile,
  appendFile: fs.promises.appendFile,
  rename: fs.promises.rename,
  writeFileSync: fs.writeFileSync,
  appendFileSync: fs.appendFileSync,
  renameSync: fs.renameSync,
};

/** A path under the run directory, relative and with `.tmp-…` suffixes cut; else undefined. */
export function normaliseChaosPath(
  path: unknown,
  root: string,
): string | undefined {
  const text =
    typeof path === 'string'
      ? path
      : path instanceof URL
        ? path.pathname
        : undefined;
  if (text === undefined) return undefined;
  const inside = relative(root, text);
  if (inside.startsWith('..') || inside === '') return undefined;
  // `name.tmp-<pid>-<time>` (ours, the policy's) and `name.<pid>.<hex>.tmp`
  // (the capability state's) are the same write in every process.
  return inside
    .replace(/\.tmp-[^/]*$/, '.tmp')
    .replace(/\.\d+\.[0-9a-f]+\.tmp$/, '.tmp');
}

/** Records the write and dies when it is the one asked for. */
function observe(op: KillSpec['op'], path: unknown, data?: unknown): void {
  if (runDirectory === undefined) return;
  const name = normaliseChaosPath(path, runDirectory);
  if (name === undefined) return;
  if (tracePath)
    original.appendFileSync(
      tracePath,
      `${(Date.now() - started).toFixed(0)} ${op} ${name}\n`,
    );
  const key = `${op} ${name}`;
  const count = (seen.get(key) ?? 0) + 1;
  seen.set(key, count);
  const kill = kills.find(
    (spec) => spec.op === op && spec.path === name && spec.nth === count,
  );
  if (!kill) return;
  if (kill.tear && typeof path === 'string' && data !== undefined) {
    const bytes =
      typeof data === 'string'
        ? Buffer.from(data)
        : Buffer.from(data as Uint8Array);
    const half = bytes.subarray(0, Math.floor(bytes.length / 2));
    if (op === 'append') original.appendFileSync(path, half);
    else original.writeFileSync(path, half);
  }
  process.kill(process.pid, 'SIGKILL');
}

if (runDirectory !== undefined) {
  const promises = fs.promises as unknown as Record<string, unknown>;
  promises['writeFile'] = (
    path: unknown,
    data: unknown,
    ...rest: unknown[]
  ) => {
    observe('write', path, data);
    return (original.writeFile as (...args: unknown[]) => Promise<void>)(
      path,
      data,
      ...rest,
    );
  };
  promises['appendFile'] = (
    path: unknown,
    data: unknown,
    ...rest: unknown[]
  ) => {
    observe('append', path, data);
    return (original.appendFile as (...args: unknown[]) => Promise<void>)(
      path,
      data,
      ...rest,
    );
  };
  promises['rename'] = (from: unknown, to: unknown) => {
    observe('rename', to);
    return original.rename(from as string, to as string);
  };
  const sync = fs as unknown as Record<string, unknown>;
  sync['writeFileSync'] = (
    path: unknown,
    data: unknown,
    ...rest: unknown[]
  ) => {
    observe('write', path, data);
    return (original.writeFileSync as (...args: unknown[]) => void)(
      path,
      data,
      ...rest,
    );
  };
  sync['appendFileSync'] = (
    path: unknown,
    data: unknown,
    ...rest: unknown[]
  ) => {
    observe('append', path, data);
    return (original.appendFileSync as (...args: unknown[]) => void)(
      path,
      data,
      ...rest,
    );
  };
  sync['renameSync'] = (from: unknown, to: unknown) => {
    observe('rename', to);
    original.renameSync(from as string, to as string);
  };
  // ESM named imports of `node:fs` and `node:fs/promises` read these now.
  syncBuiltinESMExports();
}

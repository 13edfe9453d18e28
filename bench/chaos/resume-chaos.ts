import { spawn } from 'node:child_process';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { mkdir, readFile, readdir, rm } from 'node:fs/promises';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  parseJsonLines,
  runDirectoryLayout,
  safeParseJsonLines,
} from '@seal/spec';
import * as z from 'zod';
import { sealCliEntry, sealCliNodeArguments } from '../_cli';

/**
 * The resume chaos test: `seal train` in a child process, SIGKILLed at
 * seeded random points and resumed each time, against an uninterrupted run
 * of the same seed. Kill points are drawn from the uninterrupted run's own
 * trace of file writes (see `chaos-kill-hook.ts`), by kind: a time in the
 * model phase (rollouts or the update, from the parent), right before or
 * half-way through a checkpoint write, an event or overlay append, an
 * episode or state write, or an atomic rename. The finished run must hold
 * the same files as the uninterrupted one: byte for byte, except
 * `events.jsonl`, compared with its timings removed; every JSONL line whole
 * and none repeated.
 */

/** Where one kill landed. */
export type ChaosKill = {
  /** 1-based. */
  index: number;
  /** `time`: SIGKILL from the parent; the others: right before (or, torn, half-way through) one write. */
  kind: 'time' | 'checkpoint' | 'append' | 'write' | 'rename';
  /** The write (`append events.jsonl`) or, for `time`, the phase and offset. */
  target: string;
  /** Half the bytes written before the kill. */
  torn: boolean;
  /** The checkpoint the killed process had resumed from (0: a fresh start). */
  resumedFrom: number;
  /** The phase of the step it hit, from the uninterrupted run's trace. */
  phase: string;
  /** The child died by SIGKILL (false only when it finished first). */
  killed: boolean;
  /** The last write the killed child began (`(none)` before any). */
  lastWrite: string;
};

/** What {@link runResumeChaos} found. */
export type ResumeChaosReport = {
  seed: number;
  kills: ChaosKill[];
  /** Files compared (both runs), JSONL lines checked. */
  files: number;
  jsonlLines: number;
  /** Empty when the runs are identical. */
  differences: string[];
  identical: boolean;
  referenceSeconds: number;
  chaosSeconds: number;
};

/** A seeded stream (mulberry32): `random()` in [0, 1), `randrange(n)` in [0, n). */
function seededRandom(seed: number): {
  random(): number;
  randrange(n: number): number;
} {
  let state = seed >>> 0;
  const random = () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return { random, randrange: (n) => Math.floor(random() * n) };
}

type TraceEntry = {
  ms: number;
  op: 'write' | 'append' | 'rename';
  path: string;
};

const here = dirname(fileURLToPath(import.meta.url));
const repositoryRoot = join(here, '..', '..');
const hookPath = join(here, 'chaos-kill-hook.ts');
const latestMark = 'checkpoints/latest.json';
const startupMark = runDirectoryLayout.tasks;

function readTrace(path: string): TraceEntry[] {
  if (!existsSync(path)) return [];
  return readFileSync(path, 'utf8')
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => {
      const [ms, op, ...rest] = line.split(' ');
      return {
        ms: Number(ms),
        op: op as TraceEntry['op'],
        path: rest.join(' '),
      };
    });
}

/** Runs one `seal train` child; resolves with how it ended. */
function runChild({
  trainArgs,
  runDirectory,
  cacheDirectory,
  tracePath,
  kill,
  killAfterStartupMs,
}: {
  trainArgs: readonly string[];
  runDirectory: string;
  cacheDirectory: string;
  tracePath: string;
  kill?: { op: string; path: string; nth: number; tear: boolean }[];
  /** SIGKILL this long after the child wrote `tasks.jsonl` (its start-up done). */
  killAfterStartupMs?: number;
}): Promise<{
  code: number | null;
  signal: NodeJS.Signals | null;
  stderr: string;
}> {
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      [
        ...sealCliNodeArguments,
        '--import',
        hookPath,
        sealCliEntry,
        'train',
        ...trainArgs,
        '--run-dir',
        runDirectory,
        '--cache',
        cacheDirectory,
        '--json',
      ],
      {
        cwd: repositoryRoot,
        stdio: ['ignore', 'pipe', 'pipe'],
        env: {
          ...process.env,
          SEAL_CHAOS_RUN_DIR: runDirectory,
          SEAL_CHAOS_TRACE: tracePath,
          ...(kill ? { SEAL_CHAOS_KILL: JSON.stringify(kill) } : {}),
        },
      },
    );
    // The tail of both streams (with --json, errors go to stdout).
    let stderr = '';
    const keep = (chunk: Buffer) => {
      stderr = (stderr + chunk.toString('utf8')).slice(-4000);
    };
    child.stdout!.on('data', keep);
    child.stderr!.on('data', keep);
    let timer: NodeJS.Timeout | undefined;
    let poll: NodeJS.Timeout | undefined;
    if (killAfterStartupMs !== undefined) {
      // Watch the trace for the start-up mark, then arm the timer.
      let size = 0;
      poll = setInterval(() => {
        const now = existsSync(tracePath) ? statSync(tracePath).size : 0;
        if (now === size) return;
        size = now;
        if (
          readTrace(tracePath).some(
            (entry) => entry.op === 'rename' && entry.path === startupMark,
          )
        ) {
          clearInterval(poll);
          poll = undefined;
          timer = setTimeout(() => child.kill('SIGKILL'), killAfterStartupMs);
        }
      }, 5);
    }
    child.once('error', reject);
    child.once('exit', (code, signal) => {
      if (poll) clearInterval(poll);
      if (timer) clearTimeout(timer);
      resolve({ code, signal, stderr });
    });
  });
}

/** The category of a write, for drawing kill points by kind. */
function categoryOf(entry: TraceEntry): Exclude<ChaosKill['kind'], 'time'> {
  if (entry.path.startsWith('checkpoints/step-')) return 'checkpoint';
  if (entry.op === 'append') return 'append';
  if (entry.op === 'rename') return 'rename';
  return 'write';
}

/** The phase a point of the uninterrupted run lies in, named by the next write. */
function phaseAt(
  trace: readonly TraceEntry[],
  index: number,
  ms?: number,
): string {
  const next =
    ms === undefined ? trace[index] : trace.find((entry) => entry.ms >= ms);
  if (!next) return 'end of the run';
  if (ms === undefined) return `${next.op} ${next.path}`;
  if (/^episodes\/eval-/.test(next.path)) return 'evaluation rollouts';
  if (/^episodes\/(step|baseline)-/.test(next.path))
    return 'rollouts or the update';
  if (next.path.startsWith('checkpoints/')) return 'checkpoint write';
  return `before ${next.op} ${next.path}`;
}

/** Every file under `root`, relative, sorted. */
async function listFiles(root: string): Promise<string[]> {
  const files: string[] = [];
  const walk = async (directory: string) => {
    for (const entry of await readdir(directory, { withFileTypes: true })) {
      const path = join(directory, entry.name);
      if (entry.isDirectory()) await walk(path);
      else files.push(relative(root, path));
    }
  };
  if (existsSync(root)) await walk(root);
  return files.sort();
}

/** JSON with `timing` fields removed at any depth. */
function withoutTimings(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutTimings);
  if (value && typeof value === 'object') {
    return Object.fromEntries(
      Object.entries(value)
        .filter(([key]) => key !== 'timing')
        .map(([key, inner]) => [key, withoutTimings(inner)]),
    );
  }
  return value;
}

/** Compares two finished run directories; returns the differences. */
export async function compareRunDirectories({
  reference,
  candidate,
}: {
  reference: string;
  candidate: string;
}): Promise<{ differences: string[]; files: number; jsonlLines: number }> {
  const differences: string[] = [];
  const referenceFiles = await listFiles(reference);
  const candidateFiles = await listFiles(candidate);
  const referenceSet = new Set(referenceFiles);
  const candidateSet = new Set(candidateFiles);
  for (const file of referenceFiles)
    if (!candidateSet.has(file))
      differences.push(`missing after the kills: ${file}`);
  for (const file of candidateFiles)
    if (!referenceSet.has(file))
      differences.push(`left over after the kills: ${file}`);
  let jsonlLines = 0;
  for (const file of candidateFiles) {
    const bytes = await readFile(join(candidate, file));
    if (file.endsWith('.jsonl')) {
      const text = bytes.toString('utf8');
      if (text !== '' && !text.endsWith('\n'))
        differences.push(`${file}: last line torn (no newline)`);
      // Every line JSON (a torn one is a warning), none twice.
      const { lines, warnings } = safeParseJsonLines({
        text,
        source: file,
        schema: z.unknown(),
      });
      jsonlLines += lines.length + warnings.length;
      for (const warning of warnings)
        differences.push(
          `torn line: ${warning.type === 'other' ? warning.message : ''}`,
        );
      const seen = new Set<string>();
      for (const line of lines) {
        if (seen.has(line.text))
          differences.push(`${file}:${line.lineNumber}: duplicated line`);
        seen.add(line.text);
      }
    }
    if (!referenceSet.has(file)) continue;
    const expected = await readFile(join(reference, file));
    if (file === runDirectoryLayout.events) {
      const parse = (text: string) =>
        parseJsonLines({ text, source: file, schema: z.unknown() }).map(
          (value) => JSON.stringify(withoutTimings(value)),
        );
      let ours: string[] = [];
      try {
        ours = parse(bytes.toString('utf8'));
      } catch {
        continue; // reported above as torn
      }
      const theirs = parse(expected.toString('utf8'));
      if (ours.length !== theirs.length)
        differences.push(
          `events.jsonl: ${ours.length} events, uninterrupted run ${theirs.length}`,
        );
      const at = ours.findIndex((line, index) => line !== theirs[index]);
      if (at >= 0)
        differences.push(
          `events.jsonl:${at + 1}: differs modulo timings: ${ours[at]!.slice(0, 160)} vs ${String(theirs[at]).slice(0, 160)}`,
        );
    } else if (!bytes.equals(expected)) {
      differences.push(
        `${file}: bytes differ (${bytes.length} vs ${expected.length})`,
      );
    }
  }
  return { differences, files: candidateFiles.length, jsonlLines };
}

/**
 * Runs the chaos test in `root` (made if missing): the uninterrupted run
 * first (it also fills the warm-start cache both share), then the run that
 * is killed `kills` times and resumed until it finishes, then the
 * comparison.
 */
export async function runResumeChaos({
  root,
  kills,
  seed,
  trainArgs = ['--preset', 'smoke'],
  cacheDirectory = join(root, 'cache'),
  kinds,
  onLog,
}: {
  root: string;
  kills: number;
  seed: number;
  trainArgs?: readonly string[];
  cacheDirectory?: string;
  /** The kind of each kill in turn (default: drawn, time twice as often as each write kind). */
  kinds?: readonly ChaosKill['kind'][];
  onLog?: (line: string) => void;
}): Promise<ResumeChaosReport> {
  await mkdir(root, { recursive: true });
  const referenceDirectory = join(root, 'uninterrupted');
  const chaosDirectory = join(root, 'killed');
  await rm(referenceDirectory, { recursive: true, force: true });
  await rm(chaosDirectory, { recursive: true, force: true });
  const random = seededRandom(seed);

  let started = performance.now();
  const referenceTracePath = join(root, 'uninterrupted.trace');
  await rm(referenceTracePath, { force: true });
  const reference = await runChild({
    trainArgs,
    runDirectory: referenceDirectory,
    cacheDirectory,
    tracePath: referenceTracePath,
  });
  if (reference.code !== 0)
    throw new Error(
      `the uninterrupted run failed (exit ${reference.code ?? reference.signal}): ${reference.stderr}`,
    );
  const referenceSeconds = (performance.now() - started) / 1000;
  const trace = readTrace(referenceTracePath);
  const startup = trace.findIndex(
    (entry) => entry.op === 'rename' && entry.path === startupMark,
  );
  const marks = trace.flatMap((entry, index) =>
    entry.op === 'rename' && entry.path === latestMark ? [index] : [],
  );
  onLog?.(
    `uninterrupted run: ${referenceSeconds.toFixed(1)} s, ${trace.length} writes, ${marks.length} checkpoints`,
  );

  const drawn: ChaosKill['kind'][] = [
    'time',
    'time',
    'checkpoint',
    'append',
    'write',
    'rename',
  ];
  const done: ChaosKill[] = [];
  started = performance.now();
  for (let index = 1; index <= kills; index++) {
    const latestPath = join(chaosDirectory, latestMark);
    const resumedFrom = existsSync(latestPath)
      ? (JSON.parse(readFileSync(latestPath, 'utf8')) as { step: number }).step
      : 0;
    // The uninterrupted run's writes this attempt redoes: after the mark of
    // its checkpoint (or the start-up), up to the last mark.
    const from = resumedFrom === 0 ? startup : marks[resumedFrom - 1]!;
    const last = marks[marks.length - 1]!;
    const remaining = trace
      .slice(from + 1, last + 1)
      .map((entry, offset) => ({ entry, at: from + 1 + offset }));
    const pick = drawn[random.randrange(drawn.length)]!;
    const kind = kinds ? kinds[(index - 1) % kinds.length]! : pick;
    const tracePath = join(root, `killed-${index}.trace`);
    await rm(tracePath, { force: true });
    const nthOf = (at: number) =>
      trace
        .slice(from + 1, at + 1)
        .filter(
          (entry) =>
            entry.op === trace[at]!.op && entry.path === trace[at]!.path,
        ).length;
    // Should the child get past its kill point, it dies before marking its last checkpoint.
    const beforeLastMark = {
      op: 'rename',
      path: latestMark,
      nth: marks.length - resumedFrom,
      tear: false,
    };
    let kill: ChaosKill;
    let outcome;
    if (kind === 'time') {
      const begin = trace[from]!.ms;
      const end = trace[last]!.ms;
      const ms = begin + random.random() * (end - begin);
      kill = {
        index,
        kind,
        target: `${((ms - begin) / 1000).toFixed(2)} s after start-up`,
        torn: false,
        resumedFrom,
        phase: phaseAt(trace, 0, ms),
        killed: false,
        lastWrite: '',
      };
      outcome = await runChild({
        trainArgs,
        runDirectory: chaosDirectory,
        cacheDirectory,
        tracePath,
        kill: [beforeLastMark],
        killAfterStartupMs: ms - begin,
      });
    } else {
      let pool = remaining.filter(({ entry }) => categoryOf(entry) === kind);
      if (pool.length === 0) pool = remaining;
      const { entry, at } = pool[random.randrange(pool.length)]!;
      const torn = entry.op !== 'rename' && random.random() < 0.5;
      kill = {
        index,
        kind,
        target: `${entry.op} ${entry.path}`,
        torn,
        resumedFrom,
        phase: phaseAt(trace, at),
        killed: false,
        lastWrite: '',
      };
      outcome = await runChild({
        trainArgs,
        runDirectory: chaosDirectory,
        cacheDirectory,
        tracePath,
        kill: [
          { op: entry.op, path: entry.path, nth: nthOf(at), tear: torn },
          beforeLastMark,
        ],
      });
    }
    kill.killed = outcome.signal === 'SIGKILL';
    const written = readTrace(tracePath).at(-1);
    kill.lastWrite = written ? `${written.op} ${written.path}` : '(none)';
    if (!kill.killed && outcome.code !== 0)
      throw new Error(
        `kill ${index}: the resumed run failed (exit ${outcome.code}): ${outcome.stderr}`,
      );
    done.push(kill);
    onLog?.(
      `kill ${index}: ${kill.kind}${kill.torn ? ' (torn)' : ''} ${kill.target}; resumed from step ${resumedFrom}; ${kill.phase}; last write begun: ${kill.lastWrite}${kill.killed ? '' : '; NOT KILLED (finished first)'}`,
    );
  }
  const final = await runChild({
    trainArgs,
    runDirectory: chaosDirectory,
    cacheDirectory,
    tracePath: join(root, 'killed-final.trace'),
  });
  if (final.code !== 0)
    throw new Error(
      `the final resume failed (exit ${final.code ?? final.signal}): ${final.stderr}`,
    );
  const chaosSeconds = (performance.now() - started) / 1000;
  const { differences, files, jsonlLines } = await compareRunDirectories({
    reference: referenceDirectory,
    candidate: chaosDirectory,
  });
  return {
    seed,
    kills: done,
    files,
    jsonlLines,
    differences,
    identical: differences.length === 0,
    referenceSeconds,
    chaosSeconds,
  };
}

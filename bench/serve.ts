/**
 * `pnpm bench serve [--seconds 120] [--concurrency 64] [--rate 5000|max] [--workers N] [--data DIR] [--url URL]`:
 * a load test of `seal serve`. Starts the server as a child process (`seal
 * serve --port 0 --json`, with `--workers N` passed on) unless `--url` names a running one, replays the
 * ground truth of the 400 evaluation entries once alone (reference
 * transcripts), then keeps `--concurrency` episodes running on loopback for
 * `--seconds`: ground-truth replays as Qwen `<tool_call>` JSON, with
 * adversarial requests mixed in (malformed calls, unknown tools, bad JSON,
 * unknown instance ids, bodies over the limit).
 *
 * `--rate` is the offered load in steps per second over all episodes (default
 * 5,000, the service's goal): each episode sends its steps at the times of a
 * seeded Poisson process, as a trainer whose policy takes a while to answer
 * would, and a step's latency is counted from the time it was due, not from
 * when it was sent, so a server that falls behind is charged for the wait
 * (no coordinated omission). `--rate max` sends each step as soon as the
 * last one is answered: the throughput at saturation, where the latency is
 * by Little's law the number of episodes over the throughput.
 *
 * Every verdict is checked, and
 * every observation is compared with the reference transcript, so a state
 * leaking between episodes shows up. Prints throughput and step latency
 * percentiles; exits 1 on any error, leak or wrong verdict.
 *
 * The client is written from SEAL's wire shapes (spec §7.2); it imports
 * nothing from `@seal/server`.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { availableParallelism, loadavg } from 'node:os';
import { dirname, join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { createInterface } from 'node:readline';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { LeanHttpConnection } from './_http-client';
import { loadBfclData, resolveBfclDataDir } from '@seal/bfcl';
import { sharedBfclDataDir } from '@seal/bfcl/test';
import {
  PyDict,
  parseCallString,
  pyJsonDumps,
  type PyValue,
} from '@seal/python';
import { benchFlags } from './_args';
import { sealCliEntry, sealCliNodeArguments } from './_cli';

const flags = benchFlags([
  'seconds',
  'concurrency',
  'adversarial',
  'rate',
  'data',
  'url',
  'workers',
]);
const flag = flags.value;
const seconds = Number(flag('seconds') ?? 120);
const concurrency = Number(flag('concurrency') ?? 64);
const adversarialRate = Number(flag('adversarial') ?? 0.05);
const rateFlag = flag('rate') ?? '5000';
/** Offered steps per second over all episodes; undefined: as fast as answered. */
const offeredRate = rateFlag === 'max' ? undefined : Number(rateFlag);
if (
  offeredRate !== undefined &&
  (!Number.isFinite(offeredRate) || offeredRate <= 0)
) {
  throw Object.assign(
    new Error(
      `--rate must be a positive number of steps per second or 'max', got '${rateFlag}'`,
    ),
    { code: 'INVALID_ARGUMENT' },
  );
}
const serverWorkers = flag('workers');
const dir = resolveBfclDataDir({
  flag: flag('data') ?? process.env['SEAL_BFCL_DATA'] ?? sharedBfclDataDir,
});
const dataset = await loadBfclData({ dir });
const taskIds = dataset.split?.eval ?? dataset.entries.map((entry) => entry.id);
/** Entries whose ground truth cannot pass (see packages/server/src/replay.test.ts). */
const unpassable = new Set(['multi_turn_base_154', 'multi_turn_miss_func_49']);

// ---------------------------------------------------------------- server --
const root = join(dirname(fileURLToPath(import.meta.url)), '..');
let child: ChildProcess | undefined;
let url = flag('url');
if (url === undefined) {
  child = spawn(
    process.execPath,
    [
      ...sealCliNodeArguments,
      sealCliEntry,
      'serve',
      '--port',
      '0',
      '--json',
      '--data',
      dir,
      ...(serverWorkers === undefined ? [] : ['--workers', serverWorkers]),
    ],
    { cwd: root, stdio: ['ignore', 'pipe', 'inherit'] },
  );
  const lines = createInterface({ input: child.stdout! });
  url = await new Promise<string>((resolve, reject) => {
    child!.once('exit', (code) =>
      reject(new Error(`seal serve exited with ${code}`)),
    );
    lines.on('line', (line) => {
      const event = JSON.parse(line) as { event: string; url?: string };
      if (event.event === 'listening' && event.url) resolve(event.url);
    });
  });
}
const baseUrl = new URL(url);
const connections: LeanHttpConnection[] = [];
const openConnection = () => {
  const connection = new LeanHttpConnection(
    baseUrl.hostname,
    Number(baseUrl.port),
  );
  connections.push(connection);
  return connection;
};

// Wire JSON, read field by field where it is checked.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Answer = { status: number; body: any };

async function post(
  connection: LeanHttpConnection,
  endpoint: string,
  body: unknown,
): Promise<Answer> {
  const text =
    typeof body === 'string' || Buffer.isBuffer(body)
      ? body
      : JSON.stringify(body);
  const answer = await connection.post(`/${endpoint}`, text);
  let parsed: unknown = answer.text;
  try {
    parsed = JSON.parse(answer.text);
  } catch {
    // keep the text
  }
  return { status: answer.status, body: parsed };
}

// ---------------------------------------------------------------- client --
type WireMessage = { role: string; content: string };

function readToolParameters(text: string, into: Map<string, string[]>): void {
  for (const line of text.split('\n')) {
    const trimmed = line.trim();
    if (!trimmed.startsWith('{') || !trimmed.includes('"function"')) continue;
    try {
      const tool = JSON.parse(trimmed) as {
        function?: { name?: string; parameters?: { properties?: object } };
      };
      if (tool.function?.name)
        into.set(
          tool.function.name,
          Object.keys(tool.function.parameters?.properties ?? {}),
        );
    } catch {
      // not a tool line
    }
  }
}

function toolCall(
  callText: string,
  parameters: ReadonlyMap<string, string[]>,
): string {
  const parsed = parseCallString(callText);
  if (!parsed.success) throw new Error(`cannot parse ${callText}`);
  const { name, args, kwargs } = parsed.value;
  const order = parameters.get(name) ?? [];
  const entries: [string, PyValue][] = [
    ...args.map((value, i): [string, PyValue] => [order[i]!, value]),
    ...kwargs,
  ];
  return `<tool_call>\n{"name": ${JSON.stringify(name)}, "arguments": ${pyJsonDumps(new PyDict(entries), { ensureAscii: false })}}\n</tool_call>`;
}

const stats = {
  /** Step latencies under load, from the time each step was due. */
  stepMs: [] as number[],
  /** The same steps from the time they were sent (the server's share). */
  stepSentMs: [] as number[],
  /** Steps answered within the load window (the rate is counted over it). */
  stepsInWindow: 0,
  /** Step latencies of the reference pass (one episode at a time). */
  soloStepMs: [] as number[],
  createMs: [] as number[],
  evaluateMs: [] as number[],
  requests: 0,
  episodes: 0,
  errors: [] as string[],
  leaks: [] as string[],
  verdicts: [] as string[],
  adversarial: {} as Record<string, number>,
};
const fail = (list: string[], message: string) => {
  if (list.length < 20) list.push(message);
  else list.push('…');
};

const adversarialKinds = [
  'malformed-call',
  'unknown-tool',
  'bad-json',
  'unknown-instance',
  'missing-content',
  'oversize',
] as const;
/** Encoded once: the load generator's CPU is taken from the server's cores. */
const oversizeBody = Buffer.from(
  JSON.stringify({
    instance_id: 'x',
    messages: { role: 'assistant', content: 'x'.repeat(1_100_000) },
  }),
);

/** One adversarial request; checks that it is answered as specified and changes nothing. */
async function adversarial(
  connection: LeanHttpConnection,
  instanceId: string,
  pick: number,
): Promise<void> {
  // Bodies over the limit are costly to send: one in twenty adversarial requests.
  const kind =
    pick < 0.05 ? 'oversize' : adversarialKinds[Math.floor(pick * 5) % 5]!;
  stats.adversarial[kind] = (stats.adversarial[kind] ?? 0) + 1;
  stats.requests++;
  const step = (content: unknown) =>
    post(connection, 'step', {
      env_type: 'bfcl',
      instance_id: instanceId,
      messages: { role: 'assistant', content },
      params: {},
    });
  let answer: Answer;
  let expected: number;
  switch (kind) {
    case 'malformed-call':
      answer = await step(
        '<tool_call>\n{"name": "cd", "arguments": {"folder": \n</tool_call>',
      );
      expected = 200;
      if (
        answer.status === 200 &&
        !String(answer.body?.data?.state?.[0]?.content).startsWith(
          '[ERROR] Invalid tool call format',
        )
      ) {
        fail(
          stats.errors,
          `${instanceId}: malformed call not reported: ${JSON.stringify(answer.body).slice(0, 200)}`,
        );
      }
      break;
    case 'unknown-tool':
      answer = await step(
        '<tool_call>\n{"name": "format_disk", "arguments": {}}\n</tool_call>',
      );
      expected = 200;
      if (
        answer.status === 200 &&
        answer.body?.data?.info?.bfcl_error_type !== 'invalid_tool_call'
      ) {
        fail(
          stats.errors,
          `${instanceId}: unknown tool not refused: ${JSON.stringify(answer.body).slice(0, 200)}`,
        );
      }
      break;
    case 'bad-json':
      answer = await post(
        connection,
        'step',
        `{"instance_id": "${instanceId}", "messages": {`,
      );
      expected = 400;
      break;
    case 'unknown-instance':
      answer = await post(connection, 'step', {
        instance_id: `${instanceId}-ghost`,
        messages: { role: 'assistant', content: 'hi' },
      });
      expected = 404;
      break;
    case 'missing-content':
      answer = await post(connection, 'step', {
        instance_id: instanceId,
        messages: { role: 'assistant' },
      });
      expected = 400;
      break;
    case 'oversize':
      answer = await post(connection, 'step', oversizeBody);
      expected = 413;
      break;
  }
  if (answer.status !== expected)
    fail(
      stats.errors,
      `${instanceId}: ${kind}: HTTP ${answer.status}, expected ${expected}`,
    );
  if (expected === 200 && answer.body?.data?.is_terminated)
    fail(stats.errors, `${instanceId}: ${kind} ended the episode`);
}

let sequence = 0;
/** A deterministic pseudo-random stream (so runs are comparable). */
let seed = 0x5eed;
const random = () => {
  seed = (seed * 1103515245 + 12345) & 0x7fffffff;
  return seed / 0x80000000;
};

/** What one episode sent and saw. */
type Replay = { script: string[]; transcript: string[] };

/**
 * Replays one task's ground truth and returns the messages it sent and the
 * observations it saw. With a `script` (from the reference pass) it sends
 * exactly those messages, so the client stays cheap under load.
 */
async function episode(
  taskId: string,
  {
    measure,
    adversarialP,
    script,
    connection,
    due,
  }: {
    measure: boolean;
    adversarialP: number;
    script?: readonly string[];
    connection: LeanHttpConnection;
    /** When the next step is due (ms, `performance.now()`); none: at once. */
    due?: () => number;
  },
): Promise<Replay> {
  const instanceId = `bench-${process.pid}-${sequence++}`;
  const mode = sequence % 2 === 0 ? 'validate' : 'sample';
  let started = performance.now();
  const created = await post(connection, 'create', {
    env_type: 'bfcl',
    task_id: taskId,
    instance_id: instanceId,
    messages: {},
    params: {
      rollout_mode: mode,
      observation_lite: { enable: true, apply_to_validation: false },
    },
  });
  if (measure) stats.createMs.push(performance.now() - started);
  stats.requests++;
  if (created.status !== 200)
    throw new Error(
      `create ${taskId}: HTTP ${created.status} ${JSON.stringify(created.body).slice(0, 200)}`,
    );
  const parameters = new Map<string, string[]>();
  if (!script)
    for (const message of created.body.data.state as WireMessage[])
      readToolParameters(message.content, parameters);
  const sent: string[] = [];
  const transcript: string[] = [];
  let terminated = false;
  let reward = -1;
  const send = async (content: string) => {
    // An adversarial request goes out in the time before the step is due.
    if (adversarialP > 0 && random() < adversarialP)
      await adversarial(connection, instanceId, random());
    // A step is charged from when it was due or, if the last answer came
    // later, from that answer (the wait the server caused), not from when a
    // late timer let it go out (the client's own delay).
    const ready = performance.now();
    const dueAt = due?.();
    if (dueAt !== undefined && dueAt > ready) await sleep(dueAt - ready);
    const chargedFrom =
      dueAt === undefined ? undefined : Math.max(dueAt, ready);
    sent.push(content);
    started = performance.now();
    const answer = await post(connection, 'step', {
      env_type: 'bfcl',
      instance_id: instanceId,
      messages: { role: 'assistant', content },
      params: {},
    });
    const answered = performance.now();
    if (measure) {
      if (answered <= deadline) stats.stepsInWindow++;
      stats.stepMs.push(answered - Math.min(chargedFrom ?? started, started));
      stats.stepSentMs.push(answered - started);
    } else {
      stats.soloStepMs.push(answered - started);
    }
    stats.requests++;
    if (answer.status !== 200)
      throw new Error(
        `step ${taskId}: HTTP ${answer.status} ${JSON.stringify(answer.body).slice(0, 200)}`,
      );
    const data = answer.body.data as {
      state: WireMessage[];
      reward: number;
      is_terminated: boolean;
    };
    for (const message of data.state) {
      transcript.push(message.content);
      if (!script) readToolParameters(message.content, parameters);
    }
    terminated = data.is_terminated;
    reward = data.reward;
  };
  if (script) {
    for (const content of script) {
      if (terminated)
        fail(stats.leaks, `${taskId}: terminated before its script ended`);
      await send(content);
    }
  } else {
    const groundTruth = dataset.byId.get(taskId)!.groundTruth;
    for (let turn = 0; !terminated && turn < 64; turn++) {
      for (const call of groundTruth[turn] ?? []) {
        await send(toolCall(call, parameters));
        if (terminated) break;
      }
      if (!terminated) await send('The request has been handled.');
    }
  }
  if (!terminated) fail(stats.verdicts, `${taskId}: did not terminate`);
  started = performance.now();
  const evaluation = await post(connection, 'evaluate', {
    env_type: 'bfcl',
    instance_id: instanceId,
    messages: {},
    params: { sparse: true },
  });
  if (measure) stats.evaluateMs.push(performance.now() - started);
  const released = await post(connection, 'release', {
    env_type: 'bfcl',
    instance_id: instanceId,
    messages: {},
    params: {},
  });
  stats.requests += 2;
  const expected = unpassable.has(taskId) ? 0 : 1;
  if (
    evaluation.status !== 200 ||
    evaluation.body.data !== expected ||
    reward !== expected
  ) {
    fail(
      stats.verdicts,
      `${taskId}: accuracy ${JSON.stringify(evaluation.body?.data)}, reward ${reward}, expected ${expected}`,
    );
  }
  if (released.body?.success !== true)
    fail(
      stats.errors,
      `${taskId}: release answered ${JSON.stringify(released.body)}`,
    );
  stats.episodes++;
  return { script: sent, transcript };
}

// ------------------------------------------------------------------- run --
/** Nearest-rank percentile of an ascending list. */
const percentile = (sorted: Float64Array, p: number) =>
  sorted.length === 0
    ? Number.NaN
    : sorted[
        Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)
      ]!;

process.stderr.write(
  `reference pass: ${taskIds.length} entries, one at a time, on ${url}\n`,
);
const reference = new Map<string, Replay>();
const referenceConnection = openConnection();
const referenceStart = performance.now();
for (const taskId of taskIds)
  reference.set(
    taskId,
    await episode(taskId, {
      measure: false,
      adversarialP: 0,
      connection: referenceConnection,
    }),
  );
const referenceSeconds = (performance.now() - referenceStart) / 1000;
stats.episodes = 0;
stats.requests = 0;

process.stderr.write(
  `load: ${concurrency} concurrent episodes for ${seconds} s\n`,
);
const deadline = performance.now() + seconds * 1000;
/** CPU seconds the server process has used (Linux), to separate service time from queueing. */
const serverCpuSeconds = (): number | undefined => {
  if (!child?.pid) return undefined;
  try {
    const fields = readFileSync(`/proc/${child.pid}/stat`, 'utf8')
      .split(') ')[1]!
      .split(' ');
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return undefined;
  }
};
const cpuAtStart = serverCpuSeconds();
/** The load generator's own CPU time, to show what the client costs beside the server. */
const clientCpuAtStart = process.cpuUsage();
const loadAverageAtStart = loadavg();
const loadStart = performance.now();
let next = 0;
let active = 0;
let peakActive = 0;
const progress = setInterval(() => {
  process.stderr.write(
    `  ${((performance.now() - loadStart) / 1000).toFixed(0)} s: ${stats.episodes} episodes, ${stats.stepMs.length} steps, ${active} active\n`,
  );
}, 15_000);
await Promise.all(
  Array.from({ length: concurrency }, async (_, worker) => {
    // Workers start spread over the tasks, so the same task runs in several at once too.
    next = Math.max(next, worker);
    const connection = openConnection();
    // Each episode's steps fall due at the times of a Poisson process of
    // rate offeredRate / concurrency, seeded by the worker's index.
    // splitmix32 draws, two per 53-bit uniform in [0, 1).
    let state = (worker + 1) >>> 0;
    const draw = () => {
      state = (state + 0x9e3779b9) >>> 0;
      let z = state;
      z = Math.imul(z ^ (z >>> 16), 0x85ebca6b) >>> 0;
      z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35) >>> 0;
      return (z ^ (z >>> 16)) >>> 0;
    };
    const uniform = () => (draw() * 2 ** 21 + (draw() >>> 11)) / 2 ** 53;
    const meanGapMs =
      offeredRate === undefined ? 0 : (1000 * concurrency) / offeredRate;
    let nextDue = loadStart;
    const due =
      offeredRate === undefined
        ? undefined
        : () => (nextDue += -Math.log(1 - uniform()) * meanGapMs);
    while (performance.now() < deadline) {
      const taskId = taskIds[next++ % taskIds.length]!;
      active++;
      peakActive = Math.max(peakActive, active);
      try {
        const { script, transcript: expected } = reference.get(taskId)!;
        const { transcript } = await episode(taskId, {
          measure: true,
          adversarialP: adversarialRate,
          script,
          connection,
          ...(due ? { due } : {}),
        });
        if (
          transcript.length !== expected.length ||
          transcript.some((text, i) => text !== expected[i])
        ) {
          const at = transcript.findIndex((text, i) => text !== expected[i]);
          fail(
            stats.leaks,
            `${taskId}: observation ${at} differs from the reference: ${String(transcript[at]).slice(0, 120)}`,
          );
        }
      } catch (error) {
        fail(stats.errors, (error as Error).message);
      } finally {
        active--;
      }
    }
  }),
);
clearInterval(progress);
const loadSeconds = (performance.now() - loadStart) / 1000;
const cpuAtEnd = serverCpuSeconds();
const clientCpu = process.cpuUsage(clientCpuAtStart);
const loadAverageAtEnd = loadavg();
const serverCpuPerRequest =
  cpuAtStart === undefined || cpuAtEnd === undefined
    ? 'n/a'
    : `${(((cpuAtEnd - cpuAtStart) * 1000) / stats.requests).toFixed(3)} ms (server ${(((cpuAtEnd - cpuAtStart) / loadSeconds) * 100).toFixed(0)}% of one core)`;

let serverRss = 'n/a';
if (child?.pid) {
  try {
    const status = readFileSync(`/proc/${child.pid}/status`, 'utf8');
    serverRss = `${(Number(/VmHWM:\s+(\d+)/.exec(status)?.[1] ?? 0) / 1024).toFixed(0)} MiB peak`;
  } catch {
    // not Linux
  }
}
child?.kill('SIGTERM');
for (const connection of connections) connection.close();

const ms = (value: number) => value.toFixed(2);
const stepSorted = Float64Array.from(stats.stepMs).sort();
const stepSentSorted = Float64Array.from(stats.stepSentMs).sort();
const createSorted = Float64Array.from(stats.createMs).sort();
const evaluateSorted = Float64Array.from(stats.evaluateMs).sort();
const soloSorted = Float64Array.from(stats.soloStepMs).sort();
const adversarialTotal = Object.values(stats.adversarial).reduce(
  (sum, count) => sum + count,
  0,
);
console.log(
  `\nseal serve load test: ${concurrency} concurrent episodes, ${loadSeconds.toFixed(1)} s on ${url} (peak ${peakActive} in flight), offered ${offeredRate === undefined ? 'as fast as answered (--rate max)' : `${offeredRate} steps/s (Poisson, latency from when each step was due)`}`,
);
console.log(
  `reference pass: ${taskIds.length} episodes alone in ${referenceSeconds.toFixed(1)} s`,
);
console.log('');
console.log('| metric | value |');
console.log('| --- | ---: |');
console.log(`| episodes completed | ${stats.episodes} |`);
console.log(`| episodes/s | ${(stats.episodes / loadSeconds).toFixed(1)} |`);
console.log(`| requests (all endpoints) | ${stats.requests} |`);
console.log(`| requests/s | ${(stats.requests / loadSeconds).toFixed(0)} |`);
console.log(`| steps | ${stats.stepMs.length} |`);
console.log(
  `| steps/s (answered within the ${seconds} s window) | ${(stats.stepsInWindow / seconds).toFixed(0)} (offered ${offeredRate ?? 'max'}) |`,
);
console.log(
  `| step p50 / p95 / p99 / max (ms)${offeredRate === undefined ? '' : ', from when due'} | ${ms(percentile(stepSorted, 50))} / ${ms(percentile(stepSorted, 95))} / ${ms(percentile(stepSorted, 99))} / ${ms(stepSorted[stepSorted.length - 1] ?? Number.NaN)} |`,
);
if (offeredRate !== undefined)
  console.log(
    `| step p50 / p99 / max from when sent (ms) | ${ms(percentile(stepSentSorted, 50))} / ${ms(percentile(stepSentSorted, 99))} / ${ms(stepSentSorted[stepSentSorted.length - 1] ?? Number.NaN)} |`,
  );
console.log(
  `| step p50 / p99 alone, reference pass (ms) | ${ms(percentile(soloSorted, 50))} / ${ms(percentile(soloSorted, 99))} |`,
);
console.log(
  `| create p50 / p99 (ms) | ${ms(percentile(createSorted, 50))} / ${ms(percentile(createSorted, 99))} |`,
);
console.log(
  `| evaluate p50 / p99 (ms) | ${ms(percentile(evaluateSorted, 50))} / ${ms(percentile(evaluateSorted, 99))} |`,
);
console.log(
  `| adversarial requests | ${adversarialTotal} (${Object.entries(
    stats.adversarial,
  )
    .map(([kind, count]) => `${kind} ${count}`)
    .join(', ')}) |`,
);
console.log(`| server CPU per request | ${serverCpuPerRequest} |`);
console.log(`| server memory | ${serverRss} |`);
console.log(
  `| load generator CPU per request | ${((clientCpu.user + clientCpu.system) / 1000 / stats.requests).toFixed(3)} ms (its own process) |`,
);
console.log(
  `| machine load average (1 min) at start / end | ${loadAverageAtStart[0]!.toFixed(2)} / ${loadAverageAtEnd[0]!.toFixed(2)} on ${availableParallelism()} cores |`,
);
console.log(
  `| server worker threads | ${serverWorkers ?? 'default (the cores less one)'} |`,
);
console.log(
  `| client connections opened | ${connections.reduce((sum, connection) => sum + connection.opened, 0)} for ${connections.length} episodes in flight (keep-alive) |`,
);
console.log(
  `| errors / leaks / wrong verdicts | ${stats.errors.length} / ${stats.leaks.length} / ${stats.verdicts.length} |`,
);
for (const [name, list] of [
  ['error', stats.errors],
  ['leak', stats.leaks],
  ['verdict', stats.verdicts],
] as const) {
  for (const message of list) console.log(`${name}: ${message}`);
}
process.exitCode =
  stats.errors.length + stats.leaks.length + stats.verdicts.length === 0
    ? 0
    : 1;

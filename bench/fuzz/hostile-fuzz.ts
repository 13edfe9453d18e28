import { existsSync, rmSync } from 'node:fs';
import { Agent, request as httpRequest } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  BfclRealm,
  BfclSession,
  bfclClassNames,
  bfclClassRegistry,
  bfclTasks,
  createBfclBackend,
  type BfclDataset,
} from '@seal/bfcl';
import {
  PyDict,
  parseCallSequence,
  parseCallString,
  pyJsonDumps,
  toJsonValue,
  type ParseCallResult,
} from '@seal/python';
import {
  createBfclTaskSource,
  startEnvServer,
  type EnvServer,
} from '@seal/server';
import { verifierV1ResultSchema, type Task } from '@seal/spec';
import { createBfclVerifier } from '@seal/verifier';
import { HostileCorpus, canaryToken } from './hostile-inputs';

/** Options of {@link runHostileFuzz}. */
export type HostileFuzzOptions = {
  /** The BFCL data (ground truth to mutate, tasks, runtime). */
  dataset: BfclDataset;
  /** Inputs to generate. */
  count: number;
  /** Seed of the generator: the same seed and count give the same inputs. */
  seed: number;
  /** Send every input to the HTTP service too (default true). */
  service?: boolean;
  /** Called every `progressEvery` inputs with the report so far. */
  onProgress?: (report: HostileFuzzReport) => void;
  /** Default 10,000. */
  progressEvery?: number;
};

/** What a fuzz run saw; every failure count must be 0. */
export type HostileFuzzReport = {
  seed: number;
  inputs: number;
  parser: { calls: number; accepted: number };
  executor: { calls: number; ok: number; raised: number; rejected: number };
  verifier: { trajectories: number; calls: number };
  service: {
    requests: number;
    byStatus: Record<string, number>;
    /** Answers with a 5xx status. */
    serverErrors: number;
    /** Requests that got no HTTP answer (connection reset, server gone). */
    transportErrors: number;
    /** Instances alive when the inputs ran out (one per protocol: nothing leaked). */
    liveInstancesAtEnd: number;
  };
  /** Times code from an input ran (the canary fired, or the canary file appeared). */
  codeExecutions: number;
  /** Exceptions that escaped the parser, executor or verifier, or reached the process. */
  uncaughtExceptions: number;
  /** Inputs that took a component longer than {@link slowInputMs} (a denial of service). */
  slowInputs: number;
  /** The longest time one input took in the local components, and one HTTP request. */
  slowestMs: { local: number; request: number };
  /** The start of the input behind {@link slowestMs}.local (for a diagnosis). */
  slowestLocalInput: string;
  /** Properties added to `Object.prototype` or `Array.prototype` during the run. */
  prototypePollution: string[];
  /** The first failures, each with the input that caused it (truncated). */
  failures: string[];
  corpusSize: number;
  signatures: number;
  memory: {
    startHeapMiB: number;
    peakHeapMiB: number;
    endHeapMiB: number;
    peakRssMiB: number;
  };
  durationMs: number;
};

type Answer = { status: number; text: string };

/**
 * One input may not take the local components (parser, executor, verifier)
 * longer than this: inputs are at most about 1 MB, and every path is meant to
 * be linear in them (the largest, legitimately, takes about 0.5 s on a loaded
 * 2-core machine). Generous, so that a loaded machine does not fail the run.
 */
export const slowInputMs = 4_000;

/** Likewise for one HTTP request (the protocols parse on the service side). */
export const slowRequestMs = 10_000;

const protocols = [
  'qwen-xml',
  'bfcl-python',
  'envtuning',
  'openai-tools',
] as const;
type Protocol = (typeof protocols)[number];

/** Installs the canary: a global function and wrappers of `eval` and `Function` that count code carrying the token. */
function installCanary(): { fired: () => number; restore: () => void } {
  const scope = globalThis as unknown as Record<string, unknown>;
  let fired = 0;
  const originalEval = globalThis.eval;
  const OriginalFunction = globalThis.Function;
  const carriesToken = (values: readonly unknown[]) =>
    values.some(
      (value) => typeof value === 'string' && value.includes(canaryToken),
    );
  scope[canaryToken] = () => {
    fired++;
  };
  globalThis.eval = ((code: unknown) => {
    if (carriesToken([code])) fired++;
    return originalEval(code as string);
  }) as typeof eval;
  globalThis.Function = new Proxy(OriginalFunction, {
    apply(target, self, args: unknown[]) {
      if (carriesToken(args)) fired++;
      return Reflect.apply(target, self, args);
    },
    construct(target, args: unknown[], newTarget) {
      if (carriesToken(args)) fired++;
      return Reflect.construct(target, args, newTarget);
    },
  });
  return {
    fired: () => fired,
    restore: () => {
      globalThis.eval = originalEval;
      globalThis.Function = OriginalFunction;
      delete scope[canaryToken];
    },
  };
}

function prototypeKeys(): string[] {
  return [
    ...Object.getOwnPropertyNames(Object.prototype).map(
      (key) => `Object.prototype.${key}`,
    ),
    ...Object.getOwnPropertyNames(Array.prototype).map(
      (key) => `Array.prototype.${key}`,
    ),
  ];
}

/** A stable, short description of an outcome: the corpus keeps inputs with new ones. */
function outcomeSignature(parts: readonly string[]): string {
  return parts
    .join('|')
    .replace(/\d+/g, '0')
    .replace(/'[^']*'|"[^"]*"/g, 'S')
    .slice(0, 160);
}

function parseSignature(result: ParseCallResult): string {
  return result.success
    ? `ok:${result.value.args.length}:${result.value.kwargs.length}`
    : `${result.error.kind}:${result.error.message.slice(0, 60)}`;
}

/** The input as the arguments of a tool call in JSON, when it is a literal call; else the raw text under a name. */
function qwenToolCall(
  input: string,
  parsed: ParseCallResult,
  variant: number,
): string {
  let name: string;
  let argumentsJson: string;
  if (parsed.success) {
    name = parsed.value.name;
    const entries: [string, (typeof parsed.value.kwargs)[number][1]][] = [
      ...parsed.value.args.map((value, index): [string, typeof value] => [
        `arg${index}`,
        value,
      ]),
      ...parsed.value.kwargs,
    ];
    try {
      argumentsJson = pyJsonDumps(new PyDict(entries), {
        ensureAscii: variant % 2 === 0,
      });
    } catch {
      argumentsJson = JSON.stringify(String(input));
    }
  } else {
    name = variant % 3 === 0 ? input : 'cd';
    argumentsJson = JSON.stringify({ folder: input });
  }
  switch (variant % 6) {
    case 0:
      return `<tool_call>\n{"name": ${JSON.stringify(name)}, "arguments": ${argumentsJson}}\n</tool_call>`;
    case 1:
      return `<tool_call>\n{"name": ${JSON.stringify(name)}, "arguments": {"__proto__": ${argumentsJson}, "constructor": {"prototype": {"polluted": true}}}}\n</tool_call>`;
    case 2:
      return `<tool_call>\n{"name": ${JSON.stringify(name)}, "parameters": ${argumentsJson}}\n</tool_call><tool_call>{"name": "__proto__", "arguments": [1e400, -0, 123456789012345678901234567890, "\\ud800"]}</tool_call>`;
    case 3:
      return variant % 4 === 3
        ? `<tool_call>\n{"name": ${JSON.stringify(name)}, "arguments": {"a": ${'9'.repeat(4301 + (variant % 1000))}, "b": ${'1'.repeat(400)}.5e99999}}\n</tool_call>`
        : `<tool_call>\n{"name": ${JSON.stringify(name)}, "arguments": ${'['.repeat(5000)}${']'.repeat(5000)}}\n</tool_call>`;
    case 4:
      return `<tool_call>${input}</tool_call>`;
    default:
      return `<tool_call>\n{"name": ${JSON.stringify(name)}, "arguments": ${JSON.stringify(argumentsJson)}}\n`;
  }
}

function stepMessage({
  protocol,
  input,
  parsed,
  variant,
}: {
  protocol: Protocol;
  input: string;
  parsed: ParseCallResult;
  variant: number;
}): unknown {
  switch (protocol) {
    case 'qwen-xml':
      return {
        role: 'assistant',
        content: qwenToolCall(input, parsed, variant),
      };
    case 'bfcl-python':
      return {
        role: 'assistant',
        content: variant % 2 === 0 ? `[${input}]` : input,
      };
    case 'envtuning':
      return {
        role: 'assistant',
        content: `<think>${canaryToken}</think><tool_call>${input}</tool_call>`,
      };
    case 'openai-tools': {
      const name = parsed.success ? parsed.value.name : input;
      const args = parsed.success
        ? toJsonValue(new PyDict(parsed.value.kwargs))
        : variant % 2 === 0
          ? input
          : `{"__proto__": {"polluted": true}, "constructor": ${JSON.stringify(input)}, "n": ${'7'.repeat(4301 + (variant % 97))}}`;
      return {
        role: 'assistant',
        content: variant % 3 === 0 ? input : '',
        tool_calls: [
          {
            id: `c${variant}`,
            type: 'function',
            function: { name, arguments: args },
          },
        ],
      };
    }
  }
}

/** Whole request bodies that attack the envelope rather than the model text. */
function hostileBody(
  instanceId: string,
  input: string,
  variant: number,
): { path: string; body: string | Buffer; method?: string } {
  switch (variant % 12) {
    case 0:
      return {
        path: '/step',
        body: `{"instance_id": ${JSON.stringify(instanceId)}, "messages": {`,
      };
    case 1:
      return {
        path: '/step',
        body: Buffer.concat([
          Buffer.from(
            `{"instance_id": ${JSON.stringify(instanceId)}, "messages": {"role": "assistant", "content": "`,
          ),
          Buffer.from([0xff, 0xfe, 0xc0, 0x80, 0xed, 0xa0, 0x80]),
          Buffer.from('"}}'),
        ]),
      };
    case 2:
      return {
        path: '/step',
        body: `{"__proto__": {"instance_id": ${JSON.stringify(instanceId)}}, "messages": {"role": "assistant", "content": "x"}}`,
      };
    case 3:
      return {
        path: '/step',
        body: `${'['.repeat(100_000)}${']'.repeat(100_000)}`,
      };
    case 4:
      return {
        path: '/step',
        body: JSON.stringify({
          instance_id: instanceId,
          messages: [input, { role: 'assistant' }],
        }),
      };
    case 5:
      return {
        path: '/step',
        body: JSON.stringify({
          instance_id: { toString: input },
          messages: input,
        }),
      };
    case 6:
      return {
        path: '/create',
        body: JSON.stringify({
          task_id: input,
          instance_id: `${canaryToken}-${variant}`,
          params: { protocol: input, max_model_calls: 'HUGE' },
        }).replace('"HUGE"', '1e400'),
      };
    case 7:
      return {
        path: '/create',
        body: `{"task_id": "multi_turn_base_0", "instance_id": "x${variant}", "params": {"__proto__": {"protocol": "qwen-xml"}, "constructor": {"prototype": {"polluted": 1}}, "max_model_calls": 123456789012345678901234567890}}`,
      };
    case 8:
      return {
        path: `/${['__proto__', 'constructor', 'toString', 'hasOwnProperty', '..%2fstep', 'step/../create'][variant % 6]!}`,
        body: '{}',
      };
    case 9:
      return {
        path: '/evaluate',
        body: JSON.stringify({
          instance_id: instanceId,
          params: { sparse: input },
        }),
      };
    case 10:
      return {
        path: '/diagnose',
        body: JSON.stringify({
          instance_id: instanceId,
          params: { reward: input },
        }),
      };
    default:
      return {
        path: '/step',
        body: JSON.stringify({
          instance_id: instanceId,
          messages: { role: 'assistant', content: input },
        }),
        method: 'PUT',
      };
  }
}

/**
 * Sends hostile model outputs through the parser, the executor, the verifier
 * and the environment service over HTTP, and counts what must never happen:
 * code from an input running (a canary global function, `eval`/`Function`
 * wrappers and a canary file), an exception escaping a component, a 5xx
 * answer, a prototype polluted. Inputs come from {@link HostileCorpus}, which
 * keeps inputs with new outcomes as parents, so the run explores more than
 * its seeds. Deterministic for a given seed and count.
 */
export async function runHostileFuzz(
  options: HostileFuzzOptions,
): Promise<HostileFuzzReport> {
  const { dataset, count, seed } = options;
  const useService = options.service ?? true;
  const progressEvery = options.progressEvery ?? 10_000;
  const started = performance.now();
  const canaryFile = join(tmpdir(), `seal-fuzz-canary-${process.pid}-${seed}`);
  rmSync(canaryFile, { force: true });
  const prototypesBefore = new Set(prototypeKeys());
  const memoryStart = process.memoryUsage();
  const report: HostileFuzzReport = {
    seed,
    inputs: 0,
    parser: { calls: 0, accepted: 0 },
    executor: { calls: 0, ok: 0, raised: 0, rejected: 0 },
    verifier: { trajectories: 0, calls: 0 },
    service: {
      requests: 0,
      byStatus: {},
      serverErrors: 0,
      transportErrors: 0,
      liveInstancesAtEnd: 0,
    },
    codeExecutions: 0,
    uncaughtExceptions: 0,
    slowInputs: 0,
    slowestMs: { local: 0, request: 0 },
    slowestLocalInput: '',
    prototypePollution: [],
    failures: [],
    corpusSize: 0,
    signatures: 0,
    memory: {
      startHeapMiB: memoryStart.heapUsed / 2 ** 20,
      peakHeapMiB: memoryStart.heapUsed / 2 ** 20,
      endHeapMiB: 0,
      peakRssMiB: memoryStart.rss / 2 ** 20,
    },
    durationMs: 0,
  };
  const fail = (what: string, input: string) => {
    if (report.failures.length < 50)
      report.failures.push(`${what} ← ${JSON.stringify(input.slice(0, 300))}`);
  };
  const onProcessError = (error: unknown) => {
    report.uncaughtExceptions++;
    fail(`process: ${String(error).slice(0, 200)}`, '');
  };
  process.on('uncaughtException', onProcessError);
  process.on('unhandledRejection', onProcessError);
  const canary = installCanary();

  const runtime = dataset.runtime;
  const groundTruthCalls = dataset.entries.flatMap((entry) =>
    entry.groundTruth.flat(),
  );
  const methodNames = bfclClassNames.flatMap((className) =>
    Object.keys(bfclClassRegistry[className].methods),
  );
  const corpus = new HostileCorpus({
    seed,
    calls: groundTruthCalls,
    methodNames,
    canaryFile,
  });
  const verifier = createBfclVerifier({ runtime });
  const tasks: Task[] = bfclTasks({
    dataset,
    ids: dataset.entries
      .filter((_, index) => index % 40 === 0)
      .map((entry) => entry.id),
  });
  const newSession = (longContext: boolean) =>
    new BfclSession({
      realm: new BfclRealm({ data: runtime }),
      initialConfig: dataset.entries[0]!.initialConfig,
      involvedClasses: [...bfclClassNames],
      longContext,
    });
  const sessions = [newSession(false), newSession(true)];

  let server: EnvServer | undefined;
  let agent: Agent | undefined;
  const instances = new Map<Protocol, string>();
  let instanceCounter = 0;
  const send = (
    path: string,
    body: string | Buffer,
    method = 'POST',
  ): Promise<Answer | undefined> =>
    new Promise((resolve) => {
      const call = httpRequest(
        `${server!.url}${path}`,
        { method, agent, headers: { 'content-type': 'application/json' } },
        (response) => {
          const chunks: Buffer[] = [];
          response.on('data', (chunk: Buffer) => chunks.push(chunk));
          response.on('end', () =>
            resolve({
              status: response.statusCode ?? 0,
              text: Buffer.concat(chunks).toString('utf8'),
            }),
          );
          response.on('error', () => resolve(undefined));
        },
      );
      call.on('error', () => resolve(undefined));
      call.end(body);
    });
  const timedSend = async (
    path: string,
    body: string | Buffer,
    method = 'POST',
  ): Promise<Answer | undefined> => {
    const requestStarted = performance.now();
    const answer = await send(path, body, method);
    const requestMs = performance.now() - requestStarted;
    report.slowestMs.request = Math.max(report.slowestMs.request, requestMs);
    if (requestMs > slowRequestMs) {
      report.slowInputs++;
      fail(
        `slow: ${requestMs.toFixed(0)} ms for ${method} ${path}`,
        typeof body === 'string' ? body : body.toString('latin1'),
      );
    }
    return answer;
  };
  const recordAnswer = (
    answer: Answer | undefined,
    input: string,
    label: string,
  ) => {
    report.service.requests++;
    if (answer === undefined) {
      report.service.transportErrors++;
      fail(`service ${label}: no answer`, input);
      return;
    }
    const key = String(answer.status);
    report.service.byStatus[key] = (report.service.byStatus[key] ?? 0) + 1;
    if (answer.status >= 500) {
      report.service.serverErrors++;
      fail(
        `service ${label}: ${answer.status} ${answer.text.slice(0, 200)}`,
        input,
      );
    }
  };
  const createInstance = async (protocol: Protocol): Promise<string> => {
    const id = `fuzz-${seed}-${instanceCounter++}`;
    const task = tasks[instanceCounter % tasks.length]!;
    const answer = await send(
      '/create',
      JSON.stringify({
        env_type: 'bfcl',
        task_id: task.id,
        instance_id: id,
        params: {
          protocol,
          rollout_mode: instanceCounter % 2 === 0 ? 'sample' : 'validate',
        },
      }),
    );
    recordAnswer(answer, '', `create ${protocol}`);
    instances.set(protocol, id);
    return id;
  };
  if (useService) {
    server = await startEnvServer({
      port: 0,
      tasks: createBfclTaskSource({ dataset }),
      backend: createBfclBackend({ runtime }),
      verifier,
    });
    agent = new Agent({ keepAlive: true, maxSockets: protocols.length });
    for (const protocol of protocols) await createInstance(protocol);
  }

  const pendingTrajectory: string[] = [];
  /** Sends one input to the service on its protocol's instance; returns the status for the signature. */
  const serve = async (
    index: number,
    input: string,
    parsed: ParseCallResult,
  ): Promise<string> => {
    const protocol = protocols[index % protocols.length]!;
    const instanceId = instances.get(protocol)!;
    let outcome = '';
    if (index % 10 === 9) {
      const attack = hostileBody(instanceId, input, Math.floor(index / 10));
      const answer = await timedSend(attack.path, attack.body, attack.method);
      recordAnswer(answer, input, `${attack.method ?? 'POST'} ${attack.path}`);
      // An attack that created an instance does not keep it.
      if (attack.path === '/create' && answer?.status === 200) {
        const created = /"instance_id":\s*"([^"]+)"/.exec(answer.text)?.[1];
        if (created !== undefined)
          await send('/release', JSON.stringify({ instance_id: created }));
      }
    } else {
      const answer = await timedSend(
        '/step',
        JSON.stringify({
          env_type: 'bfcl',
          instance_id: instanceId,
          messages: stepMessage({
            protocol,
            input,
            parsed,
            variant: Math.floor(index / protocols.length),
          }),
          params: {},
        }),
      );
      recordAnswer(answer, input, `step ${protocol}`);
      if (answer !== undefined) outcome = `http${answer.status}`;
      // A finished or limited episode is replaced by a fresh one.
      if (
        answer === undefined ||
        answer.status !== 200 ||
        answer.text.includes('"is_terminated":true')
      ) {
        await send('/release', JSON.stringify({ instance_id: instanceId }));
        await createInstance(protocol);
      }
    }
    if (index % 250 === 249) {
      for (const [path, params] of [
        ['/evaluate', { sparse: true }],
        ['/evaluate', { sparse: false }],
        ['/diagnose', {}],
        ['/get_info', {}],
      ] as const) {
        recordAnswer(
          await send(
            path,
            JSON.stringify({ instance_id: instances.get(protocol)!, params }),
          ),
          '',
          path,
        );
      }
    }
    return outcome;
  };

  try {
    // Inputs go in batches of one per protocol: the local targets run them in
    // order, the service gets the batch concurrently (one request per
    // instance, so answers do not depend on timing), then the corpus learns
    // from each outcome in order. The run is deterministic.
    for (
      let batchStart = 0;
      batchStart < count;
      batchStart += protocols.length
    ) {
      const batch: {
        index: number;
        input: string;
        parsed: ParseCallResult;
        signature: string[];
      }[] = [];
      for (
        let index = batchStart;
        index < Math.min(count, batchStart + protocols.length);
        index++
      ) {
        const input = corpus.next();
        report.inputs++;
        const signature: string[] = [];
        let parsed: ParseCallResult = {
          success: false,
          error: { kind: 'syntax', message: '', position: 0 },
        };

        const localStarted = performance.now();
        // The parser, in its strict mode and as BFCL's prompting decoder.
        try {
          parsed = parseCallString(input);
          parseCallSequence(input, {
            bareNames: 'string',
            arithmetic: true,
            nestedCalls: 'source',
          });
          report.parser.calls += 2;
          if (parsed.success) report.parser.accepted++;
          signature.push(parseSignature(parsed));
        } catch (error) {
          report.uncaughtExceptions++;
          fail(`parser threw ${String(error).slice(0, 200)}`, input);
        }

        // The executor, on every class at once, with and without long-context padding.
        try {
          const execution = sessions[index % 2]!.execute(input);
          report.executor.calls++;
          report.executor[execution.status]++;
          if (typeof execution.result !== 'string')
            throw new Error('result is not a string');
          signature.push(
            execution.status,
            execution.className ?? '',
            execution.result.slice(0, 80),
          );
        } catch (error) {
          report.uncaughtExceptions++;
          fail(`executor threw ${String(error).slice(0, 200)}`, input);
        }
        if (index % 2000 === 1999)
          sessions.splice(0, 2, newSession(false), newSession(true));

        // The verifier, on trajectories that mix ground truth with hostile calls.
        pendingTrajectory.push(input);
        if (pendingTrajectory.length === 20) {
          const task = tasks[index % tasks.length]!;
          const trajectory = task.groundTruth.map((turn, turnIndex) => [
            [
              ...turn,
              ...pendingTrajectory.slice(turnIndex * 3, turnIndex * 3 + 5),
            ],
          ]);
          try {
            const result = verifier.verifySync({ task, trajectory });
            report.verifier.trajectories++;
            report.verifier.calls += trajectory.flat(2).length;
            // The result must be the schema's: validating it is the check.
            const valid = verifierV1ResultSchema.safeParse(result);
            if (!valid.success)
              throw new Error(
                `invalid result: ${valid.error.issues[0]?.message ?? ''}`,
              );
            if (
              ![
                result.progress,
                result.rewards.binary,
                result.rewards.progress,
              ].every(Number.isFinite)
            ) {
              throw new Error('non-finite score');
            }
          } catch (error) {
            report.uncaughtExceptions++;
            fail(
              `verifier threw ${String(error).slice(0, 200)}`,
              pendingTrajectory.join(' ; '),
            );
          }
          pendingTrajectory.length = 0;
        }
        const localMs = performance.now() - localStarted;
        if (localMs > report.slowestMs.local) {
          report.slowestMs.local = localMs;
          report.slowestLocalInput = `${input.slice(0, 120)} (${input.length} characters)`;
        }
        if (localMs > slowInputMs) {
          report.slowInputs++;
          fail(
            `slow: ${localMs.toFixed(0)} ms in the parser, executor and verifier`,
            input,
          );
        }
        batch.push({ index, input, parsed, signature });
      }

      // The service over HTTP: the input as a model message in each
      // protocol, and now and then an attack on the request itself.
      if (useService) {
        const outcomes = await Promise.all(
          batch.map(({ index, input, parsed }) => serve(index, input, parsed)),
        );
        outcomes.forEach((outcome, position) =>
          batch[position]!.signature.push(outcome),
        );
      }

      for (const { index, input, signature } of batch) {
        corpus.observe({ input, signature: outcomeSignature(signature) });
        if (index % 500 === 0) {
          const memory = process.memoryUsage();
          report.memory.peakHeapMiB = Math.max(
            report.memory.peakHeapMiB,
            memory.heapUsed / 2 ** 20,
          );
          report.memory.peakRssMiB = Math.max(
            report.memory.peakRssMiB,
            memory.rss / 2 ** 20,
          );
        }
        if (options.onProgress && (index + 1) % progressEvery === 0) {
          report.corpusSize = corpus.size;
          report.signatures = corpus.signatures;
          report.codeExecutions =
            canary.fired() + (existsSync(canaryFile) ? 1 : 0);
          report.durationMs = performance.now() - started;
          options.onProgress(report);
        }
      }
    }
    if (server !== undefined)
      report.service.liveInstancesAtEnd = server.service.size;
  } finally {
    canary.restore();
    process.off('uncaughtException', onProcessError);
    process.off('unhandledRejection', onProcessError);
    agent?.destroy();
    await server?.close();
  }
  report.codeExecutions = canary.fired() + (existsSync(canaryFile) ? 1 : 0);
  rmSync(canaryFile, { force: true });
  report.prototypePollution = prototypeKeys().filter(
    (key) => !prototypesBefore.has(key),
  );
  if ((Object.prototype as Record<string, unknown>)['polluted'] !== undefined)
    report.prototypePollution.push('polluted');
  report.corpusSize = corpus.size;
  report.signatures = corpus.signatures;
  const memoryEnd = process.memoryUsage();
  report.memory.endHeapMiB = memoryEnd.heapUsed / 2 ** 20;
  report.memory.peakHeapMiB = Math.max(
    report.memory.peakHeapMiB,
    report.memory.endHeapMiB,
  );
  report.memory.peakRssMiB = Math.max(
    report.memory.peakRssMiB,
    memoryEnd.rss / 2 ** 20,
  );
  report.durationMs = performance.now() - started;
  return report;
}

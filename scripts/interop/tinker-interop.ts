/**
 * usage: node --conditions=@seal/source --import tsx scripts/interop/tinker-interop.ts
 *          --sdk DIR --skyrl DIR [--sdk-commit SHA] [--skyrl-commit SHA]
 *          [--python python3] [--out DIR]
 *
 * Conformance of SEAL's Tinker client and server (@seal/tinker) with the
 * protocol as its implementations define it, checked by their own code:
 * the official `tinker` SDK checkout (DIR holds `src/tinker`) and SkyRL's
 * (DIR holds `skyrl/tinker/api.py`). Nothing of theirs is copied: their
 * modules are loaded from the checkouts by `check_tinker.py` (python3 with
 * pydantic and numpy; google.protobuf for the protobuf checks, e.g. Debian's
 * python3-protobuf), with transport, database and server-framework imports
 * stubbed.
 *
 * 1. `check_tinker.py emit`: bytes their code makes (the SDK's protobuf
 *    forward_backward request, SkyRL's protobuf results).
 * 2. Our server (a tiny random model) behind a recording proxy, driven by
 *    our client over every endpoint it uses, on both wires (protobuf, as SDK
 *    0.25; JSON, as 0.20 and SkyRL's JSON path); the SDK's bytes sent to our
 *    server; SkyRL's bytes read by our decoders.
 * 3. `check_tinker.py check`: every recorded request validated with their
 *    request models (the SDK's strict ones refuse unknown fields), every
 *    answer and result with their response types, protobuf through their
 *    converters.
 *
 * Prints a table of checks (pass, fail, skip with the reason) and writes it,
 * with the commits, to OUT/results.md. Exit code 1 when a check failed.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage } from 'node:http';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import {
  buildBpeTokenizer,
  createModelConfig,
  createOrtPolicy,
} from '@seal/engine-ort';
import {
  createTinkerClient,
  createTinkerPolicy,
  createTinkerServer,
  decodeTinkerForwardBackwardOutput,
  decodeTinkerForwardBackwardRequest,
  decodeTinkerSampleResponse,
  tinkerProtobufContentType,
  toTinkerDatum,
  type TinkerWire,
} from '@seal/tinker';

const here = dirname(fileURLToPath(import.meta.url));
const { values: flags } = parseArgs({
  options: {
    sdk: { type: 'string' },
    skyrl: { type: 'string' },
    'sdk-commit': { type: 'string' },
    'skyrl-commit': { type: 'string' },
    python: { type: 'string', default: 'python3' },
    out: { type: 'string' },
  },
});
if (flags.sdk === undefined || flags.skyrl === undefined) {
  console.error(
    'usage: tinker-interop.ts --sdk DIR --skyrl DIR [--sdk-commit SHA] [--skyrl-commit SHA] [--python python3] [--out DIR]',
  );
  process.exit(2);
}
const sdk = resolve(flags.sdk);
const skyrl = resolve(flags.skyrl);
const out = resolve(
  flags.out ?? mkdtempSync(join(tmpdir(), 'seal-tinker-interop-')),
);
mkdirSync(out, { recursive: true });

type Check = {
  side: string;
  endpoint: string;
  direction: string;
  check: string;
  status: 'pass' | 'fail' | 'skip' | 'known';
  detail: string;
};

function commitOf(directory: string, given: string | undefined): string {
  if (given) return given;
  try {
    return execFileSync('git', ['-C', directory, 'rev-parse', 'HEAD'], {
      encoding: 'utf8',
    }).trim();
  } catch {
    return 'unknown (not a git work tree; pass --sdk-commit / --skyrl-commit)';
  }
}

function python(args: string[]): void {
  const run = spawnSync(
    flags.python!,
    [join(here, 'check_tinker.py'), ...args],
    {
      encoding: 'utf8',
    },
  );
  if (run.status !== 0) {
    throw new Error(
      `check_tinker.py ${args[0]} failed (${run.status}): ${run.stderr}`,
    );
  }
}

// 1. Their bytes.
python([
  'emit',
  '--sdk',
  sdk,
  '--skyrl',
  skyrl,
  '--out',
  join(out, 'theirs.json'),
]);
const emitted = JSON.parse(readFileSync(join(out, 'theirs.json'), 'utf8')) as {
  info: Record<string, unknown>;
  theirs: {
    sdk_forward_backward?: string;
    sdk_forward_only?: string;
    skyrl_forward_backward_output?: { json: unknown; protobuf: string };
    skyrl_sample_output?: { json: unknown; protobuf: string };
  };
  error?: string;
};

// 2. Our server behind a recording proxy.
const tokenizer = buildBpeTokenizer({
  corpus: ['copy the words: alpha beta gamma', 'delta epsilon zeta eta theta'],
  vocabSize: 300,
});
const config = createModelConfig({
  vocabSize: 304,
  hiddenSize: 32,
  intermediateSize: 64,
  numLayers: 2,
  numHeads: 4,
  numKeyValueHeads: 2,
  maxPositionEmbeddings: 128,
  initializerRange: 0.2,
});
const tinyPolicy = () =>
  createOrtPolicy({
    model: { config, seed: 7 },
    tokenizer,
    worker: false,
    threads: 1,
  });
// The policy-level tokenizer (decode, stop tokens) of the same model.
const local = await tinyPolicy();
const server = await createTinkerServer({
  baseModel: 'tiny',
  createPolicy: tinyPolicy,
  port: 0,
  retrieveHoldMs: 2_000,
});

type Exchange = {
  method: string;
  path: string;
  resultOf?: string;
  requestContentType: string;
  requestAccept: string;
  requestJson?: unknown;
  requestBase64?: string;
  status: number;
  responseContentType: string;
  responseJson?: unknown;
  responseBase64?: string;
  /** A protobuf result, asked for again as JSON. */
  resultJson?: unknown;
};
const exchanges: Exchange[] = [];
const endpointOf = new Map<string, string>();

async function bytesOf(request: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

function json(bytes: Buffer): unknown {
  try {
    return JSON.parse(bytes.toString('utf8')) as unknown;
  } catch {
    return bytes.toString('utf8');
  }
}

const proxy = createServer((request, response) => {
  void (async () => {
    const body = await bytesOf(request);
    const path = (request.url ?? '/').split('?')[0]!;
    const requestContentType = String(request.headers['content-type'] ?? '');
    const requestAccept = String(request.headers.accept ?? '');
    const forwarded = await fetch(`${server.url}${request.url ?? '/'}`, {
      method: request.method ?? 'GET',
      headers: {
        ...(requestContentType ? { 'content-type': requestContentType } : {}),
        ...(requestAccept ? { accept: requestAccept } : {}),
      },
      ...(request.method === 'POST' ? { body } : {}),
    });
    const answer = Buffer.from(await forwarded.arrayBuffer());
    const responseContentType = forwarded.headers.get('content-type') ?? '';
    const protobufRequest = requestContentType.includes(
      tinkerProtobufContentType,
    );
    const protobufAnswer = responseContentType.includes(
      tinkerProtobufContentType,
    );
    const exchange: Exchange = {
      method: request.method ?? 'GET',
      path,
      requestContentType,
      requestAccept,
      ...(body.length === 0
        ? {}
        : protobufRequest
          ? { requestBase64: body.toString('base64') }
          : { requestJson: json(body) }),
      status: forwarded.status,
      responseContentType,
      ...(protobufAnswer
        ? { responseBase64: answer.toString('base64') }
        : { responseJson: json(answer) }),
    };
    const answered = exchange.responseJson as { request_id?: string } | null;
    if (path !== '/api/v1/retrieve_future' && answered?.request_id) {
      // A protobuf forward-only pass is a forward.
      const forwardOnly =
        protobufRequest &&
        decodeTinkerForwardBackwardRequest(body).forward_only;
      endpointOf.set(
        answered.request_id,
        forwardOnly ? '/api/v1/forward' : path,
      );
    }
    if (path === '/api/v1/retrieve_future') {
      const id = (exchange.requestJson as { request_id?: string }).request_id;
      const made = id === undefined ? undefined : endpointOf.get(id);
      if (made) exchange.resultOf = made;
      if (protobufAnswer) {
        const again = await fetch(`${server.url}/api/v1/retrieve_future`, {
          method: 'POST',
          headers: {
            'content-type': 'application/json',
            accept: 'application/json',
          },
          body,
        });
        exchange.resultJson = await again.json();
      }
    }
    exchanges.push(exchange);
    response.writeHead(forwarded.status, {
      'content-type': responseContentType || 'application/json',
    });
    response.end(answer);
  })().catch((error: unknown) => {
    console.error(error);
    response.destroy();
  });
});
await new Promise<void>((done) => proxy.listen(0, '127.0.0.1', done));
const address = proxy.address();
const proxyUrl = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;

const ours: Check[] = [];
async function own(
  endpoint: string,
  direction: string,
  check: string,
  run: () => Promise<string | void>,
): Promise<void> {
  try {
    const detail = await run();
    ours.push({
      side: 'seal',
      endpoint,
      direction,
      check,
      status: 'pass',
      detail: detail ?? '',
    });
  } catch (error) {
    ours.push({
      side: 'seal',
      endpoint,
      direction,
      check,
      status: 'fail',
      detail: (error as Error).message.slice(0, 600),
    });
  }
}

/** One session of our client over every endpoint it uses. */
async function session(wire: TinkerWire): Promise<void> {
  const client = createTinkerClient({ baseUrl: proxyUrl, wire });
  await client.health();
  await fetch(`${proxyUrl}/api/v1/client/config`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ sdk_version: '0.25.0' }),
  });
  const policy = await createTinkerPolicy({
    client,
    baseModel: 'tiny',
    tokenizer: local.tokenizer,
    sealExtensions: 'off',
  });
  try {
    // One heartbeat (the timer's every 10 s would make the count vary).
    await client.heartbeat(policy.sessionId);
    const sequences = [
      [5, 17, 3, 88, 42, 9, 120, 7, 11],
      [91, 2, 33, 70, 70, 8],
    ];
    const scored = await policy.score({ sequences });
    const weights = sequences.map((tokens) =>
      tokens.map((_, t) => (t >= 3 ? 1 : 0)),
    );
    await policy.train({
      objective: 'ppo',
      sequences: sequences.map((tokenIds, i) => ({
        tokenIds,
        tokenWeights: weights[i]!,
        advantages: tokenIds.map(() => (i === 0 ? 1 : -1)),
        oldLogprobs: scored.logprobs[i]!,
      })),
      options: { learningRate: 1e-3 },
    });
    await policy.train({
      objective: 'cross-entropy',
      sequences: sequences.map((tokenIds, i) => ({
        tokenIds,
        tokenWeights: weights[i]!,
      })),
      options: { learningRate: 1e-3 },
    });
    // importance_sampling, straight through the client.
    await client.forwardBackward({
      modelId: policy.modelId,
      input: {
        loss_fn: 'importance_sampling',
        data: sequences.map((tokenIds, i) =>
          toTinkerDatum({
            tokenIds,
            inputs: {
              logprobs: scored.logprobs[i]!,
              advantages: weights[i]!,
            },
          }),
        ),
      },
    });
    await client.optimStep({
      modelId: policy.modelId,
      adamParams: { learning_rate: 1e-4 },
    });
    await policy.generate({
      prompts: [[5, 17, 3], [91]],
      maxTokens: 4,
      temperature: 1,
      seed: 3,
      stopTokenIds: [],
    });
    const checkpoint = mkdtempSync(join(tmpdir(), 'seal-tinker-interop-ckpt-'));
    await policy.save({ directory: checkpoint });
    await policy.load({ directory: checkpoint });
    await policy.score({ sequences: [sequences[1]!] });
    // A LoRA model: refused by our server, but the request is SkyRL's form.
    const sessionId = await client.createSession({ tags: ['interop'] });
    await client
      .createModel({
        session_id: sessionId,
        model_seq_id: 9,
        base_model: 'tiny',
        lora_config: { rank: 8 },
      })
      .catch(() => undefined);
  } finally {
    await policy.close();
  }
}

try {
  await session('protobuf');
  await session('json');

  // Their bytes into our code.
  const theirs = emitted.theirs;
  for (const [name, base64] of [
    ['forward_backward', theirs.sdk_forward_backward],
    ['forward (forward_only)', theirs.sdk_forward_only],
  ] as const) {
    if (base64 === undefined) {
      ours.push({
        side: 'seal',
        endpoint: '/api/v1/forward_backward',
        direction: 'SDK bytes -> our server',
        check: name,
        status: 'skip',
        detail: `the SDK's request_conv did not run here (${emitted.error ?? JSON.stringify(emitted.info.errors)})`,
      });
      continue;
    }
    await own(
      '/api/v1/forward_backward',
      'SDK bytes -> our server',
      `the SDK's protobuf ${name} request`,
      async () => {
        const client = createTinkerClient({ baseUrl: server.url });
        const sessionId = await client.createSession();
        const modelId = await client.createModel({
          session_id: sessionId,
          model_seq_id: 0,
          base_model: 'tiny',
        });
        const bytes = Buffer.from(base64, 'base64');
        const decoded = decodeTinkerForwardBackwardRequest(bytes);
        const datum = decoded.forward_backward_input.data[0]!;
        const expected = JSON.stringify({
          tokens: [5, 6, 7, 8],
          targets: [6, 7, 8, 9],
          weights: [0, 1, 1, 0.5],
        });
        const got = JSON.stringify({
          tokens: datum.model_input.chunks[0]!.tokens,
          targets: datum.loss_fn_inputs.target_tokens!.data,
          weights: datum.loss_fn_inputs.weights!.data,
        });
        if (got !== expected)
          throw new Error(`decoded ${got}, expected ${expected}`);
        // Field 1 again at the end: protobuf keeps the last value.
        const id = Buffer.from(modelId, 'utf8');
        const patched = Buffer.concat([
          bytes,
          Buffer.from([0x0a, id.length]),
          id,
        ]);
        const submitted = await fetch(`${server.url}/api/v1/forward_backward`, {
          method: 'POST',
          headers: { 'content-type': tinkerProtobufContentType },
          body: patched,
        });
        if (!submitted.ok)
          throw new Error(
            `our server answered ${submitted.status}: ${await submitted.text()}`,
          );
        const { request_id: requestId } = (await submitted.json()) as {
          request_id: string;
        };
        const result = await client.retrieve({
          requestId,
          schema: (await import('@seal/tinker'))
            .tinkerForwardBackwardOutputSchema,
          protobuf: decodeTinkerForwardBackwardOutput,
        });
        const logprobs = result.loss_fn_outputs[0]?.logprobs?.data ?? [];
        if (logprobs.length !== 4)
          throw new Error(`${logprobs.length} log-probabilities, expected 4`);
        await client.unloadModel(modelId);
        return `decoded as sent (tokens, int64 targets, float32 weights); the future completed with ${logprobs.length} log-probabilities`;
      },
    );
  }
  for (const [name, entry, decode] of [
    [
      'ForwardBackwardOutput',
      theirs.skyrl_forward_backward_output,
      decodeTinkerForwardBackwardOutput,
    ],
    ['SampleResponse', theirs.skyrl_sample_output, decodeTinkerSampleResponse],
  ] as const) {
    if (entry === undefined) {
      ours.push({
        side: 'seal',
        endpoint: 'retrieve_future',
        direction: 'SkyRL bytes -> our client',
        check: name,
        status: 'skip',
        detail: `SkyRL's serialize_result did not run here (${emitted.error ?? JSON.stringify(emitted.info.errors)})`,
      });
      continue;
    }
    await own(
      'retrieve_future',
      'SkyRL bytes -> our client',
      `SkyRL's protobuf ${name}, read by our decoder`,
      async () => {
        const decoded = decode(Buffer.from(entry.protobuf, 'base64'));
        const expected = entry.json as Record<string, unknown>;
        // Key order aside (JSON objects are unordered).
        const normalise = (value: unknown): string =>
          JSON.stringify(value, (_key, inner: unknown) =>
            inner === undefined
              ? null
              : typeof inner === 'object' &&
                  inner !== null &&
                  !Array.isArray(inner)
                ? Object.fromEntries(
                    Object.entries(inner).sort(([a], [b]) =>
                      a.localeCompare(b),
                    ),
                  )
                : inner,
          );
        const got =
          name === 'SampleResponse'
            ? decoded
            : {
                ...decoded,
                loss_fn_output_type:
                  (decoded as { loss_fn_output_type?: string })
                    .loss_fn_output_type ?? null,
              };
        if (normalise(got) !== normalise(expected))
          throw new Error(
            `decoded ${normalise(got)}, SkyRL's JSON ${normalise(expected)}`,
          );
        return 'equal to the JSON result SkyRL serialised';
      },
    );
  }
} finally {
  await new Promise((done) => proxy.close(done));
  await server.close();
  await local.close();
}

// 3. Their models on what we sent and answered.
writeFileSync(join(out, 'exchanges.json'), JSON.stringify(exchanges));
python([
  'check',
  '--sdk',
  sdk,
  '--skyrl',
  skyrl,
  '--exchanges',
  join(out, 'exchanges.json'),
  '--out',
  join(out, 'checks.json'),
]);
const checked = JSON.parse(readFileSync(join(out, 'checks.json'), 'utf8')) as {
  info: {
    sdk_version?: string;
    notes: string[];
    stubbed: string[];
    python: string;
  };
  checks: Check[];
};

// Summary: one row per distinct check, with how many exchanges it covered.
const all = [...checked.checks, ...ours];
const rows = new Map<string, Check & { count: number }>();
for (const check of all) {
  const key = [
    check.side,
    check.endpoint,
    check.direction,
    check.check,
    check.status,
  ].join('|');
  const row = rows.get(key);
  if (row) row.count++;
  else rows.set(key, { ...check, count: 1 });
}
const counts = { pass: 0, fail: 0, skip: 0, known: 0 };
for (const check of all) counts[check.status]++;
const table = [
  '| side | endpoint | direction | check | result |',
  '| --- | --- | --- | --- | --- |',
  ...[...rows.values()]
    .sort(
      (a, b) =>
        a.side.localeCompare(b.side) ||
        a.endpoint.localeCompare(b.endpoint) ||
        a.direction.localeCompare(b.direction),
    )
    .map(
      (row) =>
        `| ${row.side} | ${row.endpoint} | ${row.direction} | ${row.check} | ${row.status}${row.count > 1 ? ` ×${row.count}` : ''}${row.status === 'pass' || row.detail === '' ? '' : `: ${row.detail.replaceAll('|', '/').replaceAll('\n', ' ')}`} |`,
    ),
];
const report = [
  `# Tinker interop: ${new Date().toISOString().slice(0, 10)}`,
  '',
  `- tinker SDK ${checked.info.sdk_version ?? '?'} at ${commitOf(sdk, flags['sdk-commit'])}`,
  `- SkyRL at ${commitOf(skyrl, flags['skyrl-commit'])}`,
  `- python ${checked.info.python}; stubbed for the import: ${checked.info.stubbed.join(', ') || 'nothing'}`,
  ...checked.info.notes.map((note) => `- ${note}`),
  `- ${exchanges.length} recorded exchanges; ${all.length} checks: ${counts.pass} passed, ${counts.fail} failed, ${counts.known} known differences, ${counts.skip} could not run here`,
  '',
  ...table,
  '',
].join('\n');
writeFileSync(join(out, 'results.md'), report);
console.log(report);
console.log(`written to ${join(out, 'results.md')}`);
process.exit(counts.fail > 0 ? 1 : 0);

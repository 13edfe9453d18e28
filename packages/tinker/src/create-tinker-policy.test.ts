import { createServer } from 'node:http';
import {
  buildBpeTokenizer,
  createModelConfig,
  createOrtPolicy,
} from '@seal/engine-ort';
import { listen } from '@seal/http';
import { parseJsonText, type PolicyV1 } from '@seal/spec';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTinkerPolicy, type TinkerPolicy } from './create-tinker-policy';
import { createTinkerServer, type TinkerServer } from './create-tinker-server';
import { createTinkerClient } from './tinker-client';
import {
  decodeTinkerForwardBackwardRequest,
  tinkerProtobufContentType,
} from './tinker-protobuf';
import { tinkerForwardBackwardRequestSchema } from './tinker-wire';

const tokenizer = buildBpeTokenizer({
  corpus: ['alpha beta gamma delta', 'copy the words'],
  vocabSize: 300,
});

function tinyPolicy(): Promise<PolicyV1> {
  return createOrtPolicy({
    model: {
      config: createModelConfig({
        vocabSize: 304,
        hiddenSize: 16,
        intermediateSize: 32,
        numLayers: 1,
        numHeads: 2,
        numKeyValueHeads: 1,
        maxPositionEmbeddings: 64,
      }),
      seed: 11,
    },
    tokenizer,
    worker: false,
    threads: 1,
  });
}

/**
 * A forwarding proxy that records each request's path and body: JSON, or a
 * protobuf forward_backward decoded into its JSON form.
 */
async function recordingProxy(target: string) {
  const seen: { path: string; body: unknown }[] = [];
  const server = createServer((request, response) => {
    void (async () => {
      const path = request.url ?? '/';
      const chunks: Buffer[] = [];
      for await (const chunk of request) chunks.push(chunk as Buffer);
      const bytes = Buffer.concat(chunks);
      const type = String(request.headers['content-type'] ?? '');
      const protobuf = type.includes(tinkerProtobufContentType);
      seen.push({
        path,
        body: protobuf
          ? decodeTinkerForwardBackwardRequest(bytes)
          : bytes.length > 0
            ? parseJsonText({ text: bytes.toString('utf8') })
            : undefined,
      });
      const forwarded = await fetch(`${target}${path}`, {
        method: request.method ?? 'GET',
        headers: {
          'content-type': type || 'application/json',
          accept: String(request.headers.accept ?? 'application/json'),
        },
        ...(request.method === 'POST' ? { body: bytes } : {}),
      });
      response.writeHead(forwarded.status, {
        'content-type':
          forwarded.headers.get('content-type') ?? 'application/json',
      });
      response.end(Buffer.from(await forwarded.arrayBuffer()));
    })();
  });
  const listening = await listen({ server, host: '127.0.0.1', port: 0 });
  return { url: listening.url, seen, close: () => listening.close() };
}

describe('createTinkerPolicy', () => {
  let server: TinkerServer;
  let proxy: Awaited<ReturnType<typeof recordingProxy>>;
  let policy: TinkerPolicy;
  let local: PolicyV1;

  beforeAll(async () => {
    server = await createTinkerServer({
      baseModel: 'tiny',
      createPolicy: tinyPolicy,
      port: 0,
    });
    proxy = await recordingProxy(server.url);
    local = await tinyPolicy();
    policy = await createTinkerPolicy({
      client: createTinkerClient({ baseUrl: proxy.url }),
      baseModel: 'tiny',
      tokenizer: local.tokenizer,
      heartbeatIntervalMs: 20,
      // The plain protocol's bodies (the exact extension is tested apart).
      sealExtensions: 'off',
    });
  });
  afterAll(async () => {
    await policy?.close();
    await local?.close();
    await proxy?.close();
    await server?.close();
  });

  it('should send session heartbeats', async () => {
    await new Promise((resolve) => setTimeout(resolve, 120));
    const beats = proxy.seen.filter(
      (call) => call.path === '/api/v1/session_heartbeat',
    );
    expect(beats.length).toBeGreaterThanOrEqual(2);
    expect(beats[0]!.body).toMatchObject({ session_id: policy.sessionId });
    expect(policy.missedHeartbeats).toBe(0);
  });

  it('should send weighted advantages with the KL penalty folded in as tinker-cookbook does', async () => {
    const tokenIds = [5, 6, 7, 8, 9];
    const tokenWeights = [0, 0, 1, 0.5, 1];
    const oldLogprobs = [0, -1, -2, -3, -4];
    const refLogprobs = [0, -1, -2.5, -2, -4.5];
    await policy.train({
      objective: 'ppo',
      sequences: [
        {
          tokenIds,
          tokenWeights,
          advantages: [0, 0, 2, 2, 2],
          oldLogprobs,
          refLogprobs,
        },
      ],
      options: { learningRate: 1e-3, klCoef: 0.1, clipLow: 0.2, clipHigh: 0.3 },
    });
    const call = proxy.seen.findLast(
      (entry) => entry.path === '/api/v1/forward_backward',
    );
    const input = tinkerForwardBackwardRequestSchema.parse(
      call!.body,
    ).forward_backward_input;
    expect(input.loss_fn).toBe('ppo');
    expect(input.loss_fn_config).toEqual({
      clip_low_threshold: 0.8,
      clip_high_threshold: 1.3,
    });
    const datum = input.data[0]!;
    expect(datum.model_input.chunks[0]!.tokens).toEqual([5, 6, 7, 8]);
    expect(datum.loss_fn_inputs.target_tokens!.data).toEqual([6, 7, 8, 9]);
    expect(datum.loss_fn_inputs.logprobs!.data).toEqual([-1, -2, -3, -4]);
    // d = old - ref on weighted tokens: 0.5, -1, 0.5; mean 0; A += 0.1·(0 - d).
    const expected = [0, 1 * (2 - 0.05), 0.5 * (2 + 0.1), 1 * (2 - 0.05)];
    const sent = datum.loss_fn_inputs.advantages!.data;
    // The protobuf wire (SDK 0.25's) carries float32.
    expect(call!.body).toMatchObject({ forward_only: false });
    for (const [t, value] of expected.entries())
      expect(sent[t]).toBeCloseTo(value, 6);
    expect(datum.loss_fn_inputs.weights).toBeUndefined();
  });

  it('should refuse settings the protocol cannot carry', async () => {
    const sequences = [
      {
        tokenIds: [5, 6, 7],
        tokenWeights: [0, 1, 1],
        advantages: [0, 1, 1],
        oldLogprobs: [0, -1, -1],
      },
    ];
    await expect(
      policy.train({
        objective: 'ppo',
        sequences,
        options: { learningRate: 1e-3, dualClipC: 3 },
      }),
    ).rejects.toMatchObject({
      code: 'INVALID_ARGUMENT',
      details: { settings: ['dualClipC'] },
    });
    await expect(
      policy.train({
        objective: 'ppo',
        sequences,
        options: { learningRate: 1e-3, temperature: 0.7 },
      }),
    ).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
    await expect(
      policy.score({ sequences: [[5, 6, 7]], temperature: 0.7 }),
    ).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
  });

  it('should apply stop strings to what the service sampled', async () => {
    const unstopped = await policy.generate({
      prompts: [[5, 6, 7]],
      maxTokens: 12,
      temperature: 0,
      stopTokenIds: [],
    });
    const text = unstopped.generations[0]!.text;
    // Stop at the first character the greedy continuation produces.
    const stop = text.slice(0, 1);
    const stopped = await policy.generate({
      prompts: [[5, 6, 7]],
      maxTokens: 12,
      temperature: 0,
      stopTokenIds: [],
      stopStrings: [stop],
    });
    const generation = stopped.generations[0]!;
    expect(generation.finishReason).toBe('stop');
    expect(generation.text).toContain(stop);
    expect(generation.tokenIds).toEqual(
      unstopped.generations[0]!.tokenIds.slice(0, generation.tokenIds.length),
    );
    expect(generation.tokenIds.length).toBeLessThan(12);
  });
});

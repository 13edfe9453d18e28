import {
  createServer,
  type IncomingMessage,
  type ServerResponse,
} from 'node:http';
import type { AddressInfo } from 'node:net';
import type { ChatModelV1Request } from '@seal/spec';
import { describe, expect, it } from 'vitest';
import {
  apiRoot,
  createOpenAiChatModel,
  listOpenAiModels,
} from './openai-chat-client';
import { startOpenAiServer } from './openai-server';
import { createPolicyChatModel } from './policy-chat-model';
import { scriptedPolicy } from './scripted-policy.test-support';

type Handler = (
  request: IncomingMessage,
  body: string,
  response: ServerResponse,
  count: number,
) => void;

/** A throwaway HTTP server; `count` is the 1-based number of the request. */
async function testServer(handler: Handler): Promise<
  {
    url: string;
    bodies: string[];
    headers: IncomingMessage['headers'][];
  } & AsyncDisposable
> {
  const bodies: string[] = [];
  const headers: IncomingMessage['headers'][] = [];
  const server = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
    request.on('end', () => {
      bodies.push(body);
      headers.push(request.headers);
      handler(request, body, response, bodies.length);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    bodies,
    headers,
    [Symbol.asyncDispose]: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

const ok = JSON.stringify({
  id: 'x',
  object: 'chat.completion',
  choices: [
    {
      index: 0,
      message: { role: 'assistant', content: 'fine' },
      finish_reason: 'stop',
    },
  ],
  usage: { prompt_tokens: 3, completion_tokens: 2 },
});

function json(
  response: ServerResponse,
  status: number,
  body: string,
  headers: Record<string, string> = {},
): void {
  response.writeHead(status, {
    'content-type': 'application/json',
    ...headers,
  });
  response.end(body);
}

const request: ChatModelV1Request = {
  messages: [{ role: 'user', content: 'hi' }],
  maxTokens: 8,
  temperature: 0,
  seed: 3,
};

/** A client whose waits are recorded instead of slept, with no jitter spread (random() = 1). */
function client(
  url: string,
  extra: Partial<Parameters<typeof createOpenAiChatModel>[0]> = {},
) {
  const delays: number[] = [];
  const model = createOpenAiChatModel({
    baseUrl: url,
    model: 'm',
    initialBackoffMs: 100,
    maxBackoffMs: 1000,
    random: () => 1,
    sleep: async (ms) => {
      delays.push(ms);
    },
    ...extra,
  });
  return { model, delays };
}

describe('apiRoot', () => {
  it('should add /v1 to a bare host and keep a given API root', () => {
    expect(apiRoot('http://127.0.0.1:8000')).toBe('http://127.0.0.1:8000/v1');
    expect(apiRoot('http://127.0.0.1:8000/')).toBe('http://127.0.0.1:8000/v1');
    expect(apiRoot('https://api.example.com/v1/')).toBe(
      'https://api.example.com/v1',
    );
    expect(apiRoot('https://example.com/openai/v1')).toBe(
      'https://example.com/openai/v1',
    );
  });
});

describe('createOpenAiChatModel', () => {
  it('should retry 503, 429 and 500 with exponential backoff, then succeed', async () => {
    const statuses = [503, 429, 500];
    await using server = await testServer(
      (_request, _body, response, count) => {
        const status = statuses[count - 1];
        if (status === undefined) json(response, 200, ok);
        else
          json(
            response,
            status,
            JSON.stringify({ error: { message: `fail ${count}` } }),
          );
      },
    );
    const { model, delays } = client(server.url);
    const result = await model.complete(request);
    expect(result).toEqual({
      message: { role: 'assistant', content: 'fine' },
      finishReason: 'stop',
      usage: { promptTokens: 3, completionTokens: 2 },
    });
    expect(server.bodies).toHaveLength(4);
    expect(delays).toEqual([100, 200, 400]);
    // Every attempt sends the same body.
    expect(new Set(server.bodies).size).toBe(1);
    expect(JSON.parse(server.bodies[0]!)).toMatchObject({
      model: 'm',
      max_tokens: 8,
      temperature: 0,
      seed: 3,
      stream: false,
    });
  });

  it("should wait at least the server's Retry-After, capped", async () => {
    await using server = await testServer(
      (_request, _body, response, count) => {
        if (count === 1) json(response, 429, '{}', { 'retry-after': '0.75' });
        else if (count === 2)
          json(response, 429, '{}', { 'retry-after': '60' });
        else json(response, 200, ok);
      },
    );
    const { model, delays } = client(server.url);
    await model.complete(request);
    expect(delays).toEqual([750, 1000]);
  });

  it('should retry a dropped connection and a timeout', async () => {
    await using server = await testServer((request, _body, response, count) => {
      if (count === 1) request.socket.destroy();
      else if (count === 2) setTimeout(() => json(response, 200, ok), 300);
      else json(response, 200, ok);
    });
    const retries: string[] = [];
    const { model } = client(server.url, {
      timeoutMs: 100,
      onRetry: ({ error }) => retries.push(error.code),
    });
    await model.complete(request);
    expect(retries).toEqual(['NETWORK_ERROR', 'TIMEOUT']);
  });

  it('should give up after maxRetries with a retryable NETWORK_ERROR', async () => {
    await using server = await testServer((_request, _body, response) =>
      json(response, 502, 'bad gateway'),
    );
    const { model, delays } = client(server.url, { maxRetries: 2 });
    await expect(model.complete(request)).rejects.toMatchObject({
      code: 'NETWORK_ERROR',
      isRetryable: true,
      details: { status: 502, attempts: 3 },
    });
    expect(server.bodies).toHaveLength(3);
    expect(delays).toHaveLength(2);
  });

  it('should not retry a 4xx, and recognise a context-length error', async () => {
    await using server = await testServer(
      (_request, _body, response, count) => {
        if (count === 1)
          json(
            response,
            400,
            JSON.stringify({
              error: { message: 'bad field', code: 'invalid_value' },
            }),
          );
        else if (count === 2)
          json(response, 401, JSON.stringify({ error: { message: 'no key' } }));
        else {
          json(
            response,
            400,
            JSON.stringify({
              object: 'error',
              message: "This model's maximum context length is 4096 tokens.",
              code: 400,
            }),
          );
        }
      },
    );
    const { model, delays } = client(server.url);
    await expect(model.complete(request)).rejects.toMatchObject({
      code: 'INVALID_ARGUMENT',
      isRetryable: false,
    });
    await expect(model.complete(request)).rejects.toMatchObject({
      code: 'INVALID_ARGUMENT',
      details: { status: 401 },
    });
    await expect(model.complete(request)).rejects.toMatchObject({
      code: 'CONTEXT_LENGTH_EXCEEDED',
      details: { status: 400 },
    });
    expect(delays).toEqual([]);
  });

  it('should send the API key and honour an abort', async () => {
    await using server = await testServer((_request, _body, response) =>
      json(response, 503, '{}'),
    );
    const controller = new AbortController();
    const model = createOpenAiChatModel({
      baseUrl: server.url,
      model: 'm',
      apiKey: 'sk-test',
      sleep: () => {
        controller.abort(new Error('stop'));
        return Promise.reject(new Error('stop'));
      },
    });
    await expect(
      model.complete(request, { signal: controller.signal }),
    ).rejects.toThrow('stop');
    expect(server.headers[0]!['authorization']).toBe('Bearer sk-test');
  });

  it('should round-trip tools and tool calls through seal serve-policy', async () => {
    const policy = scriptedPolicy({
      answer: () => "[mv(source='a', destination='b', n=5.0)]",
    });
    await using served = await startOpenAiServer({
      model: createPolicyChatModel({ policy, modelId: 'tiny' }),
      port: 0,
    });
    const models = await listOpenAiModels({ baseUrl: served.url });
    expect(models).toEqual([
      {
        id: 'tiny',
        protocol: 'bfcl-python',
        promptMode: 'compact',
        maxSequenceLength: 4096,
      },
    ]);
    const model = createOpenAiChatModel({ baseUrl: served.url, model: 'tiny' });
    const result = await model.complete({
      ...request,
      maxTokens: 64,
      tools: [
        {
          type: 'function',
          function: {
            name: 'mv',
            description: 'Move.',
            parameters: { type: 'object', properties: {} },
          },
        },
      ],
    });
    expect(result.finishReason).toBe('tool_calls');
    expect(result.message.toolCalls).toEqual([
      {
        id: expect.stringMatching(/^call_/) as unknown,
        name: 'mv',
        arguments: { source: 'a', destination: 'b', n: 5 },
        argumentsText: '{"source": "a", "destination": "b", "n": 5.0}',
        callText: '',
      },
    ]);
  });
});

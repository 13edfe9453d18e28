import { request as httpRequest } from 'node:http';
import { toOpenAiTool } from '@seal/env';
import { SealError } from '@seal/spec';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  startOpenAiServer,
  type OpenAiServer,
  type ServedChatModel,
} from './openai-server';
import { createPolicyChatModel } from './policy-chat-model';
import { scriptedPolicy } from './scripted-policy.test-support';

const mvTool = toOpenAiTool({
  name: 'mv',
  description: 'Move a file.',
  parameters: {
    type: 'dict',
    properties: { source: { type: 'string' }, destination: { type: 'string' } },
    required: ['source', 'destination'],
  },
});

let server: OpenAiServer;
const policy = scriptedPolicy({
  answer: (prompt) =>
    prompt.includes('move') ? "[mv(source='a', destination='b')]" : 'Hello.',
  maxSequenceLength: 512,
});

beforeAll(async () => {
  server = await startOpenAiServer({
    model: createPolicyChatModel({ policy, modelId: 'tiny' }),
    port: 0,
    maxBodyBytes: 4096,
    evalDefaults: { maxTokens: 32 },
  });
});
afterAll(() => server.close());

async function post(
  body: unknown,
  path = '/v1/chat/completions',
): Promise<{ status: number; json: Record<string, unknown> }> {
  const response = await fetch(`${server.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  return {
    status: response.status,
    json: (await response.json()) as Record<string, unknown>,
  };
}

const hello = {
  model: 'tiny',
  messages: [{ role: 'user', content: 'hi' }],
  temperature: 0,
  max_tokens: 16,
};

describe('startOpenAiServer', () => {
  it('should answer a chat completion in OpenAI shape', async () => {
    const { status, json } = await post(hello);
    expect(status).toBe(200);
    expect(json).toMatchObject({
      object: 'chat.completion',
      model: 'tiny',
      choices: [
        {
          index: 0,
          message: { role: 'assistant', content: 'Hello.' },
          finish_reason: 'stop',
        },
      ],
      usage: { completion_tokens: 7 },
    });
    expect(String(json['id'])).toMatch(/^chatcmpl-/);
  });

  it('should return tool_calls when tools are offered', async () => {
    const { status, json } = await post({
      messages: [{ role: 'user', content: 'move a to b' }],
      tools: [mvTool],
      temperature: 0,
    });
    expect(status).toBe(200);
    expect(json['choices']).toEqual([
      {
        index: 0,
        message: {
          role: 'assistant',
          content: null,
          tool_calls: [
            {
              id: expect.stringMatching(/^call_/) as unknown,
              type: 'function',
              function: {
                name: 'mv',
                arguments: '{"source": "a", "destination": "b"}',
              },
            },
          ],
        },
        finish_reason: 'tool_calls',
        logprobs: null,
      },
    ]);
  });

  it('should list the model with its seal hints', async () => {
    const json = (await (await fetch(`${server.url}/v1/models`)).json()) as {
      data: Record<string, unknown>[];
    };
    expect(json.data).toEqual([
      expect.objectContaining({
        id: 'tiny',
        object: 'model',
        seal: {
          protocol: 'bfcl-python',
          promptMode: 'compact',
          maxSequenceLength: 512,
          evalDefaults: { maxTokens: 32 },
        },
      }),
    ]);
    expect((await fetch(`${server.url}/v1/models/tiny`)).status).toBe(200);
    expect((await fetch(`${server.url}/v1/models/other`)).status).toBe(404);
    expect(await (await fetch(`${server.url}/health`)).text()).toBe('OK');
  });

  describe('malformed requests', () => {
    it.each([
      ['invalid JSON', '{"messages": [', 'invalid_json', null],
      ['an empty body', '', 'invalid_json', null],
      ['a JSON array', '[]', 'invalid_value', null],
      ['no messages', { model: 'tiny' }, 'invalid_value', 'messages'],
      ['empty messages', { messages: [] }, 'invalid_value', 'messages'],
      [
        'an unknown role',
        { messages: [{ role: 'robot', content: 'x' }] },
        'invalid_value',
        'messages.0.role',
      ],
      [
        'content of the wrong type',
        { messages: [{ role: 'user', content: 5 }] },
        'invalid_value',
        'messages.0.content',
      ],
      [
        'temperature out of range',
        { ...hello, temperature: 3 },
        'invalid_value',
        'temperature',
      ],
      ['top_p of 0', { ...hello, top_p: 0 }, 'invalid_value', 'top_p'],
      [
        'max_tokens of 0',
        { ...hello, max_tokens: 0 },
        'invalid_value',
        'max_tokens',
      ],
      ['a fractional seed', { ...hello, seed: 1.5 }, 'invalid_value', 'seed'],
      [
        'five stop strings',
        { ...hello, stop: ['a', 'b', 'c', 'd', 'e'] },
        'invalid_value',
        'stop',
      ],
      [
        'a malformed tool',
        { ...hello, tools: [{ type: 'function', function: {} }] },
        'invalid_value',
        'tools.0.function.name',
      ],
      ['streaming', { ...hello, stream: true }, 'unsupported_value', null],
      ['two choices', { ...hello, n: 2 }, 'unsupported_value', null],
    ])('should answer 400 for %s', async (_name, body, code, param) => {
      const { status, json } = await post(body);
      expect(status).toBe(400);
      expect(json).toEqual({
        error: {
          message: expect.any(String) as unknown,
          type: 'invalid_request_error',
          param,
          code,
        },
      });
    });

    it('should answer 400 context_length_exceeded for a prompt beyond the context', async () => {
      const { status, json } = await post({
        messages: [{ role: 'user', content: 'x'.repeat(600) }],
      });
      expect(status).toBe(400);
      expect(json).toMatchObject({
        error: { code: 'context_length_exceeded', param: 'messages' },
      });
    });

    it('should answer 404 for another model and an unknown route, 405 for a wrong method', async () => {
      expect(await post({ ...hello, model: 'gpt-4' })).toMatchObject({
        status: 404,
        json: { error: { code: 'model_not_found' } },
      });
      expect(await post(hello, '/v1/completions')).toMatchObject({
        status: 404,
        json: { error: { code: 'not_found' } },
      });
      const get = await fetch(`${server.url}/v1/chat/completions`);
      expect(get.status).toBe(405);
      expect(get.headers.get('allow')).toBe('POST');
    });

    it('should answer 413 for a body over the limit and keep serving', async () => {
      const { status, json } = await post({
        ...hello,
        messages: [{ role: 'user', content: 'x'.repeat(10_000) }],
      });
      expect(status).toBe(413);
      expect(json).toMatchObject({ error: { code: 'request_too_large' } });
      expect((await post(hello)).status).toBe(200);
    });

    it('should refuse a chunked body that grows past the limit', async () => {
      const status = await new Promise<number>((resolve, reject) => {
        const request = httpRequest(
          `${server.url}/v1/chat/completions`,
          { method: 'POST' },
          (response) => {
            response.resume();
            resolve(response.statusCode ?? 0);
          },
        );
        request.on('error', reject);
        for (let i = 0; i < 10; i++) request.write('x'.repeat(1000));
        request.end();
      });
      expect(status).toBe(413);
    });
  });

  it('should answer 500 without internals when the model fails, and 503 when it is overloaded', async () => {
    let failure: unknown = new Error('secret detail');
    const references: string[] = [];
    const model: ServedChatModel = {
      modelId: 'broken',
      protocolName: 'bfcl-python',
      promptMode: 'compact',
      maxSequenceLength: 64,
      complete: () => Promise.reject(failure),
    };
    await using broken = await startOpenAiServer({
      model,
      port: 0,
      onInternalError: ({ reference }) => references.push(reference),
    });
    const response = await fetch(`${broken.url}/v1/chat/completions`, {
      method: 'POST',
      body: JSON.stringify({ messages: [{ role: 'user', content: 'x' }] }),
    });
    const json = (await response.json()) as {
      error: { message: string; code: string };
    };
    expect(response.status).toBe(500);
    expect(json.error.message).not.toContain('secret');
    expect(json.error.message).toContain(references[0]!);
    failure = new SealError({
      code: 'BACKEND_UNAVAILABLE',
      message: 'queue full',
      isRetryable: true,
    });
    const busy = await fetch(`${broken.url}/v1/chat/completions`, {
      method: 'POST',
      body: JSON.stringify({ messages: [{ role: 'user', content: 'x' }] }),
    });
    expect(busy.status).toBe(503);
    expect(busy.headers.get('retry-after')).toBe('1');
  });
});

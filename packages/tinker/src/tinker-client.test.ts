import { createServer, type IncomingMessage } from 'node:http';
import { listen, readBody } from '@seal/http';
import { SealError, type PolicyV1 } from '@seal/spec';
import { describe, expect, it, onTestFinished, vi } from 'vitest';
import * as z from 'zod';
import { createTinkerServer } from './create-tinker-server';
import { createTinkerClient } from './tinker-client';

/** A Tinker server whose policies never load (no engine is needed here). */
async function serverWith(createPolicy: () => Promise<PolicyV1>) {
  const server = await createTinkerServer({
    baseModel: 'tiny',
    createPolicy,
    port: 0,
    maxContextLength: 64,
    retrieveHoldMs: 50,
  });
  onTestFinished(() => server.close());
  return server;
}

/**
 * A proxy in front of a server: answers the first `failures[path]` requests
 * of a path with the given status, forwards the rest, and records every
 * request (path and API key header).
 */
async function faultyProxy({
  target,
  failures,
  status = 500,
  headers = {},
}: {
  target: string;
  failures: Record<string, number>;
  status?: number;
  headers?: Record<string, string>;
}) {
  const seen: { path: string; apiKey: string | undefined }[] = [];
  const server = createServer((request: IncomingMessage, response) => {
    void (async () => {
      const path = request.url ?? '/';
      seen.push({
        path,
        apiKey: request.headers['x-api-key'] as string | undefined,
      });
      const read = await readBody({
        request,
        limit: 1 << 20,
        drainLimit: 1 << 21,
      });
      if ((failures[path] ?? 0) > 0) {
        failures[path]! -= 1;
        response.writeHead(status, {
          'content-type': 'application/json',
          ...headers,
        });
        response.end(JSON.stringify({ detail: 'injected failure' }));
        return;
      }
      const forwarded = await fetch(`${target}${path}`, {
        method: request.method ?? 'GET',
        headers: { 'content-type': 'application/json' },
        ...(request.method === 'POST' && 'text' in read
          ? { body: read.text }
          : {}),
      });
      response.writeHead(forwarded.status, {
        'content-type': 'application/json',
      });
      response.end(await forwarded.text());
    })();
  });
  const listening = await listen({ server, host: '127.0.0.1', port: 0 });
  onTestFinished(() => listening.close());
  return { url: listening.url, seen };
}

const fast = {
  initialRetryDelayMs: 5,
  maxRetryDelayMs: 20,
  futureRetryUnitMs: 5,
};

describe('createTinkerClient', () => {
  describe('unreachable service', () => {
    it('should retry connection errors, then fail with NETWORK_ERROR', async () => {
      // A port that was free a moment ago and has nothing listening now.
      const probe = await listen({
        server: createServer(),
        host: '127.0.0.1',
        port: 0,
      });
      await probe.close();
      const client = createTinkerClient({
        baseUrl: probe.url,
        maxRetries: 2,
        ...fast,
      });
      const failure = await client
        .createSession()
        .catch((error: unknown) => error);
      expect(SealError.isInstance(failure)).toBe(true);
      expect(failure).toMatchObject({
        code: 'NETWORK_ERROR',
        isRetryable: true,
        details: { tries: 3 },
      });
    });
  });

  describe('retries', () => {
    it('should retry a 500 answer and succeed, sending the API key from TINKER_API_KEY', async () => {
      vi.stubEnv('TINKER_API_KEY', 'tml-test-key');
      onTestFinished(() => {
        vi.unstubAllEnvs();
      });
      const server = await serverWith(() => new Promise(() => undefined));
      const proxy = await faultyProxy({
        target: server.url,
        failures: { '/api/v1/create_session': 1 },
      });
      const client = createTinkerClient({ baseUrl: proxy.url, ...fast });
      const session = await client.createSession();
      expect(session).toMatch(/^session_/);
      const calls = proxy.seen.filter(
        (call) => call.path === '/api/v1/create_session',
      );
      expect(calls).toHaveLength(2);
      expect(calls.every((call) => call.apiKey === 'tml-test-key')).toBe(true);
    });

    it('should retry 500 answers of retrieve_future until the result', async () => {
      const server = await serverWith(() =>
        Promise.reject(
          new SealError({
            code: 'INVALID_ARGUMENT',
            message: 'no such weights',
          }),
        ),
      );
      const proxy = await faultyProxy({
        target: server.url,
        failures: { '/api/v1/retrieve_future': 2 },
      });
      const client = createTinkerClient({ baseUrl: proxy.url, ...fast });
      const session = await client.createSession();
      await expect(
        client.createModel({ session_id: session, base_model: 'tiny' }),
      ).rejects.toMatchObject({ code: 'INVALID_STATE' });
      expect(
        proxy.seen.filter((call) => call.path === '/api/v1/retrieve_future')
          .length,
      ).toBeGreaterThanOrEqual(3);
    });

    it('should wait retry-after-ms on a 429 before retrying', async () => {
      const server = await serverWith(() => new Promise(() => undefined));
      const proxy = await faultyProxy({
        target: server.url,
        failures: { '/api/v1/healthz': 1 },
        status: 429,
        headers: { 'retry-after-ms': '120' },
      });
      const client = createTinkerClient({ baseUrl: proxy.url, ...fast });
      const started = Date.now();
      await client.health();
      expect(Date.now() - started).toBeGreaterThanOrEqual(100);
      expect(proxy.seen).toHaveLength(2);
    });

    it('should not retry a 404 and report NOT_FOUND', async () => {
      const server = await serverWith(() => new Promise(() => undefined));
      const proxy = await faultyProxy({ target: server.url, failures: {} });
      const client = createTinkerClient({ baseUrl: proxy.url, ...fast });
      await expect(client.heartbeat('session_unknown')).rejects.toMatchObject({
        code: 'NOT_FOUND',
        details: { status: 404 },
      });
      expect(proxy.seen).toHaveLength(1);
    });
  });

  describe('futures', () => {
    it('should report a failed future with its error and category', async () => {
      const server = await serverWith(() =>
        Promise.reject(new Error('the weights file is corrupt')),
      );
      const client = createTinkerClient({ baseUrl: server.url, ...fast });
      const session = await client.createSession();
      const failure = await client
        .createModel({ session_id: session, base_model: 'tiny' })
        .catch((error: unknown) => error);
      expect(failure).toMatchObject({
        code: 'INVALID_STATE',
        details: {
          category: 'server',
          error: expect.stringContaining('corrupt'),
        },
      });
    });

    it('should time out a future that never completes', async () => {
      const server = await serverWith(() => new Promise(() => undefined));
      const client = createTinkerClient({
        baseUrl: server.url,
        futureTimeoutMs: 300,
        ...fast,
      });
      const session = await client.createSession();
      const started = Date.now();
      await expect(
        client.createModel({ session_id: session, base_model: 'tiny' }),
      ).rejects.toMatchObject({ code: 'TIMEOUT', details: { timeoutMs: 300 } });
      expect(Date.now() - started).toBeLessThan(5_000);
    });

    it('should report an unknown future as NOT_FOUND', async () => {
      const server = await serverWith(() => new Promise(() => undefined));
      const client = createTinkerClient({ baseUrl: server.url, ...fast });
      await expect(
        client.retrieve({ requestId: '999', schema: z.unknown() }),
      ).rejects.toMatchObject({ code: 'NOT_FOUND' });
    });
  });

  describe('settings', () => {
    it('should refuse a base URL that is not http(s)', () => {
      expect(() => createTinkerClient({ baseUrl: 'localhost:8088' })).toThrow(
        expect.objectContaining({ code: 'INVALID_ARGUMENT' }),
      );
    });
  });
});

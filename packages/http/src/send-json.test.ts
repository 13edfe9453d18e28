import { createServer } from 'node:http';
import { describe, expect, it, onTestFinished } from 'vitest';
import { HttpError } from './http-error';
import { listen } from './listen';
import { sendJson } from './send-json';

describe('sendJson', () => {
  it('should send compact JSON with its length, and pretty JSON with a final newline', async () => {
    const server = createServer((request, response) =>
      sendJson({
        response,
        status: request.url === '/pretty' ? 201 : 200,
        body: { a: [1, 'é'] },
        headers: { 'x-extra': 'yes' },
        ...(request.url === '/pretty' ? { space: 2 } : {}),
      }),
    );
    const listening = await listen({ server, host: '127.0.0.1', port: 0 });
    onTestFinished(() => listening.close());
    const compact = await fetch(listening.url);
    expect(compact.headers.get('content-type')).toBe(
      'application/json; charset=utf-8',
    );
    expect(compact.headers.get('content-length')).toBe('14');
    expect(compact.headers.get('x-extra')).toBe('yes');
    expect(await compact.text()).toBe('{"a":[1,"é"]}');
    const pretty = await fetch(`${listening.url}/pretty`);
    expect(pretty.status).toBe(201);
    expect(await pretty.text()).toBe('{\n  "a": [\n    1,\n    "é"\n  ]\n}\n');
  });
});

describe('HttpError', () => {
  it('should carry its status and headers and be recognised by isInstance', () => {
    const error = new HttpError({
      status: 405,
      message: 'use GET',
      headers: { allow: 'GET' },
    });
    expect(HttpError.isInstance(error)).toBe(true);
    expect(HttpError.isInstance(new Error('x'))).toBe(false);
    expect(error).toMatchObject({
      status: 405,
      headers: { allow: 'GET' },
      closeConnection: false,
    });
  });
});

import { createServer, type Server } from 'node:http';
import { describe, expect, it, onTestFinished } from 'vitest';
import { listen } from './listen';

function okServer(): Server {
  return createServer((_request, response) => response.end('ok'));
}

describe('listen', () => {
  it('should resolve with the bound port and a URL that answers', async () => {
    const listening = await listen({
      server: okServer(),
      host: '127.0.0.1',
      port: 0,
    });
    onTestFinished(() => listening.close());
    expect(listening.port).toBeGreaterThan(0);
    expect(listening.url).toBe(`http://127.0.0.1:${listening.port}`);
    expect(await (await fetch(listening.url)).text()).toBe('ok');
  });

  it('should refuse a port in use with INVALID_ARGUMENT naming the address', async () => {
    const first = await listen({
      server: okServer(),
      host: '127.0.0.1',
      port: 0,
    });
    onTestFinished(() => first.close());
    await expect(
      listen({ server: okServer(), host: '127.0.0.1', port: first.port }),
    ).rejects.toMatchObject({
      code: 'INVALID_ARGUMENT',
      details: { host: '127.0.0.1', port: first.port },
    });
  });

  it('should close once, however often close is called', async () => {
    const server = okServer();
    const listening = await listen({ server, host: '127.0.0.1', port: 0 });
    const closing = listening.close();
    expect(listening.close()).toBe(closing);
    await closing;
    expect(server.listening).toBe(false);
  });
});

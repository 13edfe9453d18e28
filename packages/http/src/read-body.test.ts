import { createServer } from 'node:http';
import { describe, expect, it, onTestFinished } from 'vitest';
import { listen } from './listen';
import { readBody, type ReadBodyResult } from './read-body';

/** Posts `body` to a server that reads it with the given limits; resolves what readBody found. */
async function post({
  body,
  limit,
  drainLimit,
}: {
  body: string;
  limit: number;
  drainLimit: number;
}): Promise<ReadBodyResult> {
  let found: ReadBodyResult | undefined;
  const server = createServer((request, response) => {
    void readBody({ request, limit, drainLimit }).then((result) => {
      found = result;
      response.end();
    });
  });
  const listening = await listen({ server, host: '127.0.0.1', port: 0 });
  onTestFinished(() => listening.close());
  await fetch(listening.url, { method: 'POST', body }).catch(() => undefined);
  return found!;
}

describe('readBody', () => {
  it('should read a body within the limit as UTF-8 text', async () => {
    expect(await post({ body: 'héllo', limit: 100, drainLimit: 1000 })).toEqual(
      { text: 'héllo' },
    );
  });

  it('should refuse a body over the limit without cutting below the drain limit', async () => {
    expect(
      await post({ body: 'x'.repeat(200), limit: 100, drainLimit: 1000 }),
    ).toEqual({ tooLarge: true, cut: false });
  });

  it('should ask to cut a declared body over the drain limit', async () => {
    expect(
      await post({ body: 'x'.repeat(2000), limit: 100, drainLimit: 1000 }),
    ).toEqual({ tooLarge: true, cut: true });
  });
});

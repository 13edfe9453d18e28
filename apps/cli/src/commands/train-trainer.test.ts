import { PassThrough } from 'node:stream';
import { createServer } from 'node:net';
import { describe, expect, it } from 'vitest';
import { createOutput } from '../ui/output';
import { runTrain } from './train';

function quiet() {
  return createOutput({
    json: false,
    stdout: new PassThrough(),
    stderr: new PassThrough(),
  });
}

/** A port nothing listens on (bound, then released). */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return typeof address === 'object' && address ? address.port : 1;
}

describe('seal train --trainer', () => {
  it('should refuse the tinker flags without --trainer tinker, and --trainer tinker without a URL', async () => {
    await expect(
      runTrain({
        argv: ['--trainer-url', 'http://127.0.0.1:8088'],
        output: quiet(),
      }),
    ).rejects.toThrow(/--trainer-url needs --trainer tinker/);
    await expect(
      runTrain({
        argv: ['--trainer', 'local', '--lora-rank', '8', '--base-model', 'm'],
        output: quiet(),
      }),
    ).rejects.toThrow(/--base-model, --lora-rank need --trainer tinker/);
    await expect(
      runTrain({ argv: ['--trainer', 'tinker'], output: quiet() }),
    ).rejects.toThrow(/--trainer tinker needs --trainer-url URL/);
    await expect(
      runTrain({ argv: ['--trainer', 'remote'], output: quiet() }),
    ).rejects.toThrow(/unknown trainer 'remote' \(valid: local, tinker\)/);
  });

  it('should stop with one clear error before anything loads when the service is unreachable', async () => {
    const url = `http://127.0.0.1:${await freePort()}`;
    const started = Date.now();
    await expect(
      runTrain({
        argv: [
          '--preset',
          'smoke',
          '--trainer',
          'tinker',
          '--trainer-url',
          url,
        ],
        output: quiet(),
      }),
    ).rejects.toMatchObject({
      code: 'NETWORK_ERROR',
      message: expect.stringContaining(
        `the Tinker service at ${url} is unreachable`,
      ),
    });
    // One short probe, not the training client's minute of retries.
    expect(Date.now() - started).toBeLessThan(10_000);
  });
});

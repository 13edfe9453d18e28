import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { shippedBaseDirectory } from '../shipped-base';
import { createOutput } from '../ui/output';
import { runWarmstart } from './warmstart';

const output = () =>
  createOutput({
    json: false,
    stdout: new PassThrough(),
    stderr: new PassThrough(),
  });

describe('seal warmstart --families', () => {
  it('should name an unknown task family in one clear error, before measuring anything', async () => {
    const base = shippedBaseDirectory();
    expect(base).toBeDefined();
    await expect(
      runWarmstart({
        argv: [
          '--measure',
          base!,
          '--families',
          'travel.exchange-named,travel.teleport',
        ],
        output: output(),
      }),
    ).rejects.toMatchObject({
      code: 'INVALID_ARGUMENT',
      message: expect.stringMatching(
        /unknown task family travel\.teleport \(known: .*travel\.exchange-named/,
      ),
    });
  });

  it('should refuse --families without --measure instead of training a warm start', async () => {
    await expect(
      runWarmstart({
        argv: ['--families', 'travel.exchange'],
        output: output(),
      }),
    ).rejects.toMatchObject({
      code: 'INVALID_ARGUMENT',
      message: '--families only applies to --measure DIR',
    });
  });
});

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import {
  buildBpeTokenizer,
  createModelConfig,
  createOrtPolicy,
} from '@seal/engine-ort';
import type { PolicyV1 } from '@seal/spec';
import { createTinkerClient, createTinkerPolicy } from '@seal/tinker';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createOutput } from '../ui/output';
import { startServeTrainer, type ServeTrainerHandle } from './serve-trainer';

let root: string;
let modelDirectory: string;
let local: PolicyV1;
let handle: ServeTrainerHandle;

/** A tiny random model saved as a model directory, served by seal serve-trainer. */
beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), 'seal-serve-trainer-'));
  modelDirectory = join(root, 'model');
  const policy = await createOrtPolicy({
    model: {
      config: createModelConfig({
        vocabSize: 304,
        hiddenSize: 32,
        intermediateSize: 64,
        numLayers: 1,
        numHeads: 2,
        numKeyValueHeads: 1,
        maxPositionEmbeddings: 128,
        initializerRange: 0.2,
      }),
      seed: 3,
    },
    tokenizer: buildBpeTokenizer({
      corpus: ['alpha beta gamma delta', 'copy the words'],
      vocabSize: 300,
    }),
    worker: false,
    threads: 1,
  });
  await policy.save({ directory: modelDirectory });
  await policy.close();
  local = await createOrtPolicy({
    model: { directory: modelDirectory },
    worker: false,
    threads: 1,
  });
  handle = await startServeTrainer({
    argv: ['--model', modelDirectory, '--port', '0', '--name', 'tiny'],
    output: quiet(),
  });
});
afterAll(async () => {
  await handle?.close();
  await local?.close();
  rmSync(root, { recursive: true, force: true });
});

function quiet() {
  return createOutput({
    json: false,
    stdout: new PassThrough(),
    stderr: new PassThrough(),
  });
}

describe('seal serve-trainer', () => {
  it('should train the served model as the engine trains it in process', async () => {
    const remote = await createTinkerPolicy({
      client: createTinkerClient({ baseUrl: handle.server.url }),
      baseModel: 'tiny',
      // The plain protocol (the exact extension is tested apart).
      sealExtensions: 'off',
      tokenizer: local.tokenizer,
    });
    try {
      expect(remote.maxSequenceLength).toBe(local.maxSequenceLength);
      const tokenIds = [5, 17, 3, 88, 42, 9, 120];
      const step = {
        objective: 'cross-entropy' as const,
        sequences: [
          { tokenIds, tokenWeights: tokenIds.map((_, t) => (t < 3 ? 0 : 1)) },
        ],
        options: { learningRate: 1e-2 },
      };
      const [viaServer, inProcess] = [
        await remote.train(step),
        await local.train(step),
      ];
      expect(Math.abs(viaServer.loss - inProcess.loss)).toBeLessThan(1e-4);
      const [after, expected] = [
        await remote.score({ sequences: [tokenIds] }),
        await local.score({ sequences: [tokenIds] }),
      ];
      for (const [t, value] of expected.logprobs[0]!.entries())
        expect(Math.abs(after.logprobs[0]![t]! - value)).toBeLessThan(1e-4);
    } finally {
      await remote.close();
    }
  });

  it('should refuse --model and --preset together', async () => {
    await expect(
      startServeTrainer({
        argv: ['--model', modelDirectory, '--preset', 'smoke', '--port', '0'],
        output: quiet(),
      }),
    ).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
  });

  it('should report a missing model directory', async () => {
    await expect(
      startServeTrainer({
        argv: ['--model', join(root, 'missing'), '--port', '0'],
        output: quiet(),
      }),
    ).rejects.toMatchObject({ code: 'FILE_NOT_FOUND' });
  });
});

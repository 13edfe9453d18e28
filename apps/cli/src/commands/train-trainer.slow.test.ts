import {
  existsSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  rmSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { PassThrough } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createOutput } from '../ui/output';
import { startServeTrainer, type ServeTrainerHandle } from './serve-trainer';
import { runTrain } from './train';

let root: string;
let cache: string;
let serverCheckpoints: string;
let handle: ServeTrainerHandle | undefined;

beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), 'seal-train-tinker-'));
  cache = join(root, 'cache');
  serverCheckpoints = join(root, 'server-checkpoints');
});
afterAll(async () => {
  await handle?.close();
  rmSync(root, { recursive: true, force: true });
});

function capture() {
  const stdout = new PassThrough();
  let text = '';
  stdout.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
  return {
    output: createOutput({ json: false, stdout, stderr: new PassThrough() }),
    text: () => text,
  };
}

/** Float32 tensors of a safetensors file, by name. */
function readSafetensors(file: string): Map<string, Float32Array> {
  const bytes = readFileSync(file);
  const headerLength = Number(bytes.readBigUInt64LE(0));
  const header = JSON.parse(
    bytes.subarray(8, 8 + headerLength).toString('utf8'),
  ) as Record<string, { dtype: string; data_offsets: [number, number] }>;
  const tensors = new Map<string, Float32Array>();
  for (const [name, entry] of Object.entries(header)) {
    if (name === '__metadata__') continue;
    expect(entry.dtype).toBe('F32');
    const [from, to] = entry.data_offsets;
    const slice = bytes.subarray(
      8 + headerLength + from,
      8 + headerLength + to,
    );
    tensors.set(
      name,
      new Float32Array(
        slice.buffer.slice(slice.byteOffset, slice.byteOffset + slice.length),
      ),
    );
  }
  return tensors;
}

/** JSON Lines of a file, with wall-clock fields left out. */
function records(file: string): unknown[] {
  const strip = (value: unknown): unknown => {
    if (Array.isArray(value)) return value.map(strip);
    if (typeof value !== 'object' || value === null) return value;
    return Object.fromEntries(
      Object.entries(value)
        .filter(
          ([key]) => !/time|timing|duration|ms$|At$|^started|^ended/i.test(key),
        )
        .map(([key, inner]) => [key, strip(inner)]),
    );
  };
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => strip(JSON.parse(line)));
}

describe('seal train --trainer tinker against seal serve-trainer', () => {
  it('should reproduce the in-process run: the same episodes and the same weights', async () => {
    // The default preset: the shipped base model earns mixed rewards, so the
    // step trains (the smoke preset's tiny warm start earns none, and a run
    // with no advantage leaves the weights alone). It also carries what the
    // plain protocol cannot: the k3 KL term, the uniform logit scale at
    // 100 × the learning rate.
    const common = [
      '--preset',
      'default',
      '--seed',
      '3',
      '--steps',
      '1',
      '--tasks-per-step',
      '2',
      '--test-id',
      '4',
      '--test-ood',
      '4',
      '--baseline',
      'off',
      '--cache',
      cache,
    ];
    const local = capture();
    const localRun = join(root, 'local');
    expect(
      await runTrain({
        argv: [...common, '--run-dir', localRun],
        output: local.output,
      }),
    ).toBe(0);

    handle = await startServeTrainer({
      argv: [
        '--preset',
        'default',
        '--cache',
        cache,
        '--port',
        '0',
        '--checkpoints',
        serverCheckpoints,
      ],
      output: capture().output,
    });
    const url = handle.server.url;

    // Our server trains all weights: a LoRA rank is refused, naming what is supported.
    await expect(
      runTrain({
        argv: [
          ...common,
          '--run-dir',
          join(root, 'lora'),
          '--trainer',
          'tinker',
          '--trainer-url',
          url,
          '--lora-rank',
          '8',
        ],
        output: capture().output,
      }),
    ).rejects.toThrow(/LoRA is not supported here.*full fine-tuning/);

    // A service that serves another model: one clear error naming both.
    await expect(
      runTrain({
        argv: [
          ...common,
          '--run-dir',
          join(root, 'other'),
          '--trainer',
          'tinker',
          '--trainer-url',
          url,
          '--base-model',
          'other',
        ],
        output: capture().output,
      }),
    ).rejects.toThrow(/serves 'seal-default', not 'other'/);

    const remote = capture();
    const remoteRun = join(root, 'remote');
    expect(
      await runTrain({
        argv: [
          ...common,
          '--run-dir',
          remoteRun,
          '--trainer',
          'tinker',
          '--trainer-url',
          url,
        ],
        output: remote.output,
      }),
    ).toBe(0);
    expect(remote.text()).toContain(
      `trainer: tinker:seal-default at ${url} (SEAL's exact extension`,
    );

    // Episodes: token for token, action for action, verdict for verdict.
    const episodeFiles = readdirSync(join(localRun, 'episodes')).sort();
    expect(episodeFiles.length).toBeGreaterThan(0);
    expect(readdirSync(join(remoteRun, 'episodes')).sort()).toEqual(
      episodeFiles,
    );
    for (const name of episodeFiles) {
      const a = records(join(localRun, 'episodes', name));
      const b = records(join(remoteRun, 'episodes', name));
      expect(a.length).toBeGreaterThan(0);
      expect(b).toEqual(a);
    }
    // Step and evaluation events (loss, success, accuracy) agree too.
    expect(records(join(remoteRun, 'events.jsonl'))).toEqual(
      records(join(localRun, 'events.jsonl')),
    );

    // Weights after the step: the local checkpoint against the service's.
    const step = join('checkpoints', 'step-000001');
    const pointer = JSON.parse(
      readFileSync(join(remoteRun, step, 'tinker-checkpoint.json'), 'utf8'),
    ) as { path: string };
    const match = /^tinker:\/\/([^/]+)\/weights\/([^/]+)$/.exec(pointer.path);
    expect(match).not.toBeNull();
    const served = join(serverCheckpoints, match![1]!, match![2]!);
    expect(existsSync(join(served, 'model.safetensors'))).toBe(true);
    const expected = readSafetensors(join(localRun, step, 'model.safetensors'));
    const actual = readSafetensors(join(served, 'model.safetensors'));
    expect([...actual.keys()].sort()).toEqual([...expected.keys()].sort());
    let maxAbsDiff = 0;
    for (const [name, values] of expected) {
      const other = actual.get(name)!;
      expect(other.length).toBe(values.length);
      for (let i = 0; i < values.length; i++)
        maxAbsDiff = Math.max(maxAbsDiff, Math.abs(other[i]! - values[i]!));
    }
    // Identical: the same engine computes the same batch in both runs.
    expect(maxAbsDiff).toBe(0);
    // And the step trained: the weights left the shipped base.
    const base = readSafetensors(
      fileURLToPath(
        new URL('../../assets/base/model.safetensors', import.meta.url),
      ),
    );
    let moved = 0;
    for (const [name, values] of expected) {
      const start = base.get(name)!;
      for (let i = 0; i < values.length; i++)
        moved = Math.max(moved, Math.abs(values[i]! - start[i]!));
    }
    expect(moved).toBeGreaterThan(1e-6);
  }, 600_000);
});

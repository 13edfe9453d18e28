import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { learnedLogitScale } from './logit-scale';
import { encodeSafetensors, type NamedTensor } from './safetensors';

function modelFile(directory: string, name: string, gain?: number[]): string {
  const file = join(directory, name);
  const tensors: [string, NamedTensor][] = [
    [
      'model.embed_tokens.weight',
      { shape: [2, 2], data: new Float32Array([1, 2, 3, 4]) },
    ],
  ];
  if (gain !== undefined)
    tensors.push([
      'model.norm.weight',
      { shape: [gain.length], data: new Float32Array(gain) },
    ]);
  writeFileSync(file, encodeSafetensors({ tensors }));
  return file;
}

describe('learnedLogitScale', () => {
  const directory = mkdtempSync(join(tmpdir(), 'seal-logit-scale-'));
  afterAll(() => rmSync(directory, { recursive: true, force: true }));

  it('should be the mean final-norm gain of the model over the base', () => {
    expect(
      learnedLogitScale({
        baseModelFile: modelFile(directory, 'base.safetensors', [1, 1, 2, 0]),
        modelFile: modelFile(directory, 'after.safetensors', [2, 1, 3, 1]),
      }),
    ).toBeCloseTo(1.75, 6);
  });

  it('should be undefined for a missing file, a missing gain, a zero base or bytes that are not safetensors', () => {
    const base = modelFile(directory, 'base2.safetensors', [1, 1]);
    expect(
      learnedLogitScale({
        baseModelFile: base,
        modelFile: join(directory, 'absent.safetensors'),
      }),
    ).toBeUndefined();
    expect(
      learnedLogitScale({
        baseModelFile: base,
        modelFile: modelFile(directory, 'no-gain.safetensors'),
      }),
    ).toBeUndefined();
    expect(
      learnedLogitScale({
        baseModelFile: modelFile(directory, 'zero.safetensors', [1, -1]),
        modelFile: base,
      }),
    ).toBeUndefined();
    const garbage = join(directory, 'garbage.safetensors');
    writeFileSync(garbage, 'not a safetensors file');
    expect(
      learnedLogitScale({ baseModelFile: base, modelFile: garbage }),
    ).toBeUndefined();
  });
});

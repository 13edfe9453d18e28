import { probeDevice } from '@seal/engine-ort';
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { runTrain } from './commands/train';
import { precisionSetting, resolveDevice } from './device-flag';
import { exitCodeFor } from './exit-codes';
import { createOutput, type Output } from './ui/output';

/** A text-mode output whose stdout is captured. */
function capture(): { output: Output; text: () => string } {
  const stdout = new PassThrough();
  let text = '';
  stdout.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
  return {
    output: createOutput({ json: false, stdout, stderr: new PassThrough() }),
    text: () => text,
  };
}

describe('resolveDevice', () => {
  it('should default to the CPU without probing or printing', async () => {
    const { output, text } = capture();
    expect(
      await resolveDevice({ flag: undefined, environment: {}, output }),
    ).toBe('cpu');
    expect(text()).toBe('');
  });

  it('should read $SEAL_DEVICE when the flag is absent and refuse an unknown value', async () => {
    const { output } = capture();
    expect(
      await resolveDevice({
        flag: undefined,
        environment: { SEAL_DEVICE: 'cpu' },
        output,
      }),
    ).toBe('cpu');
    await expect(
      resolveDevice({
        flag: undefined,
        environment: { SEAL_DEVICE: 'gpu' },
        output,
      }),
    ).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
  });

  it('should say which device auto chose', async () => {
    const { output, text } = capture();
    const device = await resolveDevice({
      flag: 'auto',
      environment: {},
      output,
    });
    expect(text()).toContain(`device: ${device} (auto`);
  });
});

describe('seal train --device', () => {
  it('should stop before any work with one line and the unavailable-backend exit code when WebGPU does not work here', async () => {
    const probe = await probeDevice('webgpu');
    if (probe.available) return; // a machine with a GPU: nothing to refuse
    const { output, text } = capture();
    const error: unknown = await runTrain({
      argv: [
        '--device',
        'webgpu',
        '--preset',
        'smoke',
        '--run-dir',
        '/nonexistent/run',
      ],
      output,
    }).catch((thrown: unknown) => thrown);
    expect(error).toMatchObject({
      code: 'BACKEND_UNAVAILABLE',
      details: { device: 'webgpu' },
    });
    expect((error as Error).message).not.toContain('\n');
    expect(exitCodeFor('BACKEND_UNAVAILABLE')).toBe(4);
    expect(text()).toBe('');
  });

  it('should refuse an unknown device as a usage error', async () => {
    const { output } = capture();
    await expect(
      runTrain({ argv: ['--device', 'tpu'], output }),
    ).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
  });
});

describe('--precision', () => {
  it('should leave fp32 (and no flag) out of the policy settings, so fp32 builds the graphs it always did', () => {
    const { output, text } = capture();
    expect(
      precisionSetting({ flag: undefined, device: 'cpu', output }),
    ).toEqual({});
    expect(precisionSetting({ flag: 'fp32', device: 'cpu', output })).toEqual(
      {},
    );
    expect(text()).toBe('');
  });

  it('should pass fp16 and bf16 on and say the CPU only emulates them', () => {
    const { output, text } = capture();
    expect(precisionSetting({ flag: 'fp16', device: 'cpu', output })).toEqual({
      precision: 'fp16',
    });
    expect(text()).toContain('precision: fp16 (emulated on the CPU');
    expect(precisionSetting({ flag: 'bf16', device: 'cuda', output })).toEqual({
      precision: 'bf16',
    });
    expect(text()).toContain('precision: bf16\n');
  });

  it('should refuse an unknown precision as a usage error', async () => {
    const { output } = capture();
    await expect(
      runTrain({ argv: ['--precision', 'fp8'], output }),
    ).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
  });
});

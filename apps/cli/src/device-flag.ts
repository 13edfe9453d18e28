import {
  deviceRequests,
  parseDeviceRequest,
  precisions,
  selectDevice,
  type DeviceRequest,
  type ExecutionProvider,
  type Precision,
} from '@seal/engine-ort';
import * as z from 'zod';
import type { Output } from './ui/output';

/** The `--device` flag's value in a command's flags schema (absent: `$SEAL_DEVICE`, else `cpu`). */
export const deviceFlagSchema = z.enum(deviceRequests).optional();

/** The `--device` flag's `node:util` option. */
export const deviceFlagOption = { device: { type: 'string' } } as const;

/** The `--device` flag's lines in a command's help. */
export const deviceFlagHelp = `  --device D       where the model runs: cpu (default, or $SEAL_DEVICE), webgpu,
                   cuda, or auto (the best available); a device that does not
                   work here stops the command with what is missing (exit 4)`;

/**
 * The device a command runs its model on: the `--device` flag, else
 * `$SEAL_DEVICE`, else `cpu`. Any other device is probed first, so an
 * unavailable one stops the command before any work with one line naming what
 * is missing (`BACKEND_UNAVAILABLE`, exit 4); nothing falls back to the CPU.
 * `auto` says which device it chose and why the better ones were passed over.
 */
export async function resolveDevice({
  flag,
  environment = process.env,
  output,
}: {
  flag: DeviceRequest | undefined;
  environment?: NodeJS.ProcessEnv;
  output: Output;
}): Promise<ExecutionProvider> {
  const fromEnvironment = environment['SEAL_DEVICE'];
  const request: DeviceRequest =
    flag ??
    (fromEnvironment === undefined || fromEnvironment === ''
      ? 'cpu'
      : parseDeviceRequest(fromEnvironment));
  if (request === 'cpu') return 'cpu';
  const { device, probes } = await selectDevice(request);
  if (request === 'auto') {
    const passed = probes
      .filter((probe) => !probe.available)
      .map(
        (probe) => `${probe.device}: ${probe.available ? '' : probe.missing}`,
      );
    output.line(
      `device: ${device} (auto${passed.length === 0 ? '' : `; not available: ${passed.join(', ')}`})`,
    );
  } else {
    output.line(`device: ${device}`);
  }
  return device;
}

/** The `--precision` flag's value in a command's flags schema (absent: fp32). */
export const precisionFlagSchema = z.enum(precisions).optional();

/** The `--precision` flag's `node:util` option. */
export const precisionFlagOption = { precision: { type: 'string' } } as const;

/** The `--precision` flag's lines in a command's help. */
export const precisionFlagHelp = `  --precision P    the decoder's matrix products: fp32 (default), fp16 (with
                   dynamic loss scaling) or bf16, with fp32 weights and
                   optimizer; a device that cannot run them stops the command
                   (exit 4); the CPU only emulates them (rounding, no speed-up)`;

/**
 * The policy setting for the `--precision` flag (nothing for fp32 or no
 * flag, so fp32 runs build exactly the graphs they always did). Says so when
 * the CPU can only emulate the reduced-precision products.
 */
export function precisionSetting({
  flag,
  device,
  output,
}: {
  flag: Precision | undefined;
  device: ExecutionProvider;
  output: Output;
}): { precision?: Precision } {
  if (flag === undefined || flag === 'fp32') return {};
  output.line(
    `precision: ${flag}${device === 'cpu' ? ' (emulated on the CPU: the rounding of reduced precision, no speed-up)' : ''}`,
  );
  return { precision: flag };
}

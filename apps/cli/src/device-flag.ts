import { deviceRequests, parseDeviceRequest, selectDevice, type DeviceRequest, type ExecutionProvider } from '@seal/engine-ort';
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
    flag ?? (fromEnvironment === undefined || fromEnvironment === '' ? 'cpu' : parseDeviceRequest(fromEnvironment));
  if (request === 'cpu') return 'cpu';
  const { device, probes } = await selectDevice(request);
  if (request === 'auto') {
    const passed = probes.filter((probe) => !probe.available).map((probe) => `${probe.device}: ${probe.available ? '' : probe.missing}`);
    output.line(`device: ${device} (auto${passed.length === 0 ? '' : `; not available: ${passed.join(', ')}`})`);
  } else {
    output.line(`device: ${device}`);
  }
  return device;
}

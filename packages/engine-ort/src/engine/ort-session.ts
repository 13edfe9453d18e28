import { SealError } from '@seal/spec';
import * as ort from 'onnxruntime-node';
import {
  cudaLibrariesInstalled,
  deviceOutputsSupported,
  explainDeviceFailure,
  type ExecutionProvider,
} from './device';

export type { ExecutionProvider } from './device';

/** Session settings for one graph. */
export type SessionSettings = {
  /** Where the graph runs. */
  executionProvider: ExecutionProvider;
  /** Intra-op threads (CPU kernels). */
  threads: number;
  /**
   * ORT graph optimisation level. `all` for fp32 graphs; fp64 gradient checks
   * use `basic`, because fusions can introduce float-only contrib ops.
   */
  optimizationLevel: 'disabled' | 'basic' | 'extended' | 'all';
  /** Use ORT's CPU memory arena (default true): faster for fixed shapes, but it keeps each session's peak allocation. */
  memoryArena?: boolean;
  /**
   * Profile the session's runs into `<prefix>_<date>.json` until
   * `endProfiling()` (used to read where each node ran).
   */
  profileFilePrefix?: string;
  /**
   * Outputs that stay on the device (`preferredOutputLocation: 'gpu-buffer'`)
   * so that later runs take them as inputs without a round trip through the
   * host. On the CPU EP every output is host memory, so this changes nothing;
   * on CUDA onnxruntime-node has no device-located outputs, so they are
   * requested on WebGPU only (`deviceOutputsSupported`).
   */
  deviceOutputs?: readonly string[];
  /**
   * The WebGPU EP's validation (ignored elsewhere): ORT's default `basic`
   * includes Dawn's validation of every command; `wgpuOnly` keeps only
   * Dawn's; `disabled` skips both (an invalid command can then crash the
   * process). The device is shared by every session, so the first session's
   * mode holds.
   */
  webgpuValidation?: WebGpuValidation;
};

/** Validation modes of the WebGPU EP. */
export type WebGpuValidation = 'disabled' | 'wgpuOnly' | 'basic' | 'full';

/** Every accepted value of {@link WebGpuValidation}. */
export const webgpuValidationModes = [
  'disabled',
  'wgpuOnly',
  'basic',
  'full',
] as const satisfies readonly WebGpuValidation[];

/**
 * Creates an ORT session for a serialised graph. An execution provider that
 * is not installed or finds no device gives `BACKEND_UNAVAILABLE`.
 */
export async function createOrtSession({
  model,
  settings,
}: {
  model: Uint8Array;
  settings: SessionSettings;
}): Promise<ort.InferenceSession> {
  const { executionProvider } = settings;
  if (executionProvider !== 'cpu') assertBackendListed(executionProvider);
  try {
    return await ort.InferenceSession.create(model, {
      executionProviders: [
        executionProvider === 'webgpu' &&
        settings.webgpuValidation !== undefined
          ? { name: 'webgpu', validationMode: settings.webgpuValidation }
          : executionProvider,
      ],
      intraOpNumThreads: settings.threads,
      interOpNumThreads: 1,
      executionMode: 'sequential',
      graphOptimizationLevel: settings.optimizationLevel,
      enableCpuMemArena: settings.memoryArena ?? true,
      enableMemPattern: true,
      extra: { session: { intra_op: { allow_spinning: '1' } } },
      ...(settings.profileFilePrefix === undefined
        ? {}
        : {
            enableProfiling: true,
            profileFilePrefix: settings.profileFilePrefix,
          }),
      ...(!deviceOutputsSupported(executionProvider) ||
      settings.deviceOutputs === undefined ||
      settings.deviceOutputs.length === 0
        ? {}
        : {
            preferredOutputLocation: Object.fromEntries(
              settings.deviceOutputs.map((name) => [
                name,
                'gpu-buffer' as const,
              ]),
            ),
          }),
    });
  } catch (cause) {
    if (executionProvider !== 'cpu') {
      throw new SealError({
        code: 'BACKEND_UNAVAILABLE',
        message: explainDeviceFailure({
          device: executionProvider,
          error: String(cause),
        }).message,
        cause,
        details: { executionProvider },
      });
    }
    throw new SealError({
      code: 'INTERNAL',
      message: `ONNX Runtime rejected a generated graph: ${String(cause)}`,
      cause,
    });
  }
}

/** Throws `BACKEND_UNAVAILABLE` unless ORT lists the execution provider as usable. */
export function assertBackendListed(
  executionProvider: ExecutionProvider,
): void {
  const backends = ort.listSupportedBackends();
  const entry = backends.find((backend) => backend.name === executionProvider);
  // `bundled: false` means the binaries are downloaded at install time (CUDA);
  // they are only usable when the install step fetched them.
  if (entry === undefined) {
    throw new SealError({
      code: 'BACKEND_UNAVAILABLE',
      message: `device '${executionProvider}' is not available: this onnxruntime-node build has no '${executionProvider}' execution provider (it has ${backends
        .filter((backend) => backend.bundled)
        .map((backend) => backend.name)
        .join(', ')}); use --device cpu (or 'auto')`,
      details: { device: executionProvider, missing: 'execution-provider' },
    });
  }
  if (
    !entry.bundled &&
    executionProvider === 'cuda' &&
    !cudaLibrariesInstalled()
  ) {
    const { missing, message } = explainDeviceFailure({
      device: 'cuda',
      error: 'libonnxruntime_providers_cuda.so is not installed',
    });
    throw new SealError({
      code: 'BACKEND_UNAVAILABLE',
      message,
      details: { device: executionProvider, missing },
    });
  }
}

/** A float tensor over a typed-array view (no copy on CPU). */
export function floatTensor(
  data: Float32Array | Float64Array,
  shape: readonly number[],
): ort.Tensor {
  return new ort.Tensor(
    data instanceof Float64Array ? 'float64' : 'float32',
    data,
    [...shape],
  );
}

/** An int64 tensor from numbers. */
export function int64Tensor(
  values: ArrayLike<number> | BigInt64Array,
  shape: readonly number[],
): ort.Tensor {
  const data =
    values instanceof BigInt64Array
      ? values
      : BigInt64Array.from(Array.from(values, (v) => BigInt(v)));
  return new ort.Tensor('int64', data, [...shape]);
}

export { ort };

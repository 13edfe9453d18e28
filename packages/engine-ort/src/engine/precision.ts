import { SealError } from '@seal/spec';
import { GraphBuilder, type MatmulPrecision } from '../graph/graph-builder';
import type { ExecutionProvider } from './device';
import { createOrtSession, floatTensor } from './ort-session';

/**
 * Precision of the model's matrix products: `fp32` (default), or `fp16` /
 * `bf16` products with fp32 master weights, Adam moments and update
 * (mixed precision; decision engine-008).
 */
export type Precision = 'fp32' | 'fp16' | 'bf16';

/** Every accepted value of a `--precision` flag or `precision` setting. */
export const precisions = [
  'fp32',
  'fp16',
  'bf16',
] as const satisfies readonly Precision[];

/** Parses a precision (a flag or a config value); throws `INVALID_ARGUMENT`. */
export function parsePrecision(value: string): Precision {
  const precision = precisions.find((candidate) => candidate === value);
  if (precision === undefined) {
    throw new SealError({
      code: 'INVALID_ARGUMENT',
      message: `unknown precision '${value}'; expected one of ${precisions.join(', ')}`,
    });
  }
  return precision;
}

/**
 * How the products of `precision` run on `executionProvider` (pure):
 * undefined for `fp32`; `emulated` on the CPU EP, which has no fp16 or bf16
 * MatMul/Gemm kernel on x64 (it rejects bf16 and runs fp16 in fp32 behind
 * casts of its own, dropping the rounding: measured, decision engine-008);
 * `native` on CUDA (fp16, bf16) and WebGPU (fp16 only). `bf16` on WebGPU
 * throws `BACKEND_UNAVAILABLE`: its kernels take float32 and float16 only.
 */
export function matmulPrecisionFor({
  precision,
  executionProvider,
}: {
  precision: Precision;
  executionProvider: ExecutionProvider;
}): MatmulPrecision | undefined {
  if (precision === 'fp32') return undefined;
  const dtype = precision === 'fp16' ? 'float16' : 'bfloat16';
  if (executionProvider === 'webgpu' && precision === 'bf16') {
    throw new SealError({
      code: 'BACKEND_UNAVAILABLE',
      message:
        "precision 'bf16' is not available on device 'webgpu': ONNX Runtime's WebGPU execution provider has no bfloat16 kernels (its float types are float32 and float16); use --precision fp16 or fp32, or --device cuda",
      details: { device: executionProvider, precision },
    });
  }
  return { dtype, mode: executionProvider === 'cpu' ? 'emulated' : 'native' };
}

/**
 * Turns the error of a failed reduced-precision probe on `device` into one
 * line naming what is missing (pure).
 */
export function explainPrecisionFailure({
  device,
  precision,
  error,
}: {
  device: ExecutionProvider;
  precision: Precision;
  error: string;
}): string {
  const text = error.replace(/\s+/g, ' ');
  const prefix = `precision '${precision}' is not available on device '${device}':`;
  if (device === 'webgpu' && /f16|shader-?f16|ShaderF16/i.test(text)) {
    return `${prefix} the WebGPU adapter does not offer the shader-f16 feature that ONNX Runtime's float16 kernels need (Dawn over Vulkan leaves it off on some NVIDIA drivers); use --precision fp32, or --device cuda`;
  }
  const detail = text.length > 200 ? `${text.slice(0, 200)}…` : text;
  if (/Could not find an implementation/i.test(text)) {
    return `${prefix} ONNX Runtime has no ${precision} MatMul/Gemm kernel for it (${detail}); use --precision fp32`;
  }
  return `${prefix} a ${precision} matrix product failed there (${detail}); use --precision fp32`;
}

/** A Cast → MatMul → Cast graph in `precision`'s type, as the engine's native products emit it. */
function precisionProbeGraph(matmulPrecision: MatmulPrecision): Uint8Array {
  const g = new GraphBuilder({ floatType: 'float32', matmulPrecision });
  const x = g.input({ name: 'x', shape: [2, 2] });
  const w = g.input({ name: 'w', shape: [2, 2] });
  g.output(g.linear(g.matmul(x, w), w), 'y');
  return g.toOnnx({ name: 'precision-probe' });
}

/**
 * Checks that `device` runs the products of `precision`: a pure check
 * ({@link matmulPrecisionFor}), then, for native products, a session of a
 * Cast/MatMul/Gemm graph in that type, run once. Throws
 * `BACKEND_UNAVAILABLE` with one line naming what is missing; returns how
 * the products will run.
 */
export async function checkPrecision({
  device,
  precision,
}: {
  device: ExecutionProvider;
  precision: Precision;
}): Promise<MatmulPrecision | undefined> {
  const matmulPrecision = matmulPrecisionFor({
    precision,
    executionProvider: device,
  });
  if (matmulPrecision === undefined || matmulPrecision.mode === 'emulated')
    return matmulPrecision;
  try {
    const session = await createOrtSession({
      model: precisionProbeGraph(matmulPrecision),
      settings: {
        executionProvider: device,
        threads: 1,
        optimizationLevel: 'all',
      },
    });
    try {
      const output = await session.run({
        x: floatTensor(Float32Array.of(1, 2, 3, 4), [2, 2]),
        w: floatTensor(Float32Array.of(1, 0, 0, 1), [2, 2]),
      });
      const y = output.y!.data as Float32Array;
      if (y[0] !== 1 || y[3] !== 4)
        throw new Error(`wrong product [${Array.from(y).join(', ')}]`);
    } finally {
      await session.release();
    }
  } catch (error) {
    const cause =
      error instanceof SealError && error.cause !== undefined
        ? error.cause
        : error;
    throw new SealError({
      code: 'BACKEND_UNAVAILABLE',
      message: explainPrecisionFailure({
        device,
        precision,
        error: String(cause),
      }),
      cause: error,
      details: { device, precision },
    });
  }
  return matmulPrecision;
}

/** Dynamic loss scaling settings (fp16 only), as in PyTorch's `GradScaler`. */
export type LossScalingSettings = {
  /** The first scale. Default 2¹⁶. */
  initialScale: number;
  /** Steps with finite gradients after which the scale grows. Default 2000. */
  growthInterval: number;
  /** Factor of growth. Default 2. */
  growthFactor: number;
  /** Factor applied on an overflow (inf/nan gradients). Default 0.5. */
  backoffFactor: number;
  /** The scale never goes below this. Default 1 (unscaled). */
  minScale: number;
};

/** Defaults of {@link LossScalingSettings}. */
export const defaultLossScaling: LossScalingSettings = {
  initialScale: 2 ** 16,
  growthInterval: 2000,
  growthFactor: 2,
  backoffFactor: 0.5,
  minScale: 1,
};

/** The loss scaler's state, checkpointed with the optimizer's. */
export type LossScaleState = {
  /** The current scale. */
  scale: number;
  /** Steps with finite gradients since the last change of scale. */
  goodSteps: number;
};

/**
 * The next loss-scale state (pure): after an overflow (`finite` false, the
 * step was skipped) the scale shrinks by `backoffFactor` (not below
 * `minScale`) and the count restarts; after `growthInterval` finite steps in
 * a row it grows by `growthFactor`.
 */
export function nextLossScale(
  state: LossScaleState,
  finite: boolean,
  settings: LossScalingSettings,
): LossScaleState {
  if (!finite)
    return {
      scale: Math.max(settings.minScale, state.scale * settings.backoffFactor),
      goodSteps: 0,
    };
  const goodSteps = state.goodSteps + 1;
  if (goodSteps >= settings.growthInterval)
    return { scale: state.scale * settings.growthFactor, goodSteps: 0 };
  return { scale: state.scale, goodSteps };
}

/** Checks loss scaling settings; throws `INVALID_ARGUMENT`. */
export function resolveLossScaling(
  settings: Partial<LossScalingSettings> = {},
): LossScalingSettings {
  const resolved = { ...defaultLossScaling, ...settings };
  const positive = (name: keyof LossScalingSettings, value: number): void => {
    if (!(Number.isFinite(value) && value > 0)) {
      throw new SealError({
        code: 'INVALID_ARGUMENT',
        message: `lossScaling.${name} must be a positive number, got ${value}`,
      });
    }
  };
  positive('initialScale', resolved.initialScale);
  positive('minScale', resolved.minScale);
  positive('growthFactor', resolved.growthFactor);
  positive('backoffFactor', resolved.backoffFactor);
  if (!(
    Number.isInteger(resolved.growthInterval) && resolved.growthInterval >= 1
  )) {
    throw new SealError({
      code: 'INVALID_ARGUMENT',
      message: `lossScaling.growthInterval must be a positive integer, got ${resolved.growthInterval}`,
    });
  }
  return resolved;
}

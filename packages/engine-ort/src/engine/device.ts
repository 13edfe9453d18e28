import { SealError } from '@seal/spec';
import {
  closeSync,
  existsSync,
  openSync,
  readdirSync,
  readFileSync,
  readSync,
} from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { GraphBuilder } from '../graph/graph-builder';
import * as ort from 'onnxruntime-node';

/** Execution providers the engine can run on. */
export type ExecutionProvider = 'cpu' | 'webgpu' | 'cuda';

/** What a user may ask for: a device, or `auto` (the best one available). */
export type DeviceRequest = ExecutionProvider | 'auto';

/** Every accepted value of a `--device` flag or `device` setting. */
export const deviceRequests = [
  'cpu',
  'webgpu',
  'cuda',
  'auto',
] as const satisfies readonly DeviceRequest[];

/** The order in which `auto` tries devices: the first available wins. */
export const autoDeviceOrder = [
  'cuda',
  'webgpu',
  'cpu',
] as const satisfies readonly ExecutionProvider[];

/**
 * Why a device is unavailable:
 * - `vulkan-loader`: `libvulkan.so.1` could not be loaded (WebGPU runs Dawn over Vulkan);
 * - `webgpu-adapter`: the loader is there but finds no GPU adapter (no GPU, or no Vulkan driver for it);
 * - `cuda-ep-libraries`: onnxruntime-node's CUDA EP libraries were not installed;
 * - `cuda-runtime`: the CUDA EP is there but the CUDA runtime libraries it was
 *   built for (CUDA 13 for onnxruntime-node 1.30: `libcudart.so.13`,
 *   `libcublas.so.13`, `libcublasLt.so.13`) or a driver are not;
 * - `cudnn`: the CUDA EP is there but cuDNN 9 (for the same CUDA) is not;
 * - `execution-provider`: this onnxruntime-node build does not list the provider at all;
 * - `unknown`: the provider failed for another reason (the message keeps ORT's first line).
 */
export type DeviceMissing =
  | 'vulkan-loader'
  | 'webgpu-adapter'
  | 'cuda-ep-libraries'
  | 'cuda-runtime'
  | 'cudnn'
  | 'execution-provider'
  | 'unknown';

/** The outcome of {@link probeDevice}. */
export type DeviceProbe =
  | { readonly device: ExecutionProvider; readonly available: true }
  | {
      readonly device: ExecutionProvider;
      readonly available: false;
      /** What is missing. */
      readonly missing: DeviceMissing;
      /** One line: what is missing and how to get it. */
      readonly message: string;
    };

const cudaInstallHint =
  "reinstall onnxruntime-node with them on a machine that can reach nuget.org (ONNXRUNTIME_NODE_INSTALL=cuda12 pnpm rebuild onnxruntime-node, or npm install onnxruntime-node --onnxruntime-node-install=cuda12: 'cuda12' is the flag's name in 1.30, whose package links CUDA 13), or copy libonnxruntime_providers_cuda.so and libonnxruntime_providers_shared.so of the same ONNX Runtime version beside onnxruntime-node's binding";

/** The CUDA major version CUDA EP libraries of onnxruntime-node 1.30 link against. */
export const cudaMajorVersion = 13;

/**
 * Where to find CUDA libraries of one major version: the NVIDIA toolkit's, or
 * the `nvidia/<package>/lib` folders of a PyTorch built for it (cu130 for
 * CUDA 13) on `LD_LIBRARY_PATH`.
 */
function cudaLibraryHint(major: number): string {
  return `install the CUDA ${major} runtime (cudart, cuBLAS) and cuDNN 9 for CUDA ${major}, or put a PyTorch cu${major}0 environment's site-packages/nvidia/*/lib folders on LD_LIBRARY_PATH, and an NVIDIA driver that supports CUDA ${major}`;
}

/**
 * Turns the error of a failed session on `device` into what is missing and
 * how to get it, as one line. Pure: it reads only the error text (ORT's and
 * Dawn's messages, which name the library or the adapter).
 */
export function explainDeviceFailure({
  device,
  error,
}: {
  device: ExecutionProvider;
  error: string;
}): {
  missing: DeviceMissing;
  message: string;
} {
  const text = error.replace(/\s+/g, ' ');
  const prefix = `device '${device}' is not available:`;
  const fallback = "or use --device cpu (or 'auto')";
  if (device === 'webgpu') {
    if (/libvulkan\.so/i.test(text) || /Couldn't load Vulkan/i.test(text)) {
      return {
        missing: 'vulkan-loader',
        message: `${prefix} no Vulkan loader (libvulkan.so.1 not found; ONNX Runtime's WebGPU runs on Vulkan); install it (Debian/Ubuntu: apt-get install libvulkan1) with your GPU's Vulkan driver, or put it on LD_LIBRARY_PATH, ${fallback}`,
      };
    }
    if (/adapter/i.test(text)) {
      return {
        missing: 'webgpu-adapter',
        message: `${prefix} the Vulkan loader found no GPU adapter (no GPU, or no Vulkan driver for it); install the GPU's Vulkan driver (NVIDIA: its nvidia_icd.json in /usr/share/vulkan/icd.d or named by VK_DRIVER_FILES, and glvnd's libGLdispatch.so.0 and libGLX.so.0 that its libGLX_nvidia.so.0 loads: apt-get install libglvnd0 libglx0), ${fallback}`,
      };
    }
  }
  if (device === 'cuda') {
    // "Failed to load library libonnxruntime_providers_cuda.so with error:
    // libcublasLt.so.12: …" names the provider library but the missing
    // library is the one after "with error:"; classify on that part.
    const cause = /with error:(.*)$/i.exec(text)?.[1] ?? text;
    const missingLibrary = /lib[\w.-]+\.so[\w.]*/i.exec(cause)?.[0] ?? '';
    if (
      /providers_cuda/i.test(missingLibrary) ||
      (missingLibrary === '' && /providers_cuda/i.test(text))
    ) {
      return {
        missing: 'cuda-ep-libraries',
        message: `${prefix} onnxruntime-node's CUDA execution provider libraries are not installed (libonnxruntime_providers_cuda.so); ${cudaInstallHint}, ${fallback}`,
      };
    }
    if (/libcudnn/i.test(cause)) {
      return {
        missing: 'cudnn',
        message: `${prefix} cuDNN 9 was not found (${firstMatch(cause, /libcudnn[\w.]*/i)}); install cuDNN 9 for CUDA ${cudaMajorVersion} and put its libraries on LD_LIBRARY_PATH (apt: cudnn9-cuda-${cudaMajorVersion}; pip: nvidia-cudnn-cu${cudaMajorVersion}), ${fallback}`,
      };
    }
    if (
      /libcu\w*\.so|libnv\w*\.so|cuda driver|CUDA failure|no CUDA-capable device|cudaError/i.test(
        cause,
      )
    ) {
      const libraries = [
        ...new Set(
          [...cause.matchAll(/lib(?:cu|nv)\w*\.so[\w.]*/gi)].map(
            (match) => match[0],
          ),
        ),
      ];
      const what =
        libraries.length > 0
          ? libraries.join(', ')
          : firstMatch(
              cause,
              /CUDA failure[^;]*|no CUDA-capable device[^;]*|cuda driver[^;]*/i,
            );
      // The missing library's soname names the CUDA it was linked against
      // (libcublasLt.so.13: CUDA 13); libcurand keeps .so.10 across versions.
      const soname =
        /lib(?:cudart|cublas|cublasLt|cufft|cusparse|cusolver)\.so\.(\d+)/i.exec(
          cause,
        );
      const major = soname === null ? cudaMajorVersion : Number(soname[1]);
      return {
        missing: 'cuda-runtime',
        message: `${prefix} the CUDA ${major} runtime or driver is missing or of the wrong version (${what}); the CUDA execution provider needs the CUDA libraries it was built for on LD_LIBRARY_PATH: ${cudaLibraryHint(major)}, ${fallback}`,
      };
    }
  }
  const firstLine = text.length > 200 ? `${text.slice(0, 200)}…` : text;
  return {
    missing: 'unknown',
    message: `${prefix} ONNX Runtime could not start it (${firstLine}), ${fallback}`,
  };
}

function firstMatch(text: string, pattern: RegExp): string {
  return pattern.exec(text)?.[0]?.trim() ?? 'see ONNX Runtime';
}

/** The folder of onnxruntime-node's native libraries on this platform. */
export function ortNativeDirectory(): string | undefined {
  try {
    const require = createRequire(import.meta.url);
    const root = dirname(require.resolve('onnxruntime-node/package.json'));
    return join(root, 'bin', 'napi-v6', process.platform, process.arch);
  } catch {
    return undefined;
  }
}

/** Whether onnxruntime-node's CUDA EP libraries were installed beside its binding. */
export function cudaLibrariesInstalled(
  directory = ortNativeDirectory(),
): boolean {
  return (
    directory !== undefined &&
    existsSync(directory) &&
    readdirSync(directory).some((file) => file.includes('providers_cuda'))
  );
}

/**
 * Whether the Vulkan loader `libvulkan.so.1` can be found the way the dynamic
 * linker finds it (`LD_LIBRARY_PATH`, the `ld.so` cache, the usual library
 * folders). Checked before WebGPU is tried, because Dawn reports a missing
 * loader only on stderr and then says just that it found no adapter.
 * Always true off Linux, where WebGPU does not use this loader.
 */
export function vulkanLoaderFound({
  libraryPath = process.env['LD_LIBRARY_PATH'] ?? '',
  cacheFile = '/etc/ld.so.cache',
}: { libraryPath?: string; cacheFile?: string } = {}): boolean {
  if (process.platform !== 'linux') return true;
  return sharedLibraryFound('libvulkan.so.1', { libraryPath, cacheFile });
}

/**
 * Whether the dynamic linker would find the shared library `name`: in
 * `folders` (a library's own folder, for its `$ORIGIN` run path), on
 * `LD_LIBRARY_PATH`, in the usual library folders, or in the `ld.so` cache.
 */
export function sharedLibraryFound(
  name: string,
  {
    libraryPath = process.env['LD_LIBRARY_PATH'] ?? '',
    cacheFile = '/etc/ld.so.cache',
    folders: extra = [],
  }: {
    libraryPath?: string;
    cacheFile?: string;
    folders?: readonly string[];
  } = {},
): boolean {
  const folders = [
    ...extra,
    ...libraryPath.split(':').filter((folder) => folder !== ''),
    '/lib/x86_64-linux-gnu',
    '/usr/lib/x86_64-linux-gnu',
    '/lib64',
    '/usr/lib64',
    '/lib',
    '/usr/lib',
    '/usr/local/lib',
  ];
  if (folders.some((folder) => existsSync(join(folder, name)))) return true;
  try {
    return readFileSync(cacheFile).includes(`\0${name}\0`);
  } catch {
    return false;
  }
}

/**
 * The direct dependencies (`DT_NEEDED`) of a 64-bit little-endian ELF shared
 * library, read from its program headers and dynamic section (a few reads,
 * not the whole file). Throws `INVALID_DATA` for a file that is not one.
 */
export function elfNeededLibraries(path: string): string[] {
  const file = openSync(path, 'r');
  try {
    const read = (offset: number, length: number): Buffer => {
      const buffer = Buffer.alloc(length);
      const got = readSync(file, buffer, 0, length, offset);
      return buffer.subarray(0, got);
    };
    const header = read(0, 64);
    if (
      header.length < 64 ||
      header.readUInt32BE(0) !== 0x7f454c46 ||
      header[4] !== 2 ||
      header[5] !== 1
    ) {
      throw new SealError({
        code: 'INVALID_DATA',
        message: `${path}: not a 64-bit little-endian ELF file`,
      });
    }
    const phoff = Number(header.readBigUInt64LE(0x20));
    const phentsize = header.readUInt16LE(0x36);
    const phnum = header.readUInt16LE(0x38);
    const table = read(phoff, phentsize * phnum);
    const segments = Array.from({ length: phnum }, (_, i) => {
      const at = i * phentsize;
      return {
        type: table.readUInt32LE(at),
        offset: Number(table.readBigUInt64LE(at + 8)),
        vaddr: Number(table.readBigUInt64LE(at + 16)),
        filesz: Number(table.readBigUInt64LE(at + 32)),
      };
    });
    const dynamic = segments.find((segment) => segment.type === 2);
    if (dynamic === undefined) return [];
    const entries = read(dynamic.offset, dynamic.filesz);
    const needed: number[] = [];
    let strtab = -1;
    let strsz = 0;
    for (let at = 0; at + 16 <= entries.length; at += 16) {
      const tag = Number(entries.readBigInt64LE(at));
      const value = Number(entries.readBigUInt64LE(at + 8));
      if (tag === 0) break;
      if (tag === 1) needed.push(value);
      else if (tag === 5) strtab = value;
      else if (tag === 10) strsz = value;
    }
    const load = segments.find(
      (segment) =>
        segment.type === 1 &&
        strtab >= segment.vaddr &&
        strtab < segment.vaddr + segment.filesz,
    );
    if (load === undefined || strsz === 0) return [];
    const strings = read(strtab - load.vaddr + load.offset, strsz);
    return needed.map((offset) => {
      const end = strings.indexOf(0, offset);
      return strings.toString('latin1', offset, end < 0 ? undefined : end);
    });
  } finally {
    closeSync(file);
  }
}

/**
 * The direct dependencies of onnxruntime-node's CUDA provider library that
 * the dynamic linker would not find, in the library's order (empty when it
 * is absent or unreadable). ORT's own error says only "Failed to load shared
 * library" (the library's name goes to its log), so the probe names it.
 */
export function missingCudaLibraries(
  directory = ortNativeDirectory(),
  libraryPath = process.env['LD_LIBRARY_PATH'] ?? '',
): string[] {
  if (directory === undefined) return [];
  const provider = join(directory, 'libonnxruntime_providers_cuda.so');
  if (!existsSync(provider)) return [];
  let needed: string[];
  try {
    needed = elfNeededLibraries(provider);
  } catch {
    return [];
  }
  return needed.filter(
    (name) => !sharedLibraryFound(name, { libraryPath, folders: [directory] }),
  );
}

let probeModel: Uint8Array | undefined;

/** A one-node graph (y = x · x) that every provider runs. */
function probeGraph(): Uint8Array {
  if (probeModel === undefined) {
    const g = new GraphBuilder({ floatType: 'float32' });
    const x = g.input({ name: 'x', shape: [2, 2] });
    g.output(g.matmul(x, x), 'y');
    probeModel = g.toOnnx({ name: 'device-probe' });
  }
  return probeModel;
}

const probes = new Map<ExecutionProvider, Promise<DeviceProbe>>();

/**
 * Whether `device` works on this machine: checks that onnxruntime-node lists
 * it (and, for CUDA, that its libraries were installed), then creates a
 * session of a one-node graph on it and runs it once. Cached per process.
 */
export function probeDevice(device: ExecutionProvider): Promise<DeviceProbe> {
  let probe = probes.get(device);
  if (probe === undefined) {
    probe = runProbe(device);
    probes.set(device, probe);
  }
  return probe;
}

async function runProbe(device: ExecutionProvider): Promise<DeviceProbe> {
  const listed = ort
    .listSupportedBackends()
    .some((backend) => backend.name === device);
  if (!listed) {
    return {
      device,
      available: false,
      missing: 'execution-provider',
      message: `device '${device}' is not available: this onnxruntime-node build (${process.platform}-${process.arch}) has no '${device}' execution provider; use --device cpu (or 'auto')`,
    };
  }
  if (device === 'webgpu' && !vulkanLoaderFound()) {
    return {
      device,
      available: false,
      ...explainDeviceFailure({
        device,
        error: "Couldn't load Vulkan: libvulkan.so.1 not found",
      }),
    };
  }
  if (device === 'cuda' && !cudaLibrariesInstalled()) {
    return {
      device,
      available: false,
      ...explainDeviceFailure({
        device,
        error: 'libonnxruntime_providers_cuda.so is not installed',
      }),
    };
  }
  try {
    const session = await ort.InferenceSession.create(probeGraph(), {
      executionProviders: [device],
      logSeverityLevel: 3,
    });
    try {
      await session.run({
        x: new ort.Tensor('float32', Float32Array.of(1, 2, 3, 4), [2, 2]),
      });
    } finally {
      await session.release();
    }
    return { device, available: true };
  } catch (error) {
    // ORT's error for a provider library that does not load says only
    // "Failed to load shared library"; name the dependencies that are missing.
    const unresolved = device === 'cuda' ? missingCudaLibraries() : [];
    return {
      device,
      available: false,
      ...explainDeviceFailure({
        device,
        error:
          unresolved.length > 0
            ? `Failed to load library libonnxruntime_providers_cuda.so with error: ${unresolved.join(', ')}: cannot open shared object file (${String(error)})`
            : String(error),
      }),
    };
  }
}

/** The error for an unavailable device: `BACKEND_UNAVAILABLE`, its message one line. */
export function deviceUnavailableError(
  probe: DeviceProbe & { available: false },
): SealError {
  return new SealError({
    code: 'BACKEND_UNAVAILABLE',
    message: probe.message,
    details: { device: probe.device, missing: probe.missing },
  });
}

/**
 * Chooses the device for a request from probe results (pure): a named device
 * must be available, or this throws `BACKEND_UNAVAILABLE` naming what is
 * missing (never a fall back to the CPU); `auto` takes the first available
 * device of {@link autoDeviceOrder}.
 */
export function chooseDevice({
  request,
  probes: results,
}: {
  request: DeviceRequest;
  probes: readonly DeviceProbe[];
}): ExecutionProvider {
  const find = (device: ExecutionProvider): DeviceProbe | undefined =>
    results.find((probe) => probe.device === device);
  if (request !== 'auto') {
    const probe = find(request);
    if (probe === undefined) {
      throw new SealError({
        code: 'INTERNAL',
        message: `chooseDevice: no probe result for '${request}'`,
      });
    }
    if (!probe.available) throw deviceUnavailableError(probe);
    return request;
  }
  for (const device of autoDeviceOrder) {
    if (device === 'cpu' || find(device)?.available === true) return device;
  }
  return 'cpu';
}

/**
 * Resolves a device request on this machine: probes what the request needs
 * (`auto`: every device of {@link autoDeviceOrder} until one works) and
 * returns the chosen device with the probes that led to it. A named device
 * that does not work throws `BACKEND_UNAVAILABLE` with a one-line message.
 */
export async function selectDevice(
  request: DeviceRequest,
): Promise<{ device: ExecutionProvider; probes: DeviceProbe[] }> {
  const results: DeviceProbe[] = [];
  if (request === 'cpu')
    return { device: 'cpu', probes: [{ device: 'cpu', available: true }] };
  if (request !== 'auto') {
    results.push(await probeDevice(request));
  } else {
    for (const device of autoDeviceOrder) {
      const probe =
        device === 'cpu'
          ? ({ device, available: true } as const)
          : await probeDevice(device);
      results.push(probe);
      if (probe.available) break;
    }
  }
  return {
    device: chooseDevice({ request, probes: results }),
    probes: results,
  };
}

/** Parses a device request (a flag or a config value); throws `INVALID_ARGUMENT`. */
export function parseDeviceRequest(value: string): DeviceRequest {
  const request = deviceRequests.find((candidate) => candidate === value);
  if (request === undefined) {
    throw new SealError({
      code: 'INVALID_ARGUMENT',
      message: `unknown device '${value}'; expected one of ${deviceRequests.join(', ')}`,
    });
  }
  return request;
}

/**
 * The version of the onnxruntime-node package actually loaded (its binding
 * sets `env.versions.node`), e.g. `1.29.0` where a CUDA build of that version
 * was installed beside this workspace's 1.30.
 */
export function onnxruntimeNodeVersion(): string {
  return ort.env.versions.node ?? 'unknown';
}

/**
 * Whether onnxruntime-node can keep a session's outputs on this device
 * (`preferredOutputLocation: 'gpu-buffer'`) for later runs to take as inputs.
 * Its Node binding has device-located outputs for WebGPU only: on CUDA an
 * output requested there fails in ORT's copy of the value ("Failed to find
 * allocator for device ... DeviceType:1", measured with onnxruntime-node
 * 1.29.0 and ORT's 1.29.0 CUDA EP, 2026-11-28). The CPU's outputs are host
 * memory anyway.
 */
export function deviceOutputsSupported(device: ExecutionProvider): boolean {
  return device === 'webgpu';
}

/** The engine's `resident` setting resolved for a device, with a one-line note when the device overrides it or the default differs. */
export type Residency = {
  readonly resident: boolean;
  /** Why state is host-fed on this device; undefined when the request (or the usual default) holds. */
  readonly note: string | undefined;
};

/**
 * Resolves `resident` (weights, Adam state, gradients and the decode cache
 * kept on the device between runs) for a device: the request when given and
 * possible; otherwise on by default on WebGPU and off on the CPU. On CUDA it
 * is always off (see {@link deviceOutputsSupported}): every run uploads the
 * weights and optimizer state (host-fed), and the note says so.
 */
export function resolveResidency({
  device,
  requested,
}: {
  device: ExecutionProvider;
  requested: boolean | undefined;
}): Residency {
  if (device === 'cpu')
    return { resident: requested ?? false, note: undefined };
  if (deviceOutputsSupported(device))
    return { resident: requested ?? true, note: undefined };
  if (requested === false) return { resident: false, note: undefined };
  return {
    resident: false,
    note: `device ${device}: state is host-fed (resident off${requested === true ? ', although resident was asked for' : ''}): onnxruntime-node keeps outputs on the device for WebGPU only, so every run uploads the weights and optimizer state`,
  };
}

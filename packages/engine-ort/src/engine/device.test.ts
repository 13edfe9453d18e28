import { copyFileSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, onTestFinished, vi } from 'vitest';
import {
  chooseDevice,
  elfNeededLibraries,
  explainDeviceFailure,
  missingCudaLibraries,
  ortNativeDirectory,
  parseDeviceRequest,
  probeDevice,
  resolveResidency,
  selectDevice,
  deviceOutputsSupported,
  onnxruntimeNodeVersion,
  vulkanLoaderFound,
  type DeviceProbe,
} from './device';
import { createModelConfig } from '../model/model-config';
import { initializeWeights } from '../model/model-weights';
import { resolveEngineSettings } from './engine-context';
import { OrtEngine } from './ort-engine';

// Messages captured from onnxruntime-node 1.30 (WebGPU on a machine without
// a Vulkan loader, and with the loader but no driver) and the usual forms of
// ORT's CUDA EP load errors.
const noLoader =
  "Error: /onnxruntime_src/onnxruntime/core/providers/webgpu/webgpu_context.cc:136 onnxruntime::webgpu::WebGpuContext::Initialize(const onnxruntime::webgpu::WebGpuContextConfig&)::<lambda()> adapter_result.status == wgpu::RequestAdapterStatus::Success was false. Failed to get a WebGPU adapter: No supported adapters\nWarning: Couldn't load Vulkan: libvulkan.so.1: cannot open shared object file: No such file or directory";
const noAdapter =
  'Error: /onnxruntime_src/onnxruntime/core/providers/webgpu/webgpu_context.cc:136 onnxruntime::webgpu::WebGpuContext::Initialize(const onnxruntime::webgpu::WebGpuContextConfig&)::<lambda()> adapter_result.status == wgpu::RequestAdapterStatus::Success was false. Failed to get a WebGPU adapter: No supported adapters';
const noCudaRuntime =
  'Error: /onnxruntime_src/onnxruntime/core/session/provider_bridge_ort.cc:1862 onnxruntime::Provider& onnxruntime::ProviderLibrary::Get() [ONNXRuntimeError] : 1 : FAIL : Failed to load library libonnxruntime_providers_cuda.so.1 with error: libcublasLt.so.12: cannot open shared object file: No such file or directory';
const noCudnn =
  'Error: Failed to load library libonnxruntime_providers_cuda.so with error: libcudnn.so.9: cannot open shared object file: No such file or directory';

const unavailable = (
  device: 'webgpu' | 'cuda',
  missing: 'webgpu-adapter' | 'cuda-ep-libraries',
): DeviceProbe => ({
  device,
  available: false,
  missing,
  message: `device '${device}' is not available: ${missing}`,
});

describe('explainDeviceFailure', () => {
  it('should name a missing Vulkan loader and how to install it', () => {
    const { missing, message } = explainDeviceFailure({
      device: 'webgpu',
      error: noLoader,
    });
    expect(missing).toBe('vulkan-loader');
    expect(message).toContain('libvulkan.so.1');
    expect(message).toContain('apt-get install libvulkan1');
  });

  it('should name a missing adapter when the loader is there', () => {
    const { missing, message } = explainDeviceFailure({
      device: 'webgpu',
      error: noAdapter,
    });
    expect(missing).toBe('webgpu-adapter');
    expect(message).toContain('no GPU adapter');
    expect(message).toContain('libglvnd0');
  });

  it('should tell a missing CUDA runtime from missing cuDNN, naming the library', () => {
    const runtime = explainDeviceFailure({
      device: 'cuda',
      error: noCudaRuntime,
    });
    expect(runtime.missing).toBe('cuda-runtime');
    expect(runtime.message).toContain('libcublasLt.so.12');
    expect(runtime.message).toContain('CUDA 12');
    const cudnn = explainDeviceFailure({ device: 'cuda', error: noCudnn });
    expect(cudnn.missing).toBe('cudnn');
    expect(cudnn.message).toContain('libcudnn.so.9');
  });

  it('should name the CUDA major version of the missing library (CUDA 13 for onnxruntime-node 1.30) and how to get it', () => {
    for (const library of [
      'libcudart.so.13',
      'libcublas.so.13',
      'libcublasLt.so.13',
    ]) {
      const { missing, message } = explainDeviceFailure({
        device: 'cuda',
        error: `Error: Failed to load library libonnxruntime_providers_cuda.so with error: ${library}: cannot open shared object file: No such file or directory`,
      });
      expect(missing).toBe('cuda-runtime');
      expect(message).toContain(`(${library})`);
      expect(message).toContain('the CUDA 13 runtime');
      expect(message).toContain('cuDNN 9 for CUDA 13');
      expect(message).toContain('PyTorch cu130');
      expect(message).toContain('LD_LIBRARY_PATH');
    }
    // libcurand keeps .so.10 in CUDA 13: the default major is named.
    expect(
      explainDeviceFailure({
        device: 'cuda',
        error:
          'Failed to load library libonnxruntime_providers_cuda.so with error: libcurand.so.10: cannot open shared object file',
      }).message,
    ).toMatch(/\(libcurand\.so\.10\).*CUDA 13/);
    const cudnn = explainDeviceFailure({ device: 'cuda', error: noCudnn });
    expect(cudnn.message).toContain('cuDNN 9 for CUDA 13');
    expect(cudnn.message).toContain('nvidia-cudnn-cu13');
  });

  it('should say how to install the CUDA EP libraries when they are absent', () => {
    const { missing, message } = explainDeviceFailure({
      device: 'cuda',
      error: 'libonnxruntime_providers_cuda.so is not installed',
    });
    expect(missing).toBe('cuda-ep-libraries');
    expect(message).toContain('ONNXRUNTIME_NODE_INSTALL=cuda12');
    expect(message).toContain('--onnxruntime-node-install=cuda12');
    expect(message).toContain('libonnxruntime_providers_cuda.so');
  });

  it('should keep every message on one line and point to the CPU', () => {
    for (const [device, error] of [
      ['webgpu', noLoader],
      ['webgpu', noAdapter],
      ['cuda', noCudaRuntime],
      ['cuda', noCudnn],
      ['cuda', 'something else\nat line 2'],
    ] as const) {
      const { message } = explainDeviceFailure({ device, error });
      expect(message).not.toContain('\n');
      expect(message).toContain('--device cpu');
    }
  });
});

describe('chooseDevice', () => {
  it('should return a named device that is available', () => {
    expect(
      chooseDevice({
        request: 'webgpu',
        probes: [{ device: 'webgpu', available: true }],
      }),
    ).toBe('webgpu');
  });

  it('should refuse a named device that is unavailable, never falling back to the CPU', () => {
    const probe = unavailable('webgpu', 'webgpu-adapter');
    expect(() =>
      chooseDevice({
        request: 'webgpu',
        probes: [probe, { device: 'cpu', available: true }],
      }),
    ).toThrow(
      expect.objectContaining({
        code: 'BACKEND_UNAVAILABLE',
        details: { device: 'webgpu', missing: 'webgpu-adapter' },
      }),
    );
  });

  it('should take the first available device in auto, CUDA before WebGPU before the CPU', () => {
    const webgpu = { device: 'webgpu', available: true } as const;
    expect(
      chooseDevice({
        request: 'auto',
        probes: [{ device: 'cuda', available: true }, webgpu],
      }),
    ).toBe('cuda');
    expect(
      chooseDevice({
        request: 'auto',
        probes: [unavailable('cuda', 'cuda-ep-libraries'), webgpu],
      }),
    ).toBe('webgpu');
    expect(
      chooseDevice({
        request: 'auto',
        probes: [
          unavailable('cuda', 'cuda-ep-libraries'),
          unavailable('webgpu', 'webgpu-adapter'),
        ],
      }),
    ).toBe('cpu');
  });
});

describe('parseDeviceRequest', () => {
  it('should accept the four requests and refuse others with INVALID_ARGUMENT', () => {
    expect(['cpu', 'webgpu', 'cuda', 'auto'].map(parseDeviceRequest)).toEqual([
      'cpu',
      'webgpu',
      'cuda',
      'auto',
    ]);
    expect(() => parseDeviceRequest('gpu')).toThrow(
      expect.objectContaining({ code: 'INVALID_ARGUMENT' }),
    );
  });
});

describe('vulkanLoaderFound', () => {
  it('should find the loader in a folder of LD_LIBRARY_PATH or in the ld.so cache', () => {
    const folder = mkdtempSync(join(tmpdir(), 'seal-vulkan-'));
    onTestFinished(() => rmSync(folder, { recursive: true, force: true }));
    writeFileSync(join(folder, 'libvulkan.so.1'), '');
    expect(
      vulkanLoaderFound({
        libraryPath: `/nonexistent:${folder}`,
        cacheFile: '/nonexistent',
      }),
    ).toBe(true);
    const cache = join(folder, 'ld.so.cache');
    writeFileSync(
      cache,
      Buffer.from('\0libfoo.so.1\0libvulkan.so.1\0/usr/lib/libvulkan.so.1\0'),
    );
    expect(vulkanLoaderFound({ libraryPath: '', cacheFile: cache })).toBe(true);
  });
});

describe('the CUDA provider library dependencies', () => {
  it.runIf(process.platform === 'linux')(
    "should read an ELF library's DT_NEEDED entries",
    () => {
      expect(elfNeededLibraries(process.execPath)).toContain('libc.so.6');
    },
  );

  it('should refuse a file that is not an ELF library', () => {
    const folder = mkdtempSync(join(tmpdir(), 'seal-elf-'));
    onTestFinished(() => rmSync(folder, { recursive: true, force: true }));
    writeFileSync(
      join(folder, 'lib.so'),
      'not an ELF file at all, but long enough to hold a header of sixty-four bytes',
    );
    expect(() => elfNeededLibraries(join(folder, 'lib.so'))).toThrow(
      /not a 64-bit little-endian ELF file/,
    );
  });

  it.runIf(process.platform === 'linux' && ortNativeDirectory() !== undefined)(
    'should name the dependencies the dynamic linker would not find, and find those beside the library',
    () => {
      // onnxruntime-node's binding needs libonnxruntime.so.1: alone in a
      // folder under the provider's name, that dependency is missing.
      const folder = mkdtempSync(join(tmpdir(), 'seal-cuda-'));
      onTestFinished(() => rmSync(folder, { recursive: true, force: true }));
      copyFileSync(
        join(ortNativeDirectory()!, 'onnxruntime_binding.node'),
        join(folder, 'libonnxruntime_providers_cuda.so'),
      );
      expect(missingCudaLibraries(folder, '')).toEqual(['libonnxruntime.so.1']);
      writeFileSync(join(folder, 'libonnxruntime.so.1'), '');
      expect(missingCudaLibraries(folder, '')).toEqual([]);
      expect(missingCudaLibraries(join(folder, 'absent'), '')).toEqual([]);
      // The probe turns such a list into one line naming them.
      const { missing, message } = explainDeviceFailure({
        device: 'cuda',
        error:
          'Failed to load library libonnxruntime_providers_cuda.so with error: libcublasLt.so.13, libcublas.so.13, libcudart.so.13: cannot open shared object file',
      });
      expect(missing).toBe('cuda-runtime');
      expect(message).toContain(
        '(libcublasLt.so.13, libcublas.so.13, libcudart.so.13)',
      );
      expect(message).toContain('the CUDA 13 runtime');
    },
  );
});

describe('probeDevice and selectDevice on this machine', () => {
  it('should always find the CPU', async () => {
    expect(await probeDevice('cpu')).toEqual({
      device: 'cpu',
      available: true,
    });
    expect((await selectDevice('cpu')).device).toBe('cpu');
  });

  it('should either run WebGPU or say in one line which part is missing', async () => {
    const probe = await probeDevice('webgpu');
    if (probe.available) {
      expect((await selectDevice('webgpu')).device).toBe('webgpu');
      return;
    }
    expect(['vulkan-loader', 'webgpu-adapter', 'unknown']).toContain(
      probe.missing,
    );
    expect(probe.message).not.toContain('\n');
    await expect(selectDevice('webgpu')).rejects.toMatchObject({
      code: 'BACKEND_UNAVAILABLE',
      details: { missing: probe.missing },
    });
  });

  it('should pick a working device in auto and report the probes that led to it', async () => {
    const { device, probes } = await selectDevice('auto');
    expect(probes.at(-1)).toEqual({ device, available: true });
    expect(probes.slice(0, -1).every((probe) => !probe.available)).toBe(true);
  });
});

describe('resolveResidency', () => {
  it('should keep state resident on WebGPU and host-fed on the CPU by default, as asked otherwise', () => {
    expect(
      resolveResidency({ device: 'webgpu', requested: undefined }),
    ).toEqual({ resident: true, note: undefined });
    expect(resolveResidency({ device: 'webgpu', requested: false })).toEqual({
      resident: false,
      note: undefined,
    });
    expect(resolveResidency({ device: 'cpu', requested: undefined })).toEqual({
      resident: false,
      note: undefined,
    });
    expect(resolveResidency({ device: 'cpu', requested: true })).toEqual({
      resident: true,
      note: undefined,
    });
  });

  it('should make state host-fed on CUDA, with a one-line note unless off was asked for', () => {
    const byDefault = resolveResidency({
      device: 'cuda',
      requested: undefined,
    });
    expect(byDefault.resident).toBe(false);
    expect(byDefault.note).toMatch(/^device cuda: state is host-fed/);
    expect(byDefault.note).toContain('WebGPU only');
    expect(byDefault.note).not.toContain('\n');
    const asked = resolveResidency({ device: 'cuda', requested: true });
    expect(asked.resident).toBe(false);
    expect(asked.note).toContain('although resident was asked for');
    expect(resolveResidency({ device: 'cuda', requested: false })).toEqual({
      resident: false,
      note: undefined,
    });
  });

  it('should apply it in the engine settings', () => {
    const cuda = resolveEngineSettings({ executionProvider: 'cuda' });
    expect(cuda.resident).toBe(false);
    expect(cuda.residencyNote).toMatch(/host-fed/);
    expect(
      resolveEngineSettings({ executionProvider: 'cuda', resident: true })
        .resident,
    ).toBe(false);
    expect(
      resolveEngineSettings({ executionProvider: 'webgpu' }),
    ).toMatchObject({ resident: true, residencyNote: undefined });
    expect(resolveEngineSettings({})).toMatchObject({
      resident: false,
      residencyNote: undefined,
    });
  });

  it('should warn of host-fed state once per process when an engine is made for CUDA', async () => {
    const config = createModelConfig({
      vocabSize: 64,
      hiddenSize: 16,
      intermediateSize: 32,
      numLayers: 1,
      numHeads: 2,
      numKeyValueHeads: 1,
      maxPositionEmbeddings: 64,
      initializerRange: 0.2,
    });
    const weights = initializeWeights({ config, seed: 1 });
    const warn = vi.spyOn(process, 'emitWarning').mockImplementation(() => {});
    onTestFinished(() => warn.mockRestore());
    // Constructing makes no session, so no CUDA EP is needed here.
    const engines = [0, 1].map(
      () =>
        new OrtEngine({
          config,
          weights,
          settings: { executionProvider: 'cuda', threads: 1 },
        }),
    );
    expect(engines[0]!.residencyNote).toMatch(
      /^device cuda: state is host-fed/,
    );
    expect(warn).toHaveBeenCalledTimes(1);
    expect(warn.mock.calls[0]![0]).toBe(engines[0]!.residencyNote);
    const cpu = new OrtEngine({ config, weights, settings: { threads: 1 } });
    expect(cpu.residencyNote).toBeUndefined();
    for (const engine of [...engines, cpu]) await engine.close();
  });

  it('should request device-located outputs on WebGPU only', () => {
    expect(deviceOutputsSupported('webgpu')).toBe(true);
    expect(deviceOutputsSupported('cuda')).toBe(false);
    expect(deviceOutputsSupported('cpu')).toBe(false);
  });

  it('should name the onnxruntime-node version actually loaded', () => {
    expect(onnxruntimeNodeVersion()).toMatch(/^\d+\.\d+\.\d+/);
  });
});

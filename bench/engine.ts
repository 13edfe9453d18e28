/**
 * `pnpm bench engine [--configs 2m,10m,50m] [--quick] [--device cpu|webgpu|cuda|auto] [--resident on|off] [--precision fp32|fp16|bf16] [--webgpu-validation disabled|wgpuOnly|basic|full] [--attention gqa|where] [--decode-only] [--new-tokens N]`:
 * throughput of the ONNX Runtime policy engine on this machine's CPU (default)
 * or GPU.
 *
 * For each documented model config (about 2M, 10M and 50M parameters) it
 * measures, in a fresh child process (so peak RSS is per config):
 * - training tokens/s: one fused step (grad graph + AdamW) on 8 × 256 tokens;
 * - prefill tokens/s: 8 prompts of 256 tokens;
 * - decode tokens/s at batch 1, 8 and 64 (32-token prompts, 64 new tokens);
 * - peak RSS;
 * - model FLOP utilisation of training against the fp32 MatMul peak measured
 *   in the same run (an ORT MatMul of 2048³, same thread count).
 *
 * Training FLOPs per step = tokens × (6·N + 12·L·S·A), where N counts the
 * weights of every matrix product (attention and MLP projections plus the LM
 * head, which is the embedding when tied; norms, biases and the embedding
 * gather are left out), L is the number of layers, S the sequence length and
 * A = heads × head width (the PaLM formula; the attention term counts the
 * full S×S products, which the graph computes).
 *
 * It also prints where every node of each graph family ran (ORT's profile of
 * the family's first session) and, on a GPU device, exits with 1 when a node
 * of the hot path fell back to the CPU. A `350m` config (not in the default
 * list) is for GPUs. The MatMul peak and MFU are measured on the CPU EP only.
 * `--resident` keeps weights, moments and gradients on the device between
 * runs (default: on for WebGPU, off for the CPU; always off on CUDA, whose
 * outputs onnxruntime-node cannot keep on the device: see resolveResidency).
 * `--webgpu-validation` sets the WebGPU EP's validation mode (ORT's default
 * `basic` validates every command in Dawn too).
 * `--precision` runs the matrix products in fp16 (with dynamic loss scaling)
 * or bf16, with fp32 weights, moments and update (decision engine-008); the
 * CPU EP only emulates them (their rounding, at fp32 speed or below), and a
 * device that cannot run them exits with one line saying so.
 * `--attention` chooses how decode steps attend and write the KV cache
 * (decision engine-013): `where` (the engine's own, a `Where` over the whole
 * cache; the default everywhere) or `gqa` (ONNX Runtime's GroupQueryAttention,
 * the slot written in place; matches `where` on the CPU EP, but not on ORT
 * 1.30's WebGPU kernel, and no faster there). `--decode-only`
 * skips training and prefill (their columns read –), to compare decode
 * variants side by side; `--new-tokens` sets the decode length (default 64,
 * 16 with `--quick`).
 */
import { execFileSync } from 'node:child_process';
import { cpus, loadavg, totalmem } from 'node:os';
import { fileURLToPath } from 'node:url';
import {
  checkPrecision,
  countParameters,
  createModelConfig,
  createOrtSession,
  floatTensor,
  formatPlacementTable,
  GraphBuilder,
  initializeWeights,
  offDeviceNodes,
  decodeAttentions,
  gqaInPlaceUnavailable,
  onnxruntimeNodeVersion,
  OrtEngine,
  parseDeviceRequest,
  parsePrecision,
  resolveResidency,
  selectDevice,
  webgpuValidationModes,
  type DecodeAttention,
  type ExecutionProvider,
  type GraphPlacement,
  type ModelConfig,
  type Precision,
  type WebGpuValidation,
} from '@seal/engine-ort';
import { benchFlags } from './_args';

const configs: Record<string, ModelConfig> = {
  '2m': createModelConfig({
    vocabSize: 2048,
    hiddenSize: 256,
    intermediateSize: 704,
    numLayers: 2,
    numHeads: 4,
    numKeyValueHeads: 2,
    maxPositionEmbeddings: 1024,
  }),
  '10m': createModelConfig({
    vocabSize: 4096,
    hiddenSize: 384,
    intermediateSize: 896,
    numLayers: 6,
    numHeads: 6,
    numKeyValueHeads: 2,
    maxPositionEmbeddings: 1024,
  }),
  '50m': createModelConfig({
    vocabSize: 8192,
    hiddenSize: 640,
    intermediateSize: 1728,
    numLayers: 10,
    numHeads: 10,
    numKeyValueHeads: 2,
    maxPositionEmbeddings: 1024,
  }),
  '350m': createModelConfig({
    vocabSize: 32768,
    hiddenSize: 1024,
    intermediateSize: 2816,
    numLayers: 24,
    numHeads: 16,
    numKeyValueHeads: 4,
    maxPositionEmbeddings: 1024,
  }),
};

const threads = cpus().length;
const trainBatch = 8;
const trainLength = 256;

/** Weights that take part in matrix products (see the header). */
function matmulParameters(config: ModelConfig): number {
  const h = config.hiddenSize;
  const q = config.numHeads * config.headDim;
  const kv = config.numKeyValueHeads * config.headDim;
  const layer = h * q + 2 * h * kv + q * h + 3 * h * config.intermediateSize;
  return config.numLayers * layer + config.vocabSize * h;
}

function trainFlopsPerToken(config: ModelConfig, length: number): number {
  const attentionWidth = config.numHeads * config.headDim;
  return (
    6 * matmulParameters(config) +
    12 * config.numLayers * length * attentionWidth
  );
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

async function time(body: () => Promise<unknown>): Promise<number> {
  const start = performance.now();
  await body();
  return (performance.now() - start) / 1000;
}

/** A session computing one n×n×n fp32 MatMul, with its feeds bound. */
async function matmulSession(
  n: number,
): Promise<{ run: () => Promise<unknown>; release: () => Promise<void> }> {
  const g = new GraphBuilder({ floatType: 'float32' });
  const a = g.input({ name: 'a', shape: [n, n] });
  const b = g.input({ name: 'b', shape: [n, n] });
  g.output(g.matmul(a, b), 'c');
  const session = await createOrtSession({
    model: g.toOnnx({ name: 'peak' }),
    settings: { executionProvider: 'cpu', threads, optimizationLevel: 'all' },
  });
  const data = Float32Array.from(
    { length: n * n },
    (_, i) => ((i * 7919) % 1000) / 1000 - 0.5,
  );
  const feeds = { a: floatTensor(data, [n, n]), b: floatTensor(data, [n, n]) };
  return { run: () => session.run(feeds), release: () => session.release() };
}

/** The fp32 MatMul peak of ORT on this machine, in FLOP/s (best of several runs). */
async function measureMatmulPeak(
  sizes: readonly number[] = [1024, 2048],
): Promise<number> {
  let best = 0;
  for (const n of sizes) {
    const session = await matmulSession(n);
    await session.run();
    for (let repeat = 0; repeat < (n === 2048 ? 5 : 10); repeat++) {
      const seconds = await time(() => session.run());
      best = Math.max(best, (2 * n * n * n) / seconds);
    }
    await session.release();
  }
  return best;
}

type ConfigResult = {
  name: string;
  parameters: number;
  trainTokensPerSecond: number;
  trainStepSeconds: number;
  trainFlopsPerSecond: number;
  prefillTokensPerSecond: number;
  decodeTokensPerSecond: Record<string, number>;
  peakRssMegabytes: number;
  /** The best 2048³ MatMul rate measured between training steps. */
  localPeak: number;
  /** Median over steps of (train FLOP/s) / (MatMul FLOP/s measured just before). */
  pairedMfu: number;
  /** 1-minute load average at the end of the config (other processes included). */
  loadAverage: number;
  /** Where the nodes of each graph family ran. */
  placements: GraphPlacement[];
  /** Why `gqa` decode steps could not bind the cache in place, if they could not. */
  gqaFallback?: string | undefined;
};

/** What one child measures, beyond the config. */
type MeasureOptions = {
  quick: boolean;
  device: ExecutionProvider;
  resident: boolean | undefined;
  precision: Precision;
  webgpuValidation: WebGpuValidation | undefined;
  attention: DecodeAttention | undefined;
  decodeOnly: boolean;
  newTokens: number;
};

async function measureConfig(
  name: string,
  {
    quick,
    device,
    resident,
    precision,
    webgpuValidation,
    attention,
    decodeOnly,
    newTokens,
  }: MeasureOptions,
): Promise<ConfigResult> {
  const config = configs[name]!;
  const engine = new OrtEngine({
    config,
    weights: initializeWeights({ config, seed: 1 }),
    settings: {
      executionProvider: device,
      threads,
      microBatchTokens: trainBatch * trainLength,
      maxGenerateBatch: 64,
      // Each measurement repeats its prompts: with the prefix cache they would
      // run as one-token extends of the last repetition, not as prefills.
      prefixCacheBytes: 0,
      recordPlacement: true,
      precision,
      webgpuValidation,
      ...(resident === undefined ? {} : { resident }),
      ...(attention === undefined ? {} : { decodeAttention: attention }),
    },
  });
  const settings = {
    learningRate: 1e-4,
    temperature: 1,
    clipLow: 0.2,
    clipHigh: 0.2,
    dualClipC: 10,
    klCoef: 0,
    maxGradNorm: 1,
    weightDecay: 0.01,
    betas: [0.9, 0.999] as [number, number],
    eps: 1e-8,
  };
  const tokenIds = (row: number, length: number): number[] =>
    Array.from(
      { length },
      (_, t) => (row * 7919 + t * 104729) % config.vocabSize,
    );
  const sequences = Array.from({ length: trainBatch }, (_, row) => {
    const ids = tokenIds(row, trainLength);
    return {
      tokenIds: ids,
      tokenWeights: ids.map((_, t) =>
        t === 0 ? 0 : 1 / (trainBatch * (trainLength - 1)),
      ),
    };
  });
  const train = () =>
    engine.train({ objective: 'cross-entropy', sequences, settings });
  const large = config.numLayers * config.hiddenSize > 2000;
  if (!decodeOnly) await train();
  // Training steps alternate with a 2048³ MatMul, and MFU is the median of
  // the ratios of adjacent measurements: on a shared machine the load changes
  // over a run, and each step is compared with a peak taken under the same load.
  // On a GPU the CPU EP's MatMul says nothing about the device: no MFU there.
  const cpu = device === 'cpu';
  const peakSession = cpu
    ? await matmulSession(2048)
    : { run: () => Promise.resolve(), release: () => Promise.resolve() };
  await peakSession.run();
  const trainTimes: number[] = [];
  const ratios: number[] = [];
  let localPeak = 0;
  const flopsPerStep =
    trainBatch * trainLength * trainFlopsPerToken(config, trainLength);
  for (let i = 0; i < (decodeOnly ? 0 : quick ? 2 : large ? 4 : 8); i++) {
    const matmulSeconds = await time(() => peakSession.run());
    const stepSeconds = await time(train);
    const peakHere = cpu ? (2 * 2048 ** 3) / matmulSeconds : Number.NaN;
    if (cpu) localPeak = Math.max(localPeak, peakHere);
    trainTimes.push(stepSeconds);
    ratios.push(flopsPerStep / stepSeconds / peakHere);
  }
  await peakSession.release();
  const trainStepSeconds = decodeOnly ? Number.NaN : median(trainTimes);
  const tokens = trainBatch * trainLength;

  const generate = (batch: number, promptLength: number, maxTokens: number) =>
    engine.generate({
      prompts: Array.from({ length: batch }, (_, row) =>
        tokenIds(row + 100, promptLength),
      ),
      maxTokens,
      sampling: { temperature: 0, topP: 1, topK: 0 },
      stopTokenIds: [],
      seed: 0,
    });
  const prefillTimes: number[] = [];
  if (!decodeOnly) {
    await generate(8, 256, 1);
    for (let i = 0; i < (quick ? 2 : 5); i++)
      prefillTimes.push(await time(() => generate(8, 256, 1)));
  }
  const prefillTokensPerSecond = decodeOnly
    ? Number.NaN
    : (8 * 256) / median(prefillTimes);

  const decodeTokensPerSecond: Record<string, number> = {};
  for (const batch of [1, 8, 64]) {
    await generate(batch, 32, newTokens);
    const full: number[] = [];
    const prefillOnly: number[] = [];
    for (let i = 0; i < (quick ? 1 : 3); i++) {
      full.push(await time(() => generate(batch, 32, newTokens)));
      prefillOnly.push(await time(() => generate(batch, 32, 1)));
    }
    decodeTokensPerSecond[batch] =
      (batch * (newTokens - 1)) / (median(full) - median(prefillOnly));
  }
  await engine.close();
  return {
    name,
    parameters: countParameters(config),
    trainTokensPerSecond: tokens / trainStepSeconds,
    trainStepSeconds,
    trainFlopsPerSecond:
      (tokens * trainFlopsPerToken(config, trainLength)) / trainStepSeconds,
    prefillTokensPerSecond,
    decodeTokensPerSecond,
    peakRssMegabytes: process.resourceUsage().maxRSS / 1024,
    localPeak,
    pairedMfu: decodeOnly ? Number.NaN : median(ratios),
    loadAverage: loadavg()[0]!,
    placements: engine.placements,
    gqaFallback: gqaInPlaceUnavailable(),
  };
}

/** A rate with `digits` decimals; '–' where it was not measured (`--decode-only`). */
function fixed(value: number, digits: number): string {
  return Number.isFinite(value) ? value.toFixed(digits) : '–';
}

/** A ratio as a whole percentage; '–' where it was not measured (GPU). */
function percent(ratio: number): string {
  return Number.isFinite(ratio) ? `${(100 * ratio).toFixed(0)}%` : '–';
}

/** `--webgpu-validation`: one of the EP's modes, or undefined for ORT's default. */
function parseWebGpuValidation(
  value: string | undefined,
): WebGpuValidation | undefined {
  if (value === undefined) return undefined;
  const mode = webgpuValidationModes.find((candidate) => candidate === value);
  if (mode === undefined) {
    console.error(
      `bench engine: unknown --webgpu-validation '${value}'; expected one of ${webgpuValidationModes.join(', ')}`,
    );
    process.exit(2);
  }
  return mode;
}

/** `--attention`: gqa or where, or undefined for the device's default. */
function parseAttention(
  value: string | undefined,
): DecodeAttention | undefined {
  if (value === undefined) return undefined;
  const attention = decodeAttentions.find((candidate) => candidate === value);
  if (attention === undefined) {
    console.error(
      `bench engine: unknown --attention '${value}'; expected one of ${decodeAttentions.join(', ')}`,
    );
    process.exit(2);
  }
  return attention;
}

function parseResident(value: string | undefined): boolean | undefined {
  if (value === undefined) return undefined;
  if (value !== 'on' && value !== 'off') {
    console.error(
      `bench engine: unknown --resident '${value}'; expected on or off`,
    );
    process.exit(2);
  }
  return value === 'on';
}

const flags = benchFlags(
  [
    'child',
    'configs',
    'device',
    'precision',
    'resident',
    'webgpu-validation',
    'attention',
    'new-tokens',
  ],
  ['quick', 'decode-only'],
);
const option = flags.value;

const child = option('child');
const quick = flags.has('quick');
const decodeOnly = flags.has('decode-only');
const attention = parseAttention(option('attention'));
const newTokens = Number(option('new-tokens') ?? (quick ? 16 : 64));
if (!Number.isInteger(newTokens) || newTokens < 2) {
  console.error(
    `bench engine: --new-tokens must be an integer >= 2, got '${option('new-tokens')}'`,
  );
  process.exit(2);
}
if (child !== undefined) {
  // Child mode: measure one config and print it as JSON.
  const resident = parseResident(option('resident'));
  console.log(
    JSON.stringify(
      await measureConfig(child, {
        quick,
        device: parseDeviceRequest(
          option('device') ?? 'cpu',
        ) as ExecutionProvider,
        resident,
        precision: parsePrecision(option('precision') ?? 'fp32'),
        webgpuValidation: parseWebGpuValidation(option('webgpu-validation')),
        attention,
        decodeOnly,
        newTokens,
      }),
    ),
  );
} else {
  const names = (option('configs') ?? '2m,10m,50m').split(',');
  const unknown = names.filter((name) => configs[name] === undefined);
  if (unknown.length > 0) {
    console.error(
      `bench engine: unknown config ${unknown.join(', ')}; known: ${Object.keys(configs).join(', ')}`,
    );
    process.exit(2);
  }
  let device: ExecutionProvider;
  let precision: Precision;
  let precisionNote: string;
  try {
    ({ device } = await selectDevice(
      parseDeviceRequest(option('device') ?? 'cpu'),
    ));
    precision = parsePrecision(option('precision') ?? 'fp32');
    const products = await checkPrecision({ device, precision });
    precisionNote =
      products === undefined
        ? precision
        : products.mode === 'emulated'
          ? `${precision} (emulated on the CPU EP: ${precision} rounding around fp32 products, no speed-up)`
          : `${precision} (native ${products.dtype} products, fp32 weights and update${precision === 'fp16' ? ', dynamic loss scaling' : ''})`;
  } catch (error) {
    // One line, no stack: what is missing and how to get it.
    console.error(`bench engine: ${(error as Error).message}`);
    process.exit(4);
  }
  const validation = parseWebGpuValidation(option('webgpu-validation'));
  const residency = resolveResidency({
    device,
    requested: parseResident(option('resident')),
  });
  const cpu = cpus()[0]?.model ?? 'unknown CPU';
  console.log(`engine benchmark — ${new Date().toISOString()}`);
  console.log(
    `machine: ${cpu}, ${threads} cores, ${(totalmem() / 2 ** 30).toFixed(0)} GiB; Node ${process.version}; onnxruntime-node ${onnxruntimeNodeVersion()}, device ${device}, resident state ${residency.resident ? 'on' : 'off'}, precision ${precisionNote}, decode attention ${attention ?? 'where'} (default where)${device === 'webgpu' ? `, WebGPU validation ${validation ?? 'basic (default)'}` : ''}`,
  );
  if (residency.note !== undefined) console.log(`note: ${residency.note}`);
  console.log(
    `intra-op threads: ${threads} (train, prefill, decode batch >= 8), 1 (decode batch < 8)`,
  );
  let peak = device === 'cpu' ? await measureMatmulPeak() : Number.NaN;
  const script = fileURLToPath(import.meta.url);
  const results: ConfigResult[] = [];
  for (const name of names) {
    const output = execFileSync(
      process.execPath,
      [
        ...process.execArgv,
        script,
        '--child',
        name,
        '--device',
        device,
        ...(quick ? ['--quick'] : []),
        ...(decodeOnly ? ['--decode-only'] : []),
        '--new-tokens',
        String(newTokens),
        ...(attention === undefined ? [] : ['--attention', attention]),
        ...(option('resident') === undefined
          ? []
          : ['--resident', option('resident')!]),
        '--precision',
        precision,
        ...(validation === undefined
          ? []
          : ['--webgpu-validation', validation]),
      ],
      {
        encoding: 'utf8',
        maxBuffer: 256 << 20,
      },
    );
    // JSON writes the rates a child did not measure (NaN) as null.
    const result = JSON.parse(output.trim().split('\n').at(-1)!, (_, value) =>
      value === null ? Number.NaN : (value as unknown),
    ) as ConfigResult;
    results.push(result);
  }
  if (device === 'cpu') {
    peak = Math.max(peak, ...results.map((r) => r.localPeak));
    console.log(
      `fp32 MatMul peak (ORT MatMul 1024³/2048³, ${threads} threads, best of all runs): ${(peak / 1e9).toFixed(1)} GFLOP/s\n`,
    );
  }
  const header = [
    'config',
    'params',
    'train tok/s',
    'step (s)',
    'train GFLOP/s',
    'MFU (vs run peak)',
    'MFU (paired)',
    'prefill tok/s',
    'decode tok/s b=1',
    'b=8',
    'b=64',
    'peak RSS (MB)',
    'load avg',
  ];
  const rows = results.map((r) => [
    r.name,
    `${(r.parameters / 1e6).toFixed(2)}M`,
    fixed(r.trainTokensPerSecond, 0),
    fixed(r.trainStepSeconds, 3),
    fixed(r.trainFlopsPerSecond / 1e9, 1),
    percent(r.trainFlopsPerSecond / peak),
    percent(r.pairedMfu),
    fixed(r.prefillTokensPerSecond, 0),
    r.decodeTokensPerSecond['1']!.toFixed(0),
    r.decodeTokensPerSecond['8']!.toFixed(0),
    r.decodeTokensPerSecond['64']!.toFixed(0),
    r.peakRssMegabytes.toFixed(0),
    r.loadAverage.toFixed(1),
  ]);
  console.log(`| ${header.join(' | ')} |`);
  console.log(`|${header.map(() => '---').join('|')}|`);
  for (const row of rows) console.log(`| ${row.join(' | ')} |`);
  console.log(
    `\ntrain: ${trainBatch}×${trainLength} tokens per step (one grad micro-batch + AdamW); prefill: 8×256; decode: 32-token prompts, ${newTokens} new tokens${decodeOnly ? ' (--decode-only: no training or prefill)' : ''}`,
  );
  for (const result of results) {
    if (result.gqaFallback !== undefined)
      console.log(
        `${result.name}: gqa decode could not bind the cache in place (${result.gqaFallback}); its steps wrote a new cache each`,
      );
  }
  console.log(
    'MFU = tokens·(6·N + 12·L·S·A) / step time / MatMul peak (N: matrix-product weights incl. LM head).',
  );
  console.log(
    '"vs run peak": against the best MatMul rate of the whole run; "paired": median over steps against the MatMul rate measured just before each step (robust to a shared, loaded machine).',
  );
  console.log(
    `\nnode placement (first session of each graph family, ORT profile), device ${device}:`,
  );
  let offDevice = 0;
  for (const result of results) {
    console.log(
      `\n${result.name}:\n${formatPlacementTable(result.placements)}`,
    );
    offDevice += result.placements.reduce(
      (sum, placement) => sum + offDeviceNodes(placement).length,
      0,
    );
  }
  if (offDevice > 0) {
    console.error(
      `\nbench engine: ${offDevice} hot-path node(s) fell back to the CPU (listed above)`,
    );
    process.exitCode = 1;
  } else {
    console.log(`\nevery hot-path node ran on ${device}`);
  }
}

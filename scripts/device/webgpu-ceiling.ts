/**
 * `webgpu-ceiling [--device webgpu|cpu] [--shapes 2048x640x1728,…] [--json FILE]`:
 * what the execution provider itself can do, beneath the engine's graphs, run
 * by `run-gpu-bench.sh` (CEILING=1) beside `torch_ceiling.py`:
 * - MatMul throughput: a chain of 8 products `[M,K]·[K,N]·[N,K]·…` in one
 *   graph, its inputs resident on the device, ending in a scalar the host
 *   reads (so each run waits for the device), in fp32 and, where the device
 *   has it, fp16 (the operands cast as the engine's mixed precision does);
 * - the cost of one dispatch: a graph of 1,000 chained `Add`s on 256 floats,
 *   run time over 1,000.
 * Those two bound the engine: a training step is its graphs' products at the
 * first rate plus their node count times the second.
 */
import { writeFileSync } from 'node:fs';
import {
  GraphBuilder,
  type MatmulPrecision,
} from '../../packages/engine-ort/src/graph/graph-builder';
import {
  parseDeviceRequest,
  probeDevice,
  type ExecutionProvider,
} from '../../packages/engine-ort/src/engine/device';
import {
  createOrtSession,
  floatTensor,
  type ort,
} from '../../packages/engine-ort/src/engine/ort-session';

function option(name: string): string | undefined {
  const index = process.argv.indexOf(`--${name}`);
  return index >= 0 ? process.argv[index + 1] : undefined;
}

const device = parseDeviceRequest(
  option('device') ?? 'webgpu',
) as ExecutionProvider;
const shapes = (
  option('shapes') ??
  '2048x640x1728,2048x1024x2816,2048x1024x32768,4096x4096x4096'
)
  .split(',')
  .map((s) => s.split('x').map(Number) as [number, number, number]);
const chain = 8;

function values(length: number, seed: number, scale: number): Float32Array {
  return Float32Array.from(
    { length },
    (_, i) => ((((i + seed) * 7919) % 1000) / 1000 - 0.5) * scale,
  );
}

/** Uploads host arrays once: the outputs of an Identity graph, device-located. */
async function resident(
  arrays: Record<string, { data: Float32Array; shape: number[] }>,
): Promise<Record<string, ort.Tensor>> {
  const g = new GraphBuilder({ floatType: 'float32' });
  const names = Object.keys(arrays);
  for (const name of names)
    g.output(g.input({ name, shape: arrays[name]!.shape }), `out.${name}`);
  const session = await createOrtSession({
    model: g.toOnnx({ name: 'upload' }),
    settings: {
      executionProvider: device,
      threads: 16,
      optimizationLevel: 'all',
      deviceOutputs: names.map((name) => `out.${name}`),
    },
  });
  const out = await session.run(
    Object.fromEntries(
      names.map((name) => [
        name,
        floatTensor(arrays[name]!.data, arrays[name]!.shape),
      ]),
    ),
  );
  return Object.fromEntries(names.map((name) => [name, out[`out.${name}`]!]));
}

async function timeRuns(
  run: () => Promise<unknown>,
  repeats: number,
): Promise<number> {
  await run();
  await run();
  const times: number[] = [];
  for (let i = 0; i < repeats; i++) {
    const started = performance.now();
    await run();
    times.push((performance.now() - started) / 1000);
  }
  times.sort((a, b) => a - b);
  return times[Math.floor(times.length / 2)]!;
}

async function matmulRate(
  [m, k, n]: [number, number, number],
  precision: MatmulPrecision | undefined,
): Promise<number> {
  const g = new GraphBuilder({
    floatType: 'float32',
    matmulPrecision: precision,
  });
  const x = g.input({ name: 'x', shape: [m, k] });
  const a = g.input({ name: 'a', shape: [k, n] });
  const b = g.input({ name: 'b', shape: [n, k] });
  let y = x;
  for (let i = 0; i < chain; i++) y = g.matmul(y, i % 2 === 0 ? a : b);
  g.output(g.reduceSum(y, [0, 1], false), 'sum');
  const session = await createOrtSession({
    model: g.toOnnx({ name: 'matmul-chain' }),
    settings: {
      executionProvider: device,
      threads: 16,
      optimizationLevel: 'all',
    },
  });
  // Scaled so that the chain stays finite in fp16.
  const feeds = await resident({
    x: { data: values(m * k, 1, 1), shape: [m, k] },
    a: { data: values(k * n, 2, 1 / Math.sqrt(k)), shape: [k, n] },
    b: { data: values(n * k, 3, 1 / Math.sqrt(n)), shape: [n, k] },
  });
  const seconds = await timeRuns(
    () => session.run(feeds),
    m * k * n > 2 ** 32 ? 5 : 10,
  );
  for (const tensor of Object.values(feeds)) tensor.dispose();
  await session.release();
  return (chain * 2 * m * k * n) / seconds;
}

async function dispatchSeconds(nodes: number): Promise<number> {
  const g = new GraphBuilder({ floatType: 'float32' });
  let x = g.input({ name: 'x', shape: [256] });
  const c = g.input({ name: 'c', shape: [256] });
  for (let i = 0; i < nodes; i++) x = g.add(x, c);
  g.output(g.reduceSum(x, [0], false), 'sum');
  const session = await createOrtSession({
    model: g.toOnnx({ name: 'adds' }),
    settings: {
      executionProvider: device,
      threads: 1,
      optimizationLevel: 'disabled',
    },
  });
  const feeds = await resident({
    x: { data: values(256, 1, 1), shape: [256] },
    c: { data: values(256, 2, 1e-3), shape: [256] },
  });
  const seconds = await timeRuns(() => session.run(feeds), 10);
  await session.release();
  return seconds / nodes;
}

const probe = await probeDevice(device);
if (!probe.available) {
  console.error(`webgpu-ceiling: ${probe.message}`);
  process.exit(4);
}
const results: Array<Record<string, unknown>> = [];
const perDispatch = await dispatchSeconds(1000);
console.log(
  `${device}: one dispatch (Add of 256 floats, 1,000 in a graph): ${(perDispatch * 1e6).toFixed(1)} µs`,
);
results.push({ kind: 'dispatch', device, seconds: perDispatch });
console.log('| shape M×K×N | fp32 TFLOP/s | fp16 TFLOP/s |\n|---|---|---|');
for (const shape of shapes) {
  const fp32 = await matmulRate(shape, undefined);
  let fp16 = Number.NaN;
  if (device !== 'cpu') {
    try {
      fp16 = await matmulRate(shape, { dtype: 'float16', mode: 'native' });
    } catch (error) {
      console.log(
        `fp16 ${shape.join('×')}: ${(error as Error).message.split('\n')[0]}`,
      );
    }
  }
  console.log(
    `| ${shape.join('×')} | ${(fp32 / 1e12).toFixed(2)} | ${Number.isNaN(fp16) ? '–' : (fp16 / 1e12).toFixed(2)} |`,
  );
  results.push({ kind: 'matmul', device, shape, fp32, fp16 });
}
const json = option('json');
if (json !== undefined) writeFileSync(json, JSON.stringify(results, null, 2));

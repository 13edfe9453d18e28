import { readFileSync } from 'node:fs';
import { createOrtSession, floatTensor, ort } from './engine/ort-session';
import { buildSequenceFeeds, buildSharedPrefixFeeds } from './engine/sequence-feeds';
import { buildGradGraph, buildSharedPrefixGradGraph } from './model/graph-families';
import { parseModelConfig } from './model/model-config';
import { listWeightSpecs } from './model/model-weights';
const config = parseModelConfig({ text: readFileSync('apps/cli/assets/base/config.json', 'utf8'), source: 'base' });
const half = config.headDim / 2;
let s = 1;
const rnd = () => { s = (s * 16807) % 2147483647; return (s / 2147483647 - 0.5) * 0.1; };
const base: Record<string, ort.Tensor> = {};
for (const spec of listWeightSpecs(config)) {
  const n = spec.shape.reduce((a, b) => a * b, 1);
  base[spec.name] = floatTensor(Float32Array.from({ length: n }, () => (spec.kind === 'norm' ? 1 : rnd())), [...spec.shape]);
  base[`acc.${spec.name}`] = floatTensor(new Float32Array(n), [...spec.shape]);
}
const loss = (T: number) => ({ inverse_temperature: floatTensor(Float32Array.of(1), []), token_weights: floatTensor(new Float32Array(T).fill(1), [T]), advantages: floatTensor(new Float32Array(T).fill(0.5), [T]), old_logprobs: floatTensor(new Float32Array(T).fill(-7), [T]), ref_logprobs: floatTensor(new Float32Array(T).fill(-7), [T]), clip_low: floatTensor(Float32Array.of(0.2), []), clip_high: floatTensor(Float32Array.of(0.28), []), dual_clip: floatTensor(Float32Array.of(3), []), kl_coef: floatTensor(Float32Array.of(0.001), []) });
const P = Number(process.argv[2] ?? 475), L = Number(process.argv[3] ?? 265), G = Number(process.argv[4] ?? 4);
const tok = (n: number, k: number) => Array.from({ length: n }, (_, i) => (i * k + 3) % 2048);
async function time(name: string, model: Uint8Array, feeds: Record<string, ort.Tensor>, reps: number) {
  const t0 = performance.now();
  const session = await createOrtSession({ model, settings: { executionProvider: 'cpu', threads: 1, optimizationLevel: 'all' } });
  const create = performance.now() - t0;
  const times: number[] = [];
  for (let i = 0; i < reps; i++) { const t = performance.now(); await session.run(feeds); times.push(performance.now() - t); }
  console.log(name, 'create', create.toFixed(0), 'ms; runs', times.map((t) => t.toFixed(0)).join(' '));
  await session.release();
  return Math.min(...times.slice(1));
}
// plain: G rows of P+L in micro-batches of 2 rows x bucket
const full = Math.ceil((P + L) / 64) * 64;
const rows = Math.max(1, 2 ** Math.floor(Math.log2(2048 / full)));
{
  const bucket = { batch: rows, length: full };
  const f = buildSequenceFeeds({ config, bucket, sequences: Array.from({ length: rows }, (_, r) => tok(P + L, r + 2)), floatType: 'float32' });
  const T = rows * full;
  const feeds = { ...base, ...loss(T), input_ids: new ort.Tensor('int64', f.inputIds, [T]), targets: new ort.Tensor('int64', f.targets, [T, 1]), rope_cos: floatTensor(f.cos as Float32Array, [rows, full, 1, half]), rope_sin: floatTensor(f.sin as Float32Array, [rows, full, 1, half]), attention_bias: floatTensor(f.bias as Float32Array, [rows, 1, 1, full, full]) };
  const ms = await time(`plain ${rows}x${full}`, buildGradGraph({ config, bucket, objective: 'ppo' }).model, feeds, 4);
  console.log(`plain per ${G} rows: ${(ms * G / rows).toFixed(0)} ms`);
}
{
  const Lb = Math.ceil(L / 64) * 64, Pb = Math.ceil(P / 64) * 64;
  const bucket = { prefix: Pb, batch: G, length: Lb };
  const f = buildSharedPrefixFeeds({ config, bucket, prefix: tok(P, 5), rows: Array.from({ length: G }, (_, r) => tok(L, r + 7)), floatType: 'float32' });
  const T = G * Lb;
  const feeds = { ...base, ...loss(T), prefix_ids: new ort.Tensor('int64', f.prefixIds, [Pb]), prefix_cos: floatTensor(f.prefixCos as Float32Array, [1, Pb, 1, half]), prefix_sin: floatTensor(f.prefixSin as Float32Array, [1, Pb, 1, half]), prefix_bias: floatTensor(f.prefixBias as Float32Array, [1, 1, 1, Pb, Pb]), input_ids: new ort.Tensor('int64', f.inputIds, [T]), targets: new ort.Tensor('int64', f.targets, [T, 1]), rope_cos: floatTensor(f.cos as Float32Array, [G, Lb, 1, half]), rope_sin: floatTensor(f.sin as Float32Array, [G, Lb, 1, half]), attention_bias: floatTensor(f.bias as Float32Array, [G, 1, 1, Lb, Pb + Lb]) };
  const ms = await time(`shared ${Pb}+${G}x${Lb}`, buildSharedPrefixGradGraph({ config, bucket, objective: 'ppo' }).model, feeds, 4);
  console.log(`shared per ${G} rows: ${ms.toFixed(0)} ms`);
}

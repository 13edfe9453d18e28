import { OrtEngine } from '../packages/engine-ort/src/engine/ort-engine';
import { createModelConfig, countParameters } from '../packages/engine-ort/src/model/model-config';
import { initializeWeights } from '../packages/engine-ort/src/model/model-weights';
const config = createModelConfig({ vocabSize: 2048, hiddenSize: 256, intermediateSize: 704, numLayers: 2, numHeads: 4, numKeyValueHeads: 2 });
const P = countParameters(config);
const engine = new OrtEngine({ config, weights: initializeWeights({ config, seed: 1 }) });
const settings = { learningRate: 1e-3, clipLow: 0.2, clipHigh: 0.2, dualClipC: 10, klCoef: 0, maxGradNorm: 1, weightDecay: 0.01, betas: [0.9, 0.999] as [number, number], eps: 1e-8 };
const seqs = Array.from({ length: 8 }, (_, i) => { const t = Array.from({ length: 256 }, (_, j) => (i * 7 + j * 13) % 2048); return { tokenIds: t, tokenWeights: t.map((_, j) => j === 0 ? 0 : 1 / 2040) }; });
const t0 = performance.now();
await engine.train({ objective: 'cross-entropy', sequences: seqs, settings });
console.log('first step (incl. session build)', performance.now() - t0);
const times: number[] = [];
for (let s = 0; s < 8; s++) { const t = performance.now(); await engine.train({ objective: 'cross-entropy', sequences: seqs, settings }); times.push(performance.now() - t); }
times.sort((a, b) => a - b);
const flops = (6 * (P - 0) + 12 * 2 * 256 * 256) * 2048;
console.log('params', P, 'median ms', times[4], 'min', times[0], 'GFLOP/s', flops / times[4]! / 1e6);

import { OrtEngine } from '../packages/engine-ort/src/engine/ort-engine';
import { createModelConfig } from '../packages/engine-ort/src/model/model-config';
import { initializeWeights } from '../packages/engine-ort/src/model/model-weights';
const config = createModelConfig({ vocabSize: 64, hiddenSize: 32, intermediateSize: 48, numLayers: 2, numHeads: 4, numKeyValueHeads: 2 });
const engine = new OrtEngine({ config, weights: initializeWeights({ config, seed: 1 }) });
const gens = await engine.generate({ prompts: [[1,2,3],[4,5,6,7,8,9,10]], maxTokens: 10, sampling: { temperature: 0, topP: 1, topK: 0 }, stopTokenIds: [], seed: 0 });
console.log(gens.map(g => g.tokenIds));
const seqs = gens.map((g, i) => [...[[1,2,3],[4,5,6,7,8,9,10]][i]!, ...g.tokenIds]);
const sc = await engine.score(seqs);
for (let i = 0; i < 2; i++) {
  const p = [[1,2,3],[4,5,6,7,8,9,10]][i]!.length;
  console.log(gens[i]!.modelLogprobs.map((x, j) => (x - sc[i]![p + j]!).toExponential(2)).join(' '));
}
const settings = { learningRate: 1e-2, clipLow: 0.2, clipHigh: 0.2, dualClipC: 10, klCoef: 0, maxGradNorm: 1, weightDecay: 0.01, betas: [0.9, 0.999] as [number, number], eps: 1e-8 };
for (let s = 0; s < 20; s++) {
  const r = await engine.train({ objective: 'cross-entropy', sequences: [{ tokenIds: [1,2,3,4,5,6], tokenWeights: [0,1,1,1,1,1].map(x => x/5) }], settings });
  if (s % 5 === 0) console.log(r.loss, r.gradNorm, r.metrics);
}
const old = (await engine.score([[1,2,3,4,5,6]]))[0]!;
const r = await engine.train({ objective: 'ppo', sequences: [{ tokenIds: [1,2,3,4,5,6], tokenWeights: [0,1,1,1,1,1], advantages: [0,1,1,-1,1,1], oldLogprobs: old }], settings });
console.log(r);
await engine.close();

import { createOrtPolicy, createModelConfig, buildBpeTokenizer } from '../packages/engine-ort/src/index';
const tok = buildBpeTokenizer({ corpus: ['a b c'], vocabSize: 270 });
const config = createModelConfig({ vocabSize: 272, hiddenSize: 32, intermediateSize: 64, numLayers: 1, numHeads: 2 });
const p = await createOrtPolicy({ model: { config, seed: 1 }, tokenizer: tok });
console.log((await p.generate({ prompts: [[1, 2]], maxTokens: 3, temperature: 0 })).generations[0]!.tokenIds);
await p.close();

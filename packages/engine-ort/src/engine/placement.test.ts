import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { createModelConfig } from '../model/model-config';
import { initializeWeights } from '../model/model-weights';
import { OrtEngine } from './ort-engine';
import {
  assertOnDevice,
  formatPlacementTable,
  offDeviceNodes,
  readPlacementProfile,
  type GraphPlacement,
} from './placement';

const fixture = readFileSync(
  new URL('../__fixtures__/placement/cpu-profile.json', import.meta.url),
  'utf8',
);

/** A graph placement on `device` with one node per entry. */
function placementOf(
  device: GraphPlacement['device'],
  nodes: Array<[op: string, provider: string, type: string, shape: number[]]>,
): GraphPlacement {
  return {
    family: 'grad-ppo',
    key: 'grad-ppo:8:256',
    device,
    nodes: nodes.map(([op, provider, type, shape], i) => ({
      node: `n${i}`,
      op,
      provider,
      outputs: [{ type, shape }],
    })),
  };
}

describe('readPlacementProfile', () => {
  it('should read each node of an ORT profile with its op, provider and output shapes', () => {
    const nodes = readPlacementProfile(fixture);
    expect(nodes.map((node) => [node.op, node.provider])).toEqual([
      ['Gemm', 'CPUExecutionProvider'],
      ['ReduceSum', 'CPUExecutionProvider'],
      ['Exp', 'CPUExecutionProvider'],
    ]);
    expect(nodes[0]!.outputs).toEqual([{ type: 'float', shape: [16, 16] }]);
  });

  it('should refuse a file that is not a profile with INVALID_DATA', () => {
    expect(() => readPlacementProfile('{"cat": 1}')).toThrow(
      expect.objectContaining({ code: 'INVALID_DATA' }),
    );
  });
});

describe('offDeviceNodes', () => {
  it('should flag a CPU node of a GPU graph that makes a float activation, not shape arithmetic or scalars', () => {
    const placement = placementOf('webgpu', [
      ['MatMul', 'WebGpuExecutionProvider', 'float', [8, 256, 640]],
      ['Shape', 'CPUExecutionProvider', 'int64', [4]],
      ['ReduceSum', 'CPUExecutionProvider', 'float', []],
      ['Max', 'CPUExecutionProvider', 'float', [8, 256]],
    ]);
    expect(offDeviceNodes(placement).map((node) => node.op)).toEqual(['Max']);
    expect(() => assertOnDevice([placement])).toThrow(
      expect.objectContaining({ code: 'BACKEND_UNAVAILABLE' }),
    );
  });

  it('should never flag a CPU graph', () => {
    const placement = placementOf('cpu', [
      ['MatMul', 'CPUExecutionProvider', 'float', [8, 256, 640]],
    ]);
    expect(offDeviceNodes(placement)).toEqual([]);
    expect(() => assertOnDevice([placement])).not.toThrow();
  });
});

describe('OrtEngine placement recording', () => {
  it('should record every graph family of a training step and a generation on its first session, all on the CPU EP', async () => {
    const config = createModelConfig({
      vocabSize: 64,
      hiddenSize: 16,
      intermediateSize: 32,
      numLayers: 1,
      numHeads: 2,
      numKeyValueHeads: 1,
      maxPositionEmbeddings: 128,
    });
    const engine = new OrtEngine({
      config,
      weights: initializeWeights({ config, seed: 1 }),
      settings: { threads: 1, recordPlacement: true },
    });
    const tokenIds = Array.from({ length: 20 }, (_, t) => (t * 7) % 64);
    await engine.train({
      objective: 'cross-entropy',
      sequences: [
        { tokenIds, tokenWeights: tokenIds.map((_, t) => (t === 0 ? 0 : 1)) },
      ],
      settings: {
        learningRate: 1e-3,
        temperature: 1,
        clipLow: 0.2,
        clipHigh: 0.2,
        dualClipC: 10,
        klCoef: 0,
        maxGradNorm: 1,
        weightDecay: 0,
        betas: [0.9, 0.999],
        eps: 1e-8,
      },
    });
    await engine.generate({
      prompts: [tokenIds],
      maxTokens: 3,
      sampling: { temperature: 0, topP: 1, topK: 0 },
      stopTokenIds: [],
      seed: 0,
    });
    await engine.close();
    const placements = engine.placements;
    expect(placements.map((placement) => placement.family)).toEqual([
      'grad-cross-entropy',
      'optimizer',
      'prefill',
      'decode',
    ]);
    for (const placement of placements) {
      expect(placement.nodes.length).toBeGreaterThan(10);
      expect(new Set(placement.nodes.map((node) => node.provider))).toEqual(
        new Set(['CPUExecutionProvider']),
      );
    }
    expect(formatPlacementTable(placements)).toMatch(
      /\| grad-cross-entropy:1:32 \| cpu \| \d+ \| CPU \d+ \| none \|/,
    );
  });
});

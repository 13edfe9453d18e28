import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createOrtSession, floatTensor, ort } from '../engine/ort-session';
import {
  buildSequenceFeeds,
  buildSharedPrefixFeeds,
  lengthBucket,
} from '../engine/sequence-feeds';
import { weightedSlots } from '../engine/ort-engine';
import { checkGraphGradients } from '../graph/gradient-check';
import { GraphBuilder } from '../graph/graph-builder';
import { decodeSafetensors } from '../io/safetensors';
import { SeededRandom } from '../io/seeded-random';
import { declareWeights } from './decoder-graph';
import {
  buildGradGraph,
  buildLogitsGraph,
  buildScoreGraph,
  buildSharedPrefixGradGraph,
  buildSharedPrefixScoreGraph,
  forwardLogprobs,
  lossInputValues,
  policyLoss,
  sequenceInputs,
  type SequenceBucket,
  type TrainObjective,
} from './graph-families';
import {
  createModelConfig,
  parseModelConfig,
  type ModelConfig,
} from './model-config';
import { listWeightSpecs, weightsFromTensors } from './model-weights';

const fixtureDirectory = join(
  import.meta.dirname,
  '..',
  '__fixtures__',
  'tiny-qwen2',
);

function randomWeights(
  config: ModelConfig,
  seed: number,
): Map<string, Float64Array> {
  const random = new SeededRandom(seed);
  return new Map(
    listWeightSpecs(config).map((spec) => {
      const n = spec.shape.reduce((a, b) => a * b, 1);
      const base = spec.kind === 'norm' ? 1 : 0;
      return [
        spec.name,
        Float64Array.from(
          { length: n },
          () => base + random.nextNormal() * 0.3,
        ),
      ];
    }),
  );
}

function sequenceFeeds({
  config,
  bucket,
  sequences,
}: {
  config: ModelConfig;
  bucket: SequenceBucket;
  sequences: number[][];
}): Map<string, Float64Array | BigInt64Array> {
  const feeds = buildSequenceFeeds({
    config,
    bucket,
    sequences,
    floatType: 'float64',
  });
  return new Map<string, Float64Array | BigInt64Array>([
    ['input_ids', feeds.inputIds],
    ['targets', feeds.targets],
    ['rope_cos', feeds.cos as Float64Array],
    ['rope_sin', feeds.sin as Float64Array],
    ['attention_bias', feeds.bias as Float64Array],
  ]);
}

async function runGraph({
  model,
  feeds,
  shapes,
}: {
  model: Uint8Array;
  feeds: Map<string, Float64Array | Float32Array | BigInt64Array>;
  shapes: Map<string, number[]>;
}): Promise<Record<string, ort.Tensor>> {
  const session = await createOrtSession({
    model,
    settings: {
      executionProvider: 'cpu',
      threads: 1,
      optimizationLevel: 'basic',
    },
  });
  const tensors: Record<string, ort.Tensor> = {};
  for (const name of session.inputNames) {
    const data = feeds.get(name)!;
    tensors[name] =
      data instanceof BigInt64Array
        ? new ort.Tensor('int64', data, shapes.get(name)!)
        : floatTensor(data, shapes.get(name)!);
  }
  const out = await session.run(tensors);
  await session.release();
  return out;
}

function inputShapes(
  config: ModelConfig,
  bucket: SequenceBucket,
): Map<string, number[]> {
  const { batch, length } = bucket;
  const half = config.headDim / 2;
  return new Map<string, number[]>([
    ...listWeightSpecs(config).map((spec): [string, number[]] => [
      spec.name,
      spec.shape,
    ]),
    ['input_ids', [batch * length]],
    ['targets', [batch * length, 1]],
    ['rope_cos', [batch, length, 1, half]],
    ['rope_sin', [batch, length, 1, half]],
    ['attention_bias', [batch, 1, 1, length, length]],
    ['inverse_temperature', []],
  ]);
}

async function wholeModelCheck({
  config,
  objective,
  queryBlocks,
}: {
  config: ModelConfig;
  objective: TrainObjective;
  queryBlocks?: number;
}) {
  const bucket = { batch: 2, length: 6 };
  const sequences = [
    [1, 5, 9, 3, 14, 2],
    [7, 7, 0, 12],
  ];
  const tokens = bucket.batch * bucket.length;
  const weights = randomWeights(config, 3);
  const feeds = new Map<string, Float64Array | BigInt64Array | Uint8Array>([
    ...weights,
    ...sequenceFeeds({ config, bucket, sequences }),
    // A temperature of 0.8, so the check covers the tempered log-probabilities.
    ['inverse_temperature', Float64Array.of(1.25)],
  ]);
  // Current log-probabilities, to place old/ref log-probabilities away from the clip kinks.
  const scored = await runGraph({
    model: buildScoreGraph({ config, bucket, floatType: 'float64' }).model,
    feeds: feeds as Map<string, Float64Array | BigInt64Array>,
    shapes: inputShapes(config, bucket),
  });
  const current = scored.logprobs!.data as Float64Array;
  const offsets = [0, 0.05, -0.05, 0.7, -0.7, 0.05];
  const random = new SeededRandom(4);
  const tokenWeights = new Float64Array(tokens);
  const advantages = new Float64Array(tokens);
  const oldLogprobs = new Float64Array(tokens);
  const refLogprobs = new Float64Array(tokens);
  for (let t = 0; t < tokens; t++) {
    const row = Math.floor(t / bucket.length);
    const position = t % bucket.length;
    // Slot t predicts token t+1: weight only inside the sequence, and not on the first (prompt) target.
    const inside = position >= 1 && position < sequences[row]!.length - 1;
    tokenWeights[t] = inside ? 0.25 + random.nextFloat() : 0;
    advantages[t] = random.nextNormal();
    oldLogprobs[t] = current[t]! + offsets[t % offsets.length]!;
    refLogprobs[t] = current[t]! + 0.3 * random.nextNormal();
  }
  feeds.set('token_weights', tokenWeights);
  feeds.set('advantages', advantages);
  feeds.set('old_logprobs', oldLogprobs);
  feeds.set('ref_logprobs', refLogprobs);
  feeds.set('clip_low', Float64Array.of(0.2));
  feeds.set('clip_high', Float64Array.of(0.2));
  feeds.set('dual_clip', Float64Array.of(1.8));
  feeds.set('kl_coef', Float64Array.of(0.1));
  return checkGraphGradients({
    feeds,
    elementsPerInput: 5,
    build: (g) => {
      const weightValues = declareWeights({
        builder: g,
        config,
        requiresGrad: true,
      });
      const inputs = sequenceInputs({ builder: g, config, bucket });
      const inverseTemperature = g.input({
        name: 'inverse_temperature',
        shape: [],
      });
      const logprobs = forwardLogprobs({
        builder: g,
        config,
        weights: weightValues,
        bucket,
        inputs,
        inverseTemperature,
        queryBlocks,
      });
      const lossInputs = lossInputValues({ builder: g, tokens, objective });
      const { loss } = policyLoss({ builder: g, logprobs, lossInputs });
      return { loss, wrt: [...weightValues.values()] };
    },
  });
}

/** The small tied Qwen2 model of the grad graph's gradient check and of the graph parity tests. */
const parityConfig = createModelConfig({
  vocabSize: 16,
  hiddenSize: 16,
  intermediateSize: 24,
  numLayers: 2,
  numHeads: 4,
  numKeyValueHeads: 2,
});

describe('grad graph', () => {
  const qwen2 = parityConfig;

  it('should match finite differences for a 2-layer tied Qwen2 model with the PPO + KL loss', async () => {
    const result = await wholeModelCheck({ config: qwen2, objective: 'ppo' });
    expect(Object.keys(result.perInput)).toHaveLength(
      listWeightSpecs(qwen2).length,
    );
    console.log(
      `worst relative error ${result.worstRelativeError.toExponential(2)} over ${result.checked} elements`,
    );
    expect(result.worstRelativeError).toBeLessThan(1e-5);
  });

  it('should compute the same log-probabilities with the causal attention in query blocks as dense', async () => {
    const bucket = { batch: 2, length: 6 };
    const feeds = new Map<string, Float64Array | BigInt64Array>([
      ...randomWeights(qwen2, 5),
      ...sequenceFeeds({
        config: qwen2,
        bucket,
        sequences: [
          [1, 5, 9, 3, 14, 2],
          [7, 7, 0, 12],
        ],
      }),
      ['inverse_temperature', Float64Array.of(1)],
    ]);
    const logprobs = async (queryBlocks: number) => {
      const g = new GraphBuilder({ floatType: 'float64' });
      const weights = declareWeights({
        builder: g,
        config: qwen2,
        requiresGrad: false,
      });
      const inputs = sequenceInputs({ builder: g, config: qwen2, bucket });
      const inverseTemperature = g.input({
        name: 'inverse_temperature',
        shape: [],
      });
      g.output(
        forwardLogprobs({
          builder: g,
          config: qwen2,
          weights,
          bucket,
          inputs,
          inverseTemperature,
          queryBlocks,
        }),
        'logprobs',
      );
      const out = await runGraph({
        model: g.toOnnx({ name: 'blocks' }),
        feeds,
        shapes: inputShapes(qwen2, bucket),
      });
      return Array.from(out.logprobs!.data as Float64Array);
    };
    const dense = await logprobs(1);
    for (const blocks of [2, 3, 6]) {
      const blocked = await logprobs(blocks);
      blocked.forEach((value, t) =>
        expect(Math.abs(value - dense[t]!)).toBeLessThan(1e-12),
      );
    }
  });

  it('should match finite differences with the causal attention split into query blocks', async () => {
    // Length 6 in 3 blocks of 2: the training graphs use blocks from 128 tokens.
    const result = await wholeModelCheck({
      config: qwen2,
      objective: 'ppo',
      queryBlocks: 3,
    });
    console.log(
      `worst relative error ${result.worstRelativeError.toExponential(2)} over ${result.checked} elements`,
    );
    expect(result.worstRelativeError).toBeLessThan(1e-5);
  });

  it('should match finite differences for a 2-layer untied Llama model with cross-entropy', async () => {
    const llama = createModelConfig({
      architecture: 'llama',
      vocabSize: 16,
      hiddenSize: 16,
      intermediateSize: 24,
      numLayers: 2,
      numHeads: 2,
      numKeyValueHeads: 1,
      tieWordEmbeddings: false,
    });
    const result = await wholeModelCheck({
      config: llama,
      objective: 'cross-entropy',
    });
    expect(result.perInput['lm_head.weight']).toBeDefined();
    console.log(
      `worst relative error ${result.worstRelativeError.toExponential(2)} over ${result.checked} elements`,
    );
    expect(result.worstRelativeError).toBeLessThan(1e-5);
  });
});

/** The PPO inputs of the graph parity tests (selected slots, shared prefixes). */
const lossNames = [
  'token_weights',
  'advantages',
  'old_logprobs',
  'ref_logprobs',
] as const;

/** The PPO scalars and zeroed gradient accumulators of a parity test's grad graphs. */
function ppoGraphInputs(config: ModelConfig = parityConfig) {
  const scalars = new Map<string, Float64Array>([
    ['inverse_temperature', Float64Array.of(1.25)],
    ['clip_low', Float64Array.of(0.2)],
    ['clip_high', Float64Array.of(0.28)],
    ['dual_clip', Float64Array.of(3)],
    ['kl_coef', Float64Array.of(0.1)],
  ]);
  const accumulators = listWeightSpecs(config).map(
    (spec): [string, Float64Array] => [
      `acc.${spec.name}`,
      new Float64Array(spec.shape.reduce((a, b) => a * b, 1)),
    ],
  );
  return { scalars, accumulators };
}

describe('graphs scored at selected slots', () => {
  const config = parityConfig;

  /**
   * The grad graph over every slot against the same graph scored only at the
   * weighted slots (as the engine picks them, padded with slot 0), in fp64:
   * the loss, the metric sums and every gradient; and the score graphs'
   * log-probabilities at those slots. `shift` moves every picked slot by
   * that many positions, which must break the agreement.
   */
  async function parity({ shift = 0 }: { shift?: number } = {}) {
    const random = new SeededRandom(21);
    const token = () => Math.floor(random.nextFloat() * config.vocabSize);
    const rows = [40, 17, 29, 8].map((n) => Array.from({ length: n }, token));
    const bucket = { batch: 4, length: 64 };
    const tokens = bucket.batch * bucket.length;
    // Weights on a few spans of each row, as the generated turns of an episode.
    const rowWeights = rows.map((row) =>
      row.map((_, t) => (t % 13 >= 9 && t > 0 ? 0.25 + random.nextFloat() : 0)),
    );
    const slots = weightedSlots(
      bucket,
      rowWeights.map((tokenWeights) => ({ tokenWeights })),
    )!;
    expect(slots.length).toBe(tokens / 8);
    const picked = slots.map((slot) =>
      Math.min(tokens - 1, Math.max(0, slot + shift)),
    );
    const perSlot = Object.fromEntries(
      lossNames.map((name) => {
        const out = new Float64Array(tokens);
        rows.forEach((row, r) => {
          for (let t = 1; t < row.length; t++) {
            out[r * bucket.length + t - 1] =
              name === 'token_weights'
                ? rowWeights[r]![t]!
                : name === 'advantages'
                  ? random.nextNormal()
                  : -2.5 + 0.3 * random.nextNormal();
          }
        });
        return [name, out];
      }),
    ) as Record<(typeof lossNames)[number], Float64Array>;
    const weights = randomWeights(config, 22);
    const { scalars, accumulators } = ppoGraphInputs();
    const plain = sequenceFeeds({ config, bucket, sequences: rows });
    const shapes = (count: number) =>
      new Map([
        ...inputShapes(config, bucket),
        ...listWeightSpecs(config).map((spec): [string, number[]] => [
          `acc.${spec.name}`,
          spec.shape,
        ]),
        ...lossNames.map((name): [string, number[]] => [name, [count]]),
        ...[...scalars.keys()].map((name): [string, number[]] => [name, []]),
        ['targets', [count, 1]],
        ['slots', [count]],
      ]);
    const common = new Map([...weights, ...accumulators, ...scalars]);
    const full = await runGraph({
      model: buildGradGraph({
        config,
        bucket,
        objective: 'ppo',
        floatType: 'float64',
      }).model,
      feeds: new Map([...common, ...plain, ...Object.entries(perSlot)]),
      shapes: shapes(tokens),
    });
    const allTargets = plain.get('targets') as BigInt64Array;
    const selectedFeeds = new Map<string, Float64Array | BigInt64Array>([
      ...common,
      ...plain,
      ['targets', BigInt64Array.from(picked, (slot) => allTargets[slot]!)],
      ['slots', BigInt64Array.from(picked, (slot) => BigInt(slot))],
      ...lossNames.map((name): [string, Float64Array] => [
        name,
        Float64Array.from(slots, (slot) => perSlot[name][slot]!),
      ]),
    ]);
    const selectedBucket = { ...bucket, selected: slots.length };
    const selected = await runGraph({
      model: buildGradGraph({
        config,
        bucket: selectedBucket,
        objective: 'ppo',
        floatType: 'float64',
      }).model,
      feeds: selectedFeeds,
      shapes: shapes(slots.length),
    });
    let worst = 0;
    for (const name of Object.keys(full)) {
      const a = selected[name]!.data as Float64Array;
      const e = full[name]!.data as Float64Array;
      expect(a.length).toBe(e.length);
      const scale = Math.max(1e-12, ...Array.from(e, Math.abs));
      for (let i = 0; i < e.length; i++)
        worst = Math.max(worst, Math.abs(a[i]! - e[i]!) / scale);
    }
    const scoredFull = (
      await runGraph({
        model: buildScoreGraph({ config, bucket, floatType: 'float64' }).model,
        feeds: new Map([...weights, ...scalars, ...plain]),
        shapes: shapes(tokens),
      })
    ).logprobs!.data as Float64Array;
    const scoredSelected = (
      await runGraph({
        model: buildScoreGraph({
          config,
          bucket: selectedBucket,
          floatType: 'float64',
        }).model,
        feeds: selectedFeeds,
        shapes: shapes(slots.length),
      })
    ).logprobs!.data as Float64Array;
    let worstLogprob = 0;
    slots.forEach((slot, k) => {
      worstLogprob = Math.max(
        worstLogprob,
        Math.abs(scoredSelected[k]! - scoredFull[slot]!),
      );
    });
    return { worst, worstLogprob, outputs: Object.keys(full).length };
  }

  it('should give the loss, sums and gradients of the full graph', async () => {
    const result = await parity();
    expect(result.outputs).toBe(5 + listWeightSpecs(config).length);
    expect(result.worst).toBeLessThan(1e-10);
    expect(result.worstLogprob).toBeLessThan(1e-12);
  });

  it('should fail the comparison when the slots are off by one', async () => {
    const result = await parity({ shift: 1 });
    expect(result.worst).toBeGreaterThan(1e-3);
    expect(result.worstLogprob).toBeGreaterThan(1e-3);
  });
});

describe('weightedSlots', () => {
  const rows = (weights: number[][]) =>
    weights.map((tokenWeights) => ({ tokenWeights }));

  it('should pick the slot before each weighted token and pad to an eighth with slot 0', () => {
    const slots = weightedSlots(
      { batch: 2, length: 16 },
      rows([
        [0, 0, 1, 1, 0],
        [0, 0.5, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0],
      ]),
    );
    expect(Array.from(slots!)).toEqual([1, 2, 16, 0]);
  });

  it('should take a quarter or half when an eighth is too small, and give up past half', () => {
    const weighted = (n: number) => [[0, ...new Array<number>(n).fill(1)]];
    expect(
      weightedSlots({ batch: 1, length: 64 }, rows(weighted(8)))!.length,
    ).toBe(8);
    expect(
      weightedSlots({ batch: 1, length: 64 }, rows(weighted(9)))!.length,
    ).toBe(16);
    expect(
      weightedSlots({ batch: 1, length: 64 }, rows(weighted(17)))!.length,
    ).toBe(32);
    expect(
      weightedSlots({ batch: 1, length: 64 }, rows(weighted(33))),
    ).toBeUndefined();
  });
});

describe('shared-prefix graphs', () => {
  const config = parityConfig;
  const half = config.headDim / 2;

  /**
   * The grad graph of full rows (prefix + continuation) against the
   * shared-prefix grad graph of the same rows, in fp64: the loss, the metric
   * sums and every gradient agree. The prefix's positions carry no weight.
   */
  async function parity({
    prefixLength,
    suffixLengths,
    seed,
  }: {
    prefixLength: number;
    suffixLengths: number[];
    seed: number;
  }) {
    const random = new SeededRandom(seed);
    const token = () => Math.floor(random.nextFloat() * config.vocabSize);
    const prefix = Array.from({ length: prefixLength }, token);
    const suffixes = suffixLengths.map((n) => Array.from({ length: n }, token));
    const full = suffixes.map((suffix) => [...prefix, ...suffix]);
    // Per-token values aligned with each full row; weight only after the prefix's last token.
    const perToken = full.map(
      (row) =>
        Object.fromEntries(
          lossNames.map((name) => [
            name,
            row.map((_, t) =>
              name === 'token_weights'
                ? t > prefixLength
                  ? 0.25 + random.nextFloat()
                  : 0
                : name === 'advantages'
                  ? random.nextNormal()
                  : -2.5 + 0.3 * random.nextNormal(),
            ),
          ]),
        ) as Record<(typeof lossNames)[number], number[]>,
    );
    const weights = randomWeights(config, seed + 1);
    const { scalars, accumulators } = ppoGraphInputs();
    const shifted = (
      bucket: { batch: number; length: number },
      offset: number,
      name: (typeof lossNames)[number],
    ) => {
      const out = new Float64Array(bucket.batch * bucket.length);
      full.forEach((row, r) => {
        const values = perToken[r]![name];
        for (let t = 1; t < row.length - offset; t++)
          out[r * bucket.length + t - 1] = values[offset + t]!;
      });
      return out;
    };
    const shapesOf = (
      entries: [string, number[]][],
      bucket: { batch: number; length: number },
    ): Map<string, number[]> =>
      new Map([
        ...listWeightSpecs(config).map((spec): [string, number[]] => [
          spec.name,
          spec.shape,
        ]),
        ...listWeightSpecs(config).map((spec): [string, number[]] => [
          `acc.${spec.name}`,
          spec.shape,
        ]),
        ...lossNames.map((name): [string, number[]] => [
          name,
          [bucket.batch * bucket.length],
        ]),
        ...[...scalars.keys()].map((name): [string, number[]] => [name, []]),
        ['input_ids', [bucket.batch * bucket.length]],
        ['targets', [bucket.batch * bucket.length, 1]],
        ['rope_cos', [bucket.batch, bucket.length, 1, half]],
        ['rope_sin', [bucket.batch, bucket.length, 1, half]],
        ...entries,
      ]);

    const fullBucket = {
      batch: full.length,
      length: lengthBucket(Math.max(...full.map((row) => row.length))),
    };
    const plain = sequenceFeeds({
      config,
      bucket: fullBucket,
      sequences: full,
    });
    const expected = await runGraph({
      model: buildGradGraph({
        config,
        bucket: fullBucket,
        objective: 'ppo',
        floatType: 'float64',
      }).model,
      feeds: new Map([
        ...weights,
        ...accumulators,
        ...scalars,
        ...plain,
        ...lossNames.map((name): [string, Float64Array] => [
          name,
          shifted(fullBucket, 0, name),
        ]),
      ]),
      shapes: shapesOf(
        [
          [
            'attention_bias',
            [fullBucket.batch, 1, 1, fullBucket.length, fullBucket.length],
          ],
        ],
        fullBucket,
      ),
    });

    const bucket = {
      prefix: lengthBucket(prefixLength),
      batch: suffixes.length,
      length: lengthBucket(Math.max(...suffixLengths)),
    };
    const shared = buildSharedPrefixFeeds({
      config,
      bucket,
      prefix,
      rows: suffixes,
      floatType: 'float64',
    });
    const sharedFeeds = new Map<string, Float64Array | BigInt64Array>([
      ...weights,
      ...accumulators,
      ...scalars,
      ['prefix_ids', shared.prefixIds],
      ['prefix_cos', shared.prefixCos as Float64Array],
      ['prefix_sin', shared.prefixSin as Float64Array],
      ['prefix_bias', shared.prefixBias as Float64Array],
      ['input_ids', shared.inputIds],
      ['targets', shared.targets],
      ['rope_cos', shared.cos as Float64Array],
      ['rope_sin', shared.sin as Float64Array],
      ['attention_bias', shared.bias as Float64Array],
      ...lossNames.map((name): [string, Float64Array] => [
        name,
        shifted(bucket, prefixLength, name),
      ]),
    ]);
    const sharedShapes = shapesOf(
      [
        ['prefix_ids', [bucket.prefix]],
        ['prefix_cos', [1, bucket.prefix, 1, half]],
        ['prefix_sin', [1, bucket.prefix, 1, half]],
        ['prefix_bias', [1, 1, 1, bucket.prefix, bucket.prefix]],
        [
          'attention_bias',
          [bucket.batch, 1, 1, bucket.length, bucket.prefix + bucket.length],
        ],
      ],
      bucket,
    );
    const actual = await runGraph({
      model: buildSharedPrefixGradGraph({
        config,
        bucket,
        objective: 'ppo',
        floatType: 'float64',
      }).model,
      feeds: sharedFeeds,
      shapes: sharedShapes,
    });
    let worst = 0;
    for (const name of Object.keys(expected)) {
      const a = actual[name]!.data as Float64Array;
      const e = expected[name]!.data as Float64Array;
      expect(a.length).toBe(e.length);
      const scale = Math.max(1e-12, ...Array.from(e, Math.abs));
      for (let i = 0; i < e.length; i++)
        worst = Math.max(worst, Math.abs(a[i]! - e[i]!) / scale);
    }
    // The score graph's log-probabilities of the continuations are the same as the full rows'.
    const scoredFull = (
      await runGraph({
        model: buildScoreGraph({
          config,
          bucket: fullBucket,
          floatType: 'float64',
        }).model,
        feeds: new Map([...weights, ...scalars, ...plain]),
        shapes: shapesOf(
          [
            [
              'attention_bias',
              [fullBucket.batch, 1, 1, fullBucket.length, fullBucket.length],
            ],
          ],
          fullBucket,
        ),
      })
    ).logprobs!.data as Float64Array;
    const scoredShared = (
      await runGraph({
        model: buildSharedPrefixScoreGraph({
          config,
          bucket,
          floatType: 'float64',
        }).model,
        feeds: sharedFeeds,
        shapes: sharedShapes,
      })
    ).logprobs!.data as Float64Array;
    let worstLogprob = 0;
    suffixes.forEach((suffix, r) => {
      for (let t = 0; t + 1 < suffix.length; t++) {
        worstLogprob = Math.max(
          worstLogprob,
          Math.abs(
            scoredShared[r * bucket.length + t]! -
              scoredFull[r * fullBucket.length + prefixLength + t]!,
          ),
        );
      }
    });
    return { worst, worstLogprob, outputs: Object.keys(expected).length };
  }

  it('should give the loss and gradients of the full rows, the prefix computed once', async () => {
    // A 7-token prefix padded to 8 slots, continuations of 3, 8 and 2 tokens.
    const result = await parity({
      prefixLength: 7,
      suffixLengths: [3, 8, 2],
      seed: 11,
    });
    expect(result.outputs).toBe(5 + listWeightSpecs(config).length);
    expect(result.worst).toBeLessThan(1e-10);
    expect(result.worstLogprob).toBeLessThan(1e-12);
  });

  it('should agree with the causal attention in query blocks on both sides of the prefix', async () => {
    // 130 prefix tokens in 192 slots (4 query blocks), continuations of up to 128 tokens (2 blocks).
    const result = await parity({
      prefixLength: 130,
      suffixLengths: [60, 128, 33],
      seed: 12,
    });
    expect(result.worst).toBeLessThan(1e-10);
    expect(result.worstLogprob).toBeLessThan(1e-12);
  });
});

describe('parity with the PyTorch reference (tiny random Qwen2)', () => {
  const config = parseModelConfig({
    text: readFileSync(join(fixtureDirectory, 'config.json'), 'utf8'),
    source: 'config.json',
  });
  const { tensors } = decodeSafetensors({
    bytes: readFileSync(join(fixtureDirectory, 'model.safetensors')),
    source: 'model.safetensors',
  });
  const weights = weightsFromTensors({
    config,
    tensors,
    source: 'model.safetensors',
  });
  const expected = JSON.parse(
    readFileSync(join(fixtureDirectory, 'expected.json'), 'utf8'),
  ) as {
    cases: Array<{
      tokenIds: number[];
      logits: number[][];
      logprobs: number[];
    }>;
  };
  const bucket = { batch: 4, length: 16 };
  const sequences = expected.cases.map((c) => c.tokenIds);

  async function logits(
    floatType: 'float32' | 'float64',
  ): Promise<Float32Array | Float64Array> {
    const feeds = new Map<
      string,
      Float64Array | Float32Array | BigInt64Array
    >();
    for (const spec of weights.specs) {
      const view = weights.get(spec.name);
      feeds.set(
        spec.name,
        floatType === 'float64' ? Float64Array.from(view) : view,
      );
    }
    const sequenceData = buildSequenceFeeds({
      config,
      bucket,
      sequences,
      floatType,
    });
    feeds.set('input_ids', sequenceData.inputIds);
    feeds.set('targets', sequenceData.targets);
    feeds.set('rope_cos', sequenceData.cos);
    feeds.set('rope_sin', sequenceData.sin);
    feeds.set('attention_bias', sequenceData.bias);
    const out = await runGraph({
      model: buildLogitsGraph({ config, bucket, floatType }).model,
      feeds,
      shapes: inputShapes(config, bucket),
    });
    return out.logits!.data as Float32Array | Float64Array;
  }

  function worstLogitError(actual: Float32Array | Float64Array): number {
    let worst = 0;
    expected.cases.forEach((c, row) => {
      c.logits.forEach((rowLogits, t) => {
        rowLogits.forEach((value, v) => {
          const got = actual[(row * bucket.length + t) * config.vocabSize + v]!;
          worst = Math.max(worst, Math.abs(got - value));
        });
      });
    });
    return worst;
  }

  it('should reproduce the reference logits in fp64 to 1e-10', async () => {
    const error = worstLogitError(await logits('float64'));
    console.log(`fp64 worst logit error ${error.toExponential(2)}`);
    expect(error).toBeLessThan(1e-10);
  });

  it('should reproduce the reference logits in fp32 to 1e-4', async () => {
    const error = worstLogitError(await logits('float32'));
    console.log(`fp32 worst logit error ${error.toExponential(2)}`);
    expect(error).toBeLessThan(1e-4);
  });

  it('should reproduce the reference next-token logprobs with the fp32 score graph', async () => {
    const feeds = new Map<string, Float32Array | BigInt64Array>();
    for (const spec of weights.specs)
      feeds.set(spec.name, weights.get(spec.name));
    const sequenceData = buildSequenceFeeds({
      config,
      bucket,
      sequences,
      floatType: 'float32',
    });
    feeds.set('input_ids', sequenceData.inputIds);
    feeds.set('targets', sequenceData.targets);
    feeds.set('rope_cos', sequenceData.cos as Float32Array);
    feeds.set('rope_sin', sequenceData.sin as Float32Array);
    feeds.set('attention_bias', sequenceData.bias as Float32Array);
    feeds.set('inverse_temperature', Float32Array.of(1));
    const out = await runGraph({
      model: buildScoreGraph({ config, bucket }).model,
      feeds,
      shapes: inputShapes(config, bucket),
    });
    const logprobs = out.logprobs!.data as Float32Array;
    let worst = 0;
    expected.cases.forEach((c, row) => {
      for (let t = 1; t < c.tokenIds.length; t++) {
        worst = Math.max(
          worst,
          Math.abs(logprobs[row * bucket.length + t - 1]! - c.logprobs[t]!),
        );
      }
    });
    console.log(`fp32 worst logprob error ${worst.toExponential(2)}`);
    expect(worst).toBeLessThan(1e-4);
  });
});

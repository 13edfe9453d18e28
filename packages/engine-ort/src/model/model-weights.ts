import { SealError } from '@seal/spec';
import type { NamedTensor } from '../io/safetensors';
import { SeededRandom } from '../io/seeded-random';
import type { ModelConfig } from './model-config';

/** One weight tensor of the model, named as in Hugging Face checkpoints. */
export type WeightSpec = {
  /** The Hugging Face name, e.g. `model.layers.0.self_attn.q_proj.weight`. */
  name: string;
  /** Row-major shape (`[out, in]` for linear layers, as in PyTorch). */
  shape: number[];
  /** What it is; decides the initialisation and whether weight decay applies. */
  kind: 'embedding' | 'matrix' | 'norm' | 'bias';
  /**
   * The final norm before the LM head (`model.norm.weight`): its gain scales
   * every logit, so it is the model's own inverse temperature. The optimizer
   * can give it a learning rate of its own.
   */
  outputNorm?: true;
};

/** The weight tensors of a model, in a fixed order. */
export function listWeightSpecs(config: ModelConfig): WeightSpec[] {
  const h = config.hiddenSize;
  const q = config.numHeads * config.headDim;
  const kv = config.numKeyValueHeads * config.headDim;
  const f = config.intermediateSize;
  const specs: WeightSpec[] = [
    {
      name: 'model.embed_tokens.weight',
      shape: [config.vocabSize, h],
      kind: 'embedding',
    },
  ];
  for (let layer = 0; layer < config.numLayers; layer++) {
    const p = `model.layers.${layer}`;
    specs.push({
      name: `${p}.input_layernorm.weight`,
      shape: [h],
      kind: 'norm',
    });
    specs.push({
      name: `${p}.self_attn.q_proj.weight`,
      shape: [q, h],
      kind: 'matrix',
    });
    if (config.attentionBias)
      specs.push({
        name: `${p}.self_attn.q_proj.bias`,
        shape: [q],
        kind: 'bias',
      });
    specs.push({
      name: `${p}.self_attn.k_proj.weight`,
      shape: [kv, h],
      kind: 'matrix',
    });
    if (config.attentionBias)
      specs.push({
        name: `${p}.self_attn.k_proj.bias`,
        shape: [kv],
        kind: 'bias',
      });
    specs.push({
      name: `${p}.self_attn.v_proj.weight`,
      shape: [kv, h],
      kind: 'matrix',
    });
    if (config.attentionBias)
      specs.push({
        name: `${p}.self_attn.v_proj.bias`,
        shape: [kv],
        kind: 'bias',
      });
    specs.push({
      name: `${p}.self_attn.o_proj.weight`,
      shape: [h, q],
      kind: 'matrix',
    });
    specs.push({
      name: `${p}.post_attention_layernorm.weight`,
      shape: [h],
      kind: 'norm',
    });
    specs.push({
      name: `${p}.mlp.gate_proj.weight`,
      shape: [f, h],
      kind: 'matrix',
    });
    specs.push({
      name: `${p}.mlp.up_proj.weight`,
      shape: [f, h],
      kind: 'matrix',
    });
    specs.push({
      name: `${p}.mlp.down_proj.weight`,
      shape: [h, f],
      kind: 'matrix',
    });
  }
  specs.push({
    name: 'model.norm.weight',
    shape: [h],
    kind: 'norm',
    outputNorm: true,
  });
  if (!config.tieWordEmbeddings) {
    specs.push({
      name: 'lm_head.weight',
      shape: [config.vocabSize, h],
      kind: 'matrix',
    });
  }
  return specs;
}

/**
 * A set of named fp32 tensors that share one flat buffer (one view per
 * tensor). The engine keeps weights, gradients and Adam moments in these, so
 * graph inputs and pre-allocated outputs are views with no copies.
 */
export class FlatTensors {
  /** The tensors, in order. */
  readonly specs: readonly WeightSpec[];
  /** The backing buffer. */
  readonly buffer: Float32Array;
  private readonly views = new Map<string, Float32Array>();

  constructor(specs: readonly WeightSpec[], buffer?: Float32Array) {
    this.specs = specs;
    const total = specs.reduce((sum, spec) => sum + size(spec.shape), 0);
    this.buffer = buffer ?? new Float32Array(total);
    if (this.buffer.length !== total) {
      throw new SealError({
        code: 'INTERNAL',
        message: 'flat buffer size does not match the specs',
      });
    }
    let offset = 0;
    for (const spec of specs) {
      const n = size(spec.shape);
      this.views.set(spec.name, this.buffer.subarray(offset, offset + n));
      offset += n;
    }
  }

  /** The view of one tensor. */
  get(name: string): Float32Array {
    const view = this.views.get(name);
    if (view === undefined)
      throw new SealError({
        code: 'INTERNAL',
        message: `unknown tensor ${name}`,
      });
    return view;
  }

  /** A copy with its own buffer. */
  clone(): FlatTensors {
    return new FlatTensors(this.specs, this.buffer.slice());
  }

  /** Named tensors (views, not copies) for writing to safetensors. */
  entries(): Array<[string, NamedTensor]> {
    return this.specs.map((spec) => [
      spec.name,
      { shape: spec.shape, data: this.get(spec.name) },
    ]);
  }
}

/** Number of elements of a shape. */
export function size(shape: readonly number[]): number {
  return shape.reduce((a, b) => a * b, 1);
}

/**
 * Seeded random initialisation as in Hugging Face's `_init_weights` for
 * Qwen2/Llama: normal(0, initializerRange) for embeddings and linear weights,
 * zeros for biases, ones for RMSNorm weights.
 */
export function initializeWeights({
  config,
  seed,
}: {
  config: ModelConfig;
  seed: number;
}): FlatTensors {
  const weights = new FlatTensors(listWeightSpecs(config));
  const random = new SeededRandom(seed);
  for (const spec of weights.specs) {
    const view = weights.get(spec.name);
    if (spec.kind === 'norm') view.fill(1);
    else if (spec.kind === 'bias') view.fill(0);
    else
      for (let i = 0; i < view.length; i++)
        view[i] = random.nextNormal() * config.initializerRange;
  }
  return weights;
}

/**
 * Copies named tensors (from a safetensors file) into a {@link FlatTensors}
 * for `config`. Throws `MISSING_WEIGHT` when a required tensor is absent and
 * `SHAPE_MISMATCH` when one has the wrong shape. Extra tensors are ignored
 * except an `lm_head.weight` for a tied model, which must equal the
 * embedding's shape.
 */
export function weightsFromTensors({
  config,
  tensors,
  source,
}: {
  config: ModelConfig;
  tensors: ReadonlyMap<string, NamedTensor>;
  source: string;
}): FlatTensors {
  const weights = new FlatTensors(listWeightSpecs(config));
  for (const spec of weights.specs) {
    const tensor = tensors.get(spec.name);
    if (tensor === undefined) {
      throw new SealError({
        code: 'MISSING_WEIGHT',
        message: `${source}: weight '${spec.name}' is missing`,
        details: { weight: spec.name, source },
      });
    }
    if (
      tensor.shape.length !== spec.shape.length ||
      tensor.shape.some((d, i) => d !== spec.shape[i])
    ) {
      throw new SealError({
        code: 'SHAPE_MISMATCH',
        message: `${source}: weight '${spec.name}' has shape [${tensor.shape.join(', ')}], expected [${spec.shape.join(', ')}]`,
        details: {
          weight: spec.name,
          shape: tensor.shape,
          expected: spec.shape,
        },
      });
    }
    weights.get(spec.name).set(tensor.data);
  }
  return weights;
}

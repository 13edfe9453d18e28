import { GraphBuilder } from '../graph/graph-builder';
import type { WeightSpec } from '../model/model-weights';
import type { ort } from './ort-session';

/** Tensors by weight name (weights, one Adam moment, or gradients). */
export type TensorSet = Record<string, ort.Tensor>;

/**
 * What stays on the device between runs when the engine keeps its state
 * resident: the weights, both Adam moments, and a set of zeros that is the
 * gradient accumulator of each step's first micro-batch (read only, so one
 * upload serves every step).
 */
export type ResidentState = {
  weights: TensorSet;
  m: TensorSet;
  v: TensorSet;
  zeros: TensorSet;
};

/** The groups of a {@link ResidentState}, in the order the copy graphs list them. */
export const residentGroups = ['weights', 'm', 'v', 'zeros'] as const;

/**
 * A graph of Identity nodes, `in.<group>.<weight>` → `out.<group>.<weight>`:
 * run with device-located outputs it uploads host tensors (Node cannot wrap
 * host memory as a GPU tensor; only ORT's outputs can be fed back), and with
 * host-located outputs it reads device tensors back (`Tensor.download()` is
 * not implemented in onnxruntime-node 1.30).
 */
export function buildCopyGraph({
  specs,
  groups,
}: {
  specs: readonly WeightSpec[];
  groups: readonly string[];
}): {
  model: Uint8Array;
  outputs: string[];
} {
  const g = new GraphBuilder({ floatType: 'float32' });
  const outputs: string[] = [];
  for (const group of groups) {
    for (const spec of specs) {
      const input = g.input({
        name: `in.${group}.${spec.name}`,
        shape: spec.shape,
      });
      const [copy] = g.node('Identity', [input], [input]);
      const name = `out.${group}.${spec.name}`;
      g.output(copy!, name);
      outputs.push(name);
    }
  }
  return { model: g.toOnnx({ name: 'copy' }), outputs };
}

/** Disposes every tensor of the sets (GPU memory is not seen by the JS garbage collector). */
export function disposeTensors(
  ...sets: ReadonlyArray<TensorSet | undefined>
): void {
  for (const set of sets) {
    if (set === undefined) continue;
    for (const tensor of Object.values(set)) tensor.dispose();
  }
}

/** The tensors of `output` named `<prefix><weight>`, keyed by weight name. */
export function pickTensors({
  output,
  prefix,
  specs,
}: {
  output: Record<string, ort.Tensor>;
  prefix: string;
  specs: readonly WeightSpec[];
}): TensorSet {
  const set: TensorSet = {};
  for (const spec of specs) set[spec.name] = output[`${prefix}${spec.name}`]!;
  return set;
}

/** `set` with every name prefixed, as the feeds of a graph. */
export function prefixTensors(set: TensorSet, prefix: string): TensorSet {
  const feeds: TensorSet = {};
  for (const [name, tensor] of Object.entries(set))
    feeds[`${prefix}${name}`] = tensor;
  return feeds;
}

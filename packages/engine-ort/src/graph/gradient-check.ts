import { SeededRandom } from '../io/seeded-random';
import {
  createOrtSession,
  floatTensor,
  ort,
  type SessionSettings,
} from '../engine/ort-session';
import { GraphBuilder, type Value } from './graph-builder';

/** A named fp64 graph input with its data. */
export type CheckInput = {
  /** Input name. */
  name: string;
  /** Shape. */
  shape: number[];
  /** Values (fp64 for float inputs, int64 as numbers otherwise). */
  data: Float64Array | BigInt64Array | Uint8Array;
  /** Whether the gradient with respect to this input is checked. */
  differentiable: boolean;
};

/** The outcome of a gradient check. */
export type GradientCheckResult = {
  /** Worst relative error over all checked elements. */
  worstRelativeError: number;
  /** Number of elements compared. */
  checked: number;
  /** Per input: worst relative error. */
  perInput: Record<string, number>;
};

const checkSettings: SessionSettings = {
  executionProvider: 'cpu',
  threads: 1,
  optimizationLevel: 'basic',
};

/**
 * Compares the analytic gradients of our autodiff with central finite
 * differences, in fp64 on the CPU execution provider. `build` maps the graph
 * inputs to a scalar loss. `elementsPerInput` random elements of each
 * differentiable input are perturbed by `±step`.
 */
export async function checkGradients({
  inputs,
  build,
  seed = 0,
  elementsPerInput = 6,
  step = 1e-6,
}: {
  inputs: CheckInput[];
  build: (builder: GraphBuilder, values: Map<string, Value>) => Value;
  seed?: number;
  elementsPerInput?: number;
  step?: number;
}): Promise<GradientCheckResult> {
  const feeds = new Map(inputs.map((input) => [input.name, input.data]));
  return checkGraphGradients({
    feeds,
    seed,
    elementsPerInput,
    step,
    build: (builder) => {
      const values = new Map<string, Value>();
      for (const input of inputs) {
        const dtype =
          input.data instanceof BigInt64Array
            ? 'int64'
            : input.data instanceof Uint8Array
              ? 'bool'
              : 'float64';
        values.set(
          input.name,
          builder.input({
            name: input.name,
            shape: input.shape,
            dtype,
            requiresGrad: input.differentiable,
          }),
        );
      }
      const loss = build(builder, values);
      return {
        loss,
        wrt: inputs
          .filter((input) => input.differentiable)
          .map((input) => values.get(input.name)!),
      };
    },
  });
}

/**
 * The general form of {@link checkGradients}: `build` declares its own inputs
 * (their data is looked up in `feeds` by name) and returns the loss and the
 * inputs to check.
 */
export async function checkGraphGradients({
  feeds,
  build,
  seed = 0,
  elementsPerInput = 6,
  step = 1e-6,
}: {
  feeds: Map<string, Float64Array | BigInt64Array | Uint8Array>;
  build: (builder: GraphBuilder) => { loss: Value; wrt: Value[] };
  seed?: number;
  elementsPerInput?: number;
  step?: number;
}): Promise<GradientCheckResult> {
  const builder = new GraphBuilder({ floatType: 'float64' });
  const { loss, wrt } = build(builder);
  builder.output(loss, 'loss');
  const grads = builder.gradients({ loss, wrt });
  grads.forEach((grad, i) => builder.output(grad, `grad.${wrt[i]!.name}`));
  const session = await createOrtSession({
    model: builder.toOnnx({ name: 'check' }),
    settings: checkSettings,
  });
  const tensorFeeds = (): Record<string, ort.Tensor> => {
    const out: Record<string, ort.Tensor> = {};
    for (const name of session.inputNames) {
      const data = feeds.get(name);
      if (data === undefined)
        throw new Error(`gradient check: no data for input ${name}`);
      const shape = inputShapes.get(name)!;
      if (data instanceof Float64Array) out[name] = floatTensor(data, shape);
      else if (data instanceof BigInt64Array)
        out[name] = new ort.Tensor('int64', data, shape);
      else out[name] = new ort.Tensor('bool', data, shape);
    }
    return out;
  };
  const inputShapes = builder.inputShapes();
  const analytic = await session.run(tensorFeeds());
  const lossOnly = async (): Promise<number> => {
    const out = await session.run(tensorFeeds(), ['loss']);
    return Number((out.loss!.data as Float64Array)[0]);
  };

  const random = new SeededRandom(seed);
  let worst = 0;
  let checked = 0;
  const perInput: Record<string, number> = {};
  for (const value of wrt) {
    const data = feeds.get(value.name) as Float64Array;
    const grad = analytic[`grad.${value.name}`]!.data as Float64Array;
    let worstHere = 0;
    const count = Math.min(elementsPerInput, data.length);
    for (let k = 0; k < count; k++) {
      const index = count === data.length ? k : random.nextInt(data.length);
      const original = data[index]!;
      data[index] = original + step;
      const plus = await lossOnly();
      data[index] = original - step;
      const minus = await lossOnly();
      data[index] = original;
      const numeric = (plus - minus) / (2 * step);
      const exact = grad[index]!;
      const error =
        Math.abs(numeric - exact) /
        Math.max(1e-6, Math.abs(numeric) + Math.abs(exact));
      worstHere = Math.max(worstHere, error);
      checked++;
    }
    perInput[value.name] = worstHere;
    worst = Math.max(worst, worstHere);
  }
  await session.release();
  return { worstRelativeError: worst, checked, perInput };
}

/** Random fp64 data from a seed. */
export function randomDoubles({
  shape,
  seed,
  scale = 1,
}: {
  shape: number[];
  seed: number;
  scale?: number;
}): Float64Array {
  const random = new SeededRandom(seed);
  const n = shape.reduce((a, b) => a * b, 1);
  return Float64Array.from({ length: n }, () => random.nextNormal() * scale);
}

import { describe, expect, it } from 'vitest';
import {
  createOrtSession,
  floatTensor,
  int64Tensor,
} from '../engine/ort-session';
import {
  checkGradients,
  randomDoubles,
  type CheckInput,
} from './gradient-check';
import { GraphBuilder, type Value } from './graph-builder';

const tolerance = 1e-6;

function float(
  name: string,
  shape: number[],
  seed: number,
  options: { scale?: number; offset?: number } = {},
): CheckInput {
  const data = randomDoubles({ shape, seed, scale: options.scale ?? 1 });
  if (options.offset !== undefined)
    for (let i = 0; i < data.length; i++) data[i] = data[i]! + options.offset;
  return { name, shape, data, differentiable: true };
}

function constant(input: CheckInput): CheckInput {
  return { ...input, differentiable: false };
}

/** Checks `op` through the loss `Σ op(inputs) · R` with a random R. */
async function checkOp({
  inputs,
  outputShape,
  op,
  positive,
  step,
}: {
  inputs: CheckInput[];
  outputShape: number[];
  op: (g: GraphBuilder, v: (name: string) => Value) => Value;
  positive?: string[];
  step?: number;
}): Promise<number> {
  for (const name of positive ?? []) {
    const input = inputs.find((candidate) => candidate.name === name)!;
    const data = input.data as Float64Array;
    for (let i = 0; i < data.length; i++) data[i] = Math.abs(data[i]!) + 0.5;
  }
  const all = [...inputs, constant(float('weights_of_loss', outputShape, 999))];
  const result = await checkGradients({
    inputs: all,
    ...(step === undefined ? {} : { step }),
    build: (g, values) => {
      const get = (name: string): Value => values.get(name)!;
      const y = op(g, get);
      expect(y.shape).toEqual(outputShape);
      const all = y.shape.map((_, i) => i);
      return g.reduceSum(g.mul(y, get('weights_of_loss')), all, false);
    },
  });
  return result.worstRelativeError;
}

describe('GraphBuilder gradients (fp64 finite differences)', () => {
  it('should differentiate broadcasting add, sub, mul and div', async () => {
    const inputs = [
      float('a', [3, 4], 1),
      float('b', [4], 2),
      float('c', [3, 1], 3),
    ];
    const error = await checkOp({
      inputs,
      outputShape: [3, 4],
      positive: ['c'],
      op: (g, v) =>
        g.div(g.mul(g.sub(g.add(v('a'), v('b')), v('c')), v('b')), v('c')),
    });
    expect(error).toBeLessThan(tolerance);
  });

  it('should differentiate neg, exp, log, sqrt, reciprocal and sigmoid', async () => {
    const error = await checkOp({
      inputs: [float('x', [2, 5], 4)],
      outputShape: [2, 5],
      positive: ['x'],
      op: (g, v) => {
        const x = v('x');
        return g.add(
          g.add(g.neg(g.exp(x)), g.log(x)),
          g.add(g.sqrt(x), g.add(g.reciprocal(x), g.sigmoid(x))),
        );
      },
    });
    expect(error).toBeLessThan(tolerance);
  });

  it('should differentiate where, minimum, maximum and clip away from their kinks', async () => {
    const error = await checkOp({
      inputs: [float('a', [4, 6], 5), float('b', [4, 6], 6)],
      outputShape: [4, 6],
      op: (g, v) => {
        const low = g.scalar(-0.5);
        const high = g.scalar(0.7);
        const picked = g.where(
          g.compare('Greater', v('a'), g.scalar(0)),
          v('a'),
          g.mul(v('b'), v('b')),
        );
        return g.add(
          g.add(g.minimum(v('a'), v('b')), g.maximum(v('a'), v('b'))),
          g.add(picked, g.clip(v('a'), low, high)),
        );
      },
    });
    expect(error).toBeLessThan(tolerance);
  });

  it('should differentiate reshape, transpose, slice, concat, split and expand', async () => {
    const error = await checkOp({
      inputs: [float('x', [2, 3, 4], 7), float('y', [2, 1, 4], 8)],
      outputShape: [4, 3, 4],
      op: (g, v) => {
        const t = g.transpose(v('x'), [2, 1, 0]);
        const r = g.reshape(t, [4, 3, 2]);
        const [left, right] = g.splitHalves(v('x'));
        const s = g.concat([g.slice(v('x'), 2, 1, 3), g.mul(left, right)], 2);
        const e = g.expand(v('y'), [2, 3, 4]);
        return g.add(
          g.concat(
            [g.add(s, e), g.reshape(g.transpose(r, [2, 1, 0]), [2, 3, 4])],
            0,
          ),
          g.scalar(0),
        );
      },
    });
    expect(error).toBeLessThan(tolerance);
  });

  it('should differentiate reduceSum, reduceMean and softmax', async () => {
    const error = await checkOp({
      inputs: [float('x', [3, 5], 9)],
      outputShape: [3, 5],
      op: (g, v) => {
        const x = v('x');
        const sum = g.reduceSum(x, [1], true);
        const mean = g.reduceMean(x, [0], false);
        return g.add(
          g.add(g.softmax(x), g.mul(sum, mean)),
          g.reduceMean(x, [0, 1], true),
        );
      },
    });
    expect(error).toBeLessThan(tolerance);
  });

  it('should differentiate batched matmul with broadcast batch axes', async () => {
    const error = await checkOp({
      inputs: [float('a', [2, 3, 4, 5], 10), float('b', [2, 1, 5, 3], 11)],
      outputShape: [2, 3, 4, 3],
      op: (g, v) => g.matmul(v('a'), v('b')),
    });
    expect(error).toBeLessThan(tolerance);
  });

  it('should differentiate linear (Gemm with transB) including the bias', async () => {
    const error = await checkOp({
      inputs: [
        float('x', [6, 4], 12),
        float('w', [3, 4], 13),
        float('b', [3], 14),
      ],
      outputShape: [6, 3],
      op: (g, v) => g.linear(v('x'), v('w'), v('b')),
    });
    expect(error).toBeLessThan(tolerance);
  });

  it('should differentiate gather (embedding) with repeated ids', async () => {
    const ids: CheckInput = {
      name: 'ids',
      shape: [2, 3],
      data: BigInt64Array.from([0n, 2n, 2n, 4n, 0n, 1n]),
      differentiable: false,
    };
    const error = await checkOp({
      inputs: [float('table', [5, 4], 15), ids],
      outputShape: [2, 3, 4],
      op: (g, v) => g.gather(v('table'), v('ids')),
    });
    expect(error).toBeLessThan(tolerance);
  });

  it('should add every repeated id into the embedding gradient exactly, on several threads', async () => {
    // Each id's gradient row must be its exact count. A scatter that adds
    // from several threads at once races on repeated ids and loses updates.
    const rows = 3;
    const width = 64;
    const count = 60_000;
    const g = new GraphBuilder({ floatType: 'float32' });
    const table = g.input({
      name: 'table',
      shape: [rows, width],
      requiresGrad: true,
    });
    const ids = g.input({ name: 'ids', shape: [count], dtype: 'int64' });
    const loss = g.reduceSum(g.gather(table, ids), [0, 1], false);
    g.output(g.gradients({ loss, wrt: [table] })[0]!, 'grad');
    const session = await createOrtSession({
      model: g.toOnnx({ name: 'scatter-race' }),
      settings: {
        executionProvider: 'cpu',
        threads: 4,
        optimizationLevel: 'all',
      },
    });
    const idValues = Array.from({ length: count }, (_, i) =>
      i % 7 === 0 ? 2 : i % 2,
    );
    const expected = [0, 1, 2].map(
      (id) => idValues.filter((v) => v === id).length,
    );
    for (let run = 0; run < 3; run++) {
      const output = await session.run({
        table: floatTensor(new Float32Array(rows * width), [rows, width]),
        ids: int64Tensor(idValues, [count]),
      });
      const grad = output.grad!.data as Float32Array;
      for (let row = 0; row < rows; row++) {
        for (let column = 0; column < width; column++)
          expect(grad[row * width + column]).toBe(expected[row]);
      }
    }
    await session.release();
  });

  it('should differentiate rmsNorm', async () => {
    const error = await checkOp({
      inputs: [float('x', [5, 8], 16), float('w', [8], 17, { offset: 1 })],
      outputShape: [5, 8],
      op: (g, v) => g.rmsNorm(v('x'), v('w'), 1e-5),
    });
    expect(error).toBeLessThan(tolerance);
  });

  it('should differentiate rope', async () => {
    const angles = randomDoubles({ shape: [2, 3, 1, 4], seed: 18 });
    const cos: CheckInput = {
      name: 'cos',
      shape: [2, 3, 1, 4],
      data: angles.map(Math.cos),
      differentiable: false,
    };
    const sin: CheckInput = {
      name: 'sin',
      shape: [2, 3, 1, 4],
      data: angles.map(Math.sin),
      differentiable: false,
    };
    const error = await checkOp({
      inputs: [float('x', [2, 3, 2, 8], 19), cos, sin],
      outputShape: [2, 3, 2, 8],
      op: (g, v) => g.rope(v('x'), v('cos'), v('sin')),
    });
    expect(error).toBeLessThan(tolerance);
  });

  it('should differentiate swiglu', async () => {
    const error = await checkOp({
      inputs: [float('gate', [4, 6], 20), float('up', [4, 6], 21)],
      outputShape: [4, 6],
      op: (g, v) => g.swiglu(v('gate'), v('up')),
    });
    expect(error).toBeLessThan(tolerance);
  });

  it('should differentiate grouped-query attention with a causal bias', async () => {
    const [b, kvh, rep, s, d] = [2, 2, 2, 5, 4];
    const bias = new Float64Array(b * s * s);
    for (let row = 0; row < b; row++)
      for (let i = 0; i < s; i++)
        for (let j = 0; j < s; j++)
          bias[(row * s + i) * s + j] = j > i ? -1e9 : 0;
    const error = await checkOp({
      inputs: [
        float('q', [b, kvh, rep * s, d], 22),
        float('kT', [b, kvh, d, s], 23),
        float('v', [b, kvh, s, d], 24),
        {
          name: 'bias',
          shape: [b, 1, 1, s, s],
          data: bias,
          differentiable: false,
        },
      ],
      outputShape: [b, kvh, rep * s, d],
      op: (g, v) => g.attention(v('q'), v('kT'), v('v'), v('bias'), rep),
    });
    expect(error).toBeLessThan(tolerance);
  });

  it('should differentiate chosenLogprob', async () => {
    const targets: CheckInput = {
      name: 'targets',
      shape: [4, 1],
      data: BigInt64Array.from([1n, 0n, 6n, 1n]),
      differentiable: false,
    };
    const error = await checkOp({
      inputs: [float('logits', [4, 7], 25, { scale: 3 }), targets],
      outputShape: [4],
      op: (g, v) => g.chosenLogprob(v('logits'), v('targets')),
    });
    expect(error).toBeLessThan(tolerance);
  });

  it('should differentiate cast between float types', async () => {
    const error = await checkOp({
      inputs: [float('x', [3], 26)],
      outputShape: [3],
      op: (g, v) =>
        g.cast(
          g.mul(g.cast(v('x'), 'float32'), g.scalar(2, 'float32')),
          'float64',
        ),
      // The loss is linear, so a large step is exact up to fp32 rounding of x.
      step: 0.25,
    });
    expect(error).toBeLessThan(1e-6);
  });
});

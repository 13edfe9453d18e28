import { SealError } from '@seal/spec';
import {
  onnxAttributeType,
  onnxDataType,
  onnxModelProtoType,
} from '../onnx/onnx-proto';

/**
 * Element types of graph values. `float16` and `bfloat16` appear only inside
 * graphs (the reduced-precision products of {@link MatmulPrecision}); no graph
 * takes or returns them, and no constant holds them.
 */
export type DataType =
  'float32' | 'float64' | 'float16' | 'bfloat16' | 'int32' | 'int64' | 'bool';

/** A typed, statically shaped value of a graph under construction. */
export type Value = {
  /** The ONNX value name. */
  readonly name: string;
  /** Element type. */
  readonly dtype: DataType;
  /** Static shape; `[]` is a scalar. */
  readonly shape: readonly number[];
};

/**
 * An ONNX attribute: integers are INT, integer arrays INTS, strings STRING,
 * `{ float }` FLOAT, `{ tensor }` TENSOR.
 */
export type AttributeValue =
  | number
  | readonly number[]
  | string
  | { readonly float: number }
  | { readonly tensor: ConstantData };

/** Constant data for an initializer or a TENSOR attribute. */
export type ConstantData = {
  /** Element type. */
  dtype: DataType;
  /** Shape. */
  shape: readonly number[];
  /** Values in row-major order. */
  values: ArrayLike<number>;
};

type NodeRecord = {
  opType: string;
  inputs: string[];
  outputs: string[];
  attributes: Record<string, AttributeValue>;
  domain: string;
};

type TapeEntry = {
  inputs: readonly Value[];
  outputs: readonly Value[];
  backward: (
    outputGradients: ReadonlyArray<Value | undefined>,
  ) => ReadonlyArray<Value | undefined>;
};

/** Gradient function of a recorded operation. */
export type BackwardFunction = TapeEntry['backward'];

/**
 * Reduced-precision matrix products (mixed precision): every `MatMul` and
 * `Gemm` the builder emits, forward and backward, takes its float32 operands
 * rounded to `dtype` and returns its product as float32; everything else
 * (weights, norms, softmax, the loss, gradient sums) stays float32.
 * - `native`: `Cast` the operands to `dtype`, run the product in `dtype`,
 *   `Cast` the product back (for EPs with such kernels: CUDA fp16/bf16,
 *   WebGPU fp16).
 * - `emulated`: round the operands and the product through `dtype` (a
 *   `Cast` there and back) around a float32 product: the numerics of
 *   `dtype` operands and output with float32 accumulation, on an EP without
 *   such kernels. ONNX Runtime's x64 CPU EP has no fp16 or bf16 MatMul: it
 *   rejects bf16, and it runs an fp16 MatMul in fp32 behind inserted casts
 *   and drops the rounding (measured, decision engine-008).
 */
export type MatmulPrecision = {
  /** Element type of the products' operands and result. */
  readonly dtype: 'float16' | 'bfloat16';
  /** How the products are emitted. */
  readonly mode: 'native' | 'emulated';
};

/**
 * Builds a static-shape ONNX graph and, on the side, a tape for reverse-mode
 * autodiff. Every differentiable operation records how to emit its
 * vector-Jacobian product; {@link GraphBuilder.gradients} walks the tape
 * backwards and emits the backward pass into the same graph.
 *
 * Operations are methods that mirror ONNX operators (`add(a, b)`,
 * `matmul(a, b)`), so model code reads like the maths; composite operations
 * (RMSNorm, RoPE, attention, SwiGLU, the chosen-token log-probability) carry
 * hand-written backward rules that avoid needless large temporaries.
 */
export class GraphBuilder {
  /** The floating type of activations and weights (float64 for gradient checks). */
  readonly floatType: 'float32' | 'float64';
  /** Reduced-precision products; undefined: products in `floatType`. */
  readonly matmulPrecision: MatmulPrecision | undefined;
  private readonly nodes: NodeRecord[] = [];
  private readonly graphInputs: Value[] = [];
  private readonly graphOutputs: Array<{ value: Value; name: string }> = [];
  private readonly initializers: Array<{ name: string; data: ConstantData }> =
    [];
  private readonly tape: TapeEntry[] = [];
  private readonly trainable = new Set<string>();
  private readonly constants = new Map<string, Value>();
  private readonly names = new Set<string>();
  /** Operands already rounded for a reduced-precision product, by value name (a weight is cast once per graph). */
  private readonly reducedOperands = new Map<string, Value>();
  private counter = 0;
  private tapeOff = 0;

  constructor({
    floatType,
    matmulPrecision,
  }: {
    floatType: 'float32' | 'float64';
    matmulPrecision?: MatmulPrecision | undefined;
  }) {
    if (matmulPrecision !== undefined && floatType !== 'float32') {
      throw internal(
        `reduced-precision products need float32 graphs, not ${floatType}`,
      );
    }
    this.floatType = floatType;
    this.matmulPrecision = matmulPrecision;
  }

  // ---------------------------------------------------------------- plumbing

  /** Declares a graph input. `requiresGrad` marks it as a differentiation variable. */
  input({
    name,
    shape,
    dtype,
    requiresGrad,
  }: {
    name: string;
    shape: readonly number[];
    dtype?: DataType;
    requiresGrad?: boolean;
  }): Value {
    if (this.names.has(name)) throw internal(`duplicate value name ${name}`);
    this.names.add(name);
    const value: Value = {
      name,
      dtype: dtype ?? this.floatType,
      shape: [...shape],
    };
    this.graphInputs.push(value);
    if (requiresGrad === true) this.trainable.add(name);
    return value;
  }

  /** Marks `value` as a graph output called `name`. */
  output(value: Value, name: string): void {
    const taken =
      this.graphInputs.some((input) => input.name === value.name) ||
      this.initializers.some(
        (initializer) => initializer.name === value.name,
      ) ||
      this.graphOutputs.some((output) => output.value.name === value.name);
    const source = taken ? this.node('Identity', [value], [value])[0]! : value;
    this.graphOutputs.push({ value: source, name });
  }

  /** Shapes of the declared graph inputs, by name. */
  inputShapes(): Map<string, number[]> {
    return new Map(
      this.graphInputs.map((value) => [value.name, [...value.shape]]),
    );
  }

  /** Whether gradients flow into `value`. */
  requiresGrad(value: Value): boolean {
    return this.trainable.has(value.name);
  }

  /** Number of nodes emitted so far. */
  get nodeCount(): number {
    return this.nodes.length;
  }

  private freshName(hint: string): string {
    let name: string;
    do name = `${hint}_${this.counter++}`;
    while (this.names.has(name));
    this.names.add(name);
    return name;
  }

  /**
   * Emits one ONNX node (never recorded on the tape) and returns its outputs,
   * typed as given.
   */
  node(
    opType: string,
    inputs: ReadonlyArray<Value | undefined>,
    outputs: ReadonlyArray<{ dtype: DataType; shape: readonly number[] }>,
    attributes: Record<string, AttributeValue> = {},
    domain = '',
  ): Value[] {
    const outputValues = outputs.map((spec) => ({
      name: this.freshName(opType.toLowerCase()),
      dtype: spec.dtype,
      shape: [...spec.shape],
    }));
    this.nodes.push({
      opType,
      inputs: inputs.map((input) => input?.name ?? ''),
      outputs: outputValues.map((value) => value.name),
      attributes,
      domain,
    });
    return outputValues;
  }

  private unary(
    opType: string,
    x: Value,
    attributes: Record<string, AttributeValue> = {},
  ): Value {
    return this.node(opType, [x], [x], attributes)[0]!;
  }

  /**
   * Records an operation on the tape when any input requires gradients; the
   * outputs then require gradients too.
   */
  record(
    inputs: readonly Value[],
    outputs: readonly Value[],
    backward: BackwardFunction,
  ): void {
    if (this.tapeOff > 0) return;
    if (!inputs.some((input) => this.trainable.has(input.name))) return;
    for (const output of outputs) this.trainable.add(output.name);
    this.tape.push({ inputs, outputs, backward });
  }

  /** Runs `body` without recording (for composite forwards and backward passes). */
  untaped<T>(body: () => T): T {
    this.tapeOff++;
    try {
      return body();
    } finally {
      this.tapeOff--;
    }
  }

  // ---------------------------------------------------------------- constants

  /** A constant tensor, deduplicated by content. */
  constant(data: ConstantData): Value {
    const key = `${data.dtype}|${data.shape.join(',')}|${Array.from(data.values).join(',')}`;
    const cached = key.length < 2000 ? this.constants.get(key) : undefined;
    if (cached !== undefined) return cached;
    const name = this.freshName('const');
    this.initializers.push({ name, data });
    const value: Value = { name, dtype: data.dtype, shape: [...data.shape] };
    if (key.length < 2000) this.constants.set(key, value);
    return value;
  }

  /** A scalar constant (float type by default). */
  scalar(x: number, dtype: DataType = this.floatType): Value {
    return this.constant({ dtype, shape: [], values: [x] });
  }

  /** A 1-D int64 constant (shapes, axes, pads). */
  int64s(values: readonly number[]): Value {
    return this.constant({ dtype: 'int64', shape: [values.length], values });
  }

  /** A zero tensor of the given shape, built at run time (no large initializer). */
  zeros(shape: readonly number[], dtype: DataType = this.floatType): Value {
    return this.node(
      'ConstantOfShape',
      [this.int64s(shape)],
      [{ dtype, shape }],
      {
        value: { tensor: { dtype, shape: [1], values: [0] } },
      },
    )[0]!;
  }

  // ---------------------------------------------------------------- elementwise

  /** Broadcasting addition. */
  add(a: Value, b: Value): Value {
    const y = this.node(
      'Add',
      [a, b],
      [{ dtype: a.dtype, shape: broadcastShapes(a.shape, b.shape) }],
    )[0]!;
    this.record([a, b], [y], ([g]) => [
      this.requiresGrad(a) ? this.unbroadcast(g!, a.shape) : undefined,
      this.requiresGrad(b) ? this.unbroadcast(g!, b.shape) : undefined,
    ]);
    return y;
  }

  /** Broadcasting subtraction. */
  sub(a: Value, b: Value): Value {
    const y = this.node(
      'Sub',
      [a, b],
      [{ dtype: a.dtype, shape: broadcastShapes(a.shape, b.shape) }],
    )[0]!;
    this.record([a, b], [y], ([g]) => [
      this.requiresGrad(a) ? this.unbroadcast(g!, a.shape) : undefined,
      this.requiresGrad(b)
        ? this.unbroadcast(this.neg(g!), b.shape)
        : undefined,
    ]);
    return y;
  }

  /** Broadcasting multiplication. */
  mul(a: Value, b: Value): Value {
    const y = this.node(
      'Mul',
      [a, b],
      [{ dtype: a.dtype, shape: broadcastShapes(a.shape, b.shape) }],
    )[0]!;
    this.record([a, b], [y], ([g]) => [
      this.requiresGrad(a)
        ? this.unbroadcast(this.mul(g!, b), a.shape)
        : undefined,
      this.requiresGrad(b)
        ? this.unbroadcast(this.mul(g!, a), b.shape)
        : undefined,
    ]);
    return y;
  }

  /** Broadcasting division. */
  div(a: Value, b: Value): Value {
    const y = this.node(
      'Div',
      [a, b],
      [{ dtype: a.dtype, shape: broadcastShapes(a.shape, b.shape) }],
    )[0]!;
    this.record([a, b], [y], ([g]) => [
      this.requiresGrad(a)
        ? this.unbroadcast(this.div(g!, b), a.shape)
        : undefined,
      this.requiresGrad(b)
        ? this.unbroadcast(this.neg(this.div(this.mul(g!, y), b)), b.shape)
        : undefined,
    ]);
    return y;
  }

  /** Negation. */
  neg(x: Value): Value {
    const y = this.unary('Neg', x);
    this.record([x], [y], ([g]) => [this.neg(g!)]);
    return y;
  }

  /** Elementwise exponential. */
  exp(x: Value): Value {
    const y = this.unary('Exp', x);
    this.record([x], [y], ([g]) => [this.mul(g!, y)]);
    return y;
  }

  /** Elementwise natural logarithm. */
  log(x: Value): Value {
    const y = this.unary('Log', x);
    this.record([x], [y], ([g]) => [this.div(g!, x)]);
    return y;
  }

  /** Elementwise square root. */
  sqrt(x: Value): Value {
    const y = this.unary('Sqrt', x);
    this.record([x], [y], ([g]) => [
      this.div(this.mul(g!, this.scalar(0.5, x.dtype)), y),
    ]);
    return y;
  }

  /** Elementwise reciprocal. */
  reciprocal(x: Value): Value {
    const y = this.unary('Reciprocal', x);
    this.record([x], [y], ([g]) => [this.neg(this.mul(g!, this.mul(y, y)))]);
    return y;
  }

  /** Elementwise logistic sigmoid. */
  sigmoid(x: Value): Value {
    const y = this.unary('Sigmoid', x);
    this.record([x], [y], ([g]) => [
      this.mul(this.mul(g!, y), this.sub(this.scalar(1, x.dtype), y)),
    ]);
    return y;
  }

  /** `cond ? a : b` with broadcasting; the condition is never differentiated. */
  where(condition: Value, a: Value, b: Value): Value {
    const shape = broadcastShapes(
      condition.shape,
      broadcastShapes(a.shape, b.shape),
    );
    const y = this.node(
      'Where',
      [condition, a, b],
      [{ dtype: a.dtype, shape }],
    )[0]!;
    this.record([a, b], [y], ([g]) => {
      const zero = this.scalar(0, a.dtype);
      return [
        this.requiresGrad(a)
          ? this.unbroadcast(this.where(condition, g!, zero), a.shape)
          : undefined,
        this.requiresGrad(b)
          ? this.unbroadcast(this.where(condition, zero, g!), b.shape)
          : undefined,
      ];
    });
    return y;
  }

  /** Elementwise minimum, as `Where(a <= b, a, b)` (ties send the gradient to `a`). */
  minimum(a: Value, b: Value): Value {
    return this.where(this.compare('LessOrEqual', a, b), a, b);
  }

  /** Elementwise maximum, as `Where(a >= b, a, b)` (ties send the gradient to `a`). */
  maximum(a: Value, b: Value): Value {
    return this.where(this.compare('GreaterOrEqual', a, b), a, b);
  }

  /** `Clip(x, low, high)` with constant bounds; the gradient passes where `low <= x <= high`. */
  clip(x: Value, low: Value, high: Value): Value {
    const y = this.node('Clip', [x, low, high], [x])[0]!;
    this.record([x], [y], ([g]) => {
      const inside = this.node(
        'And',
        [
          this.compare('GreaterOrEqual', x, low),
          this.compare('LessOrEqual', x, high),
        ],
        [{ dtype: 'bool', shape: x.shape }],
      )[0]!;
      return [this.where(inside, g!, this.scalar(0, x.dtype))];
    });
    return y;
  }

  /** A comparison (`Less`, `LessOrEqual`, `Greater`, `GreaterOrEqual`, `Equal`); bool output. */
  compare(
    opType: 'Less' | 'LessOrEqual' | 'Greater' | 'GreaterOrEqual' | 'Equal',
    a: Value,
    b: Value,
  ): Value {
    return this.node(
      opType,
      [a, b],
      [{ dtype: 'bool', shape: broadcastShapes(a.shape, b.shape) }],
    )[0]!;
  }

  /** Element type conversion (differentiable between float types). */
  cast(x: Value, dtype: DataType): Value {
    if (x.dtype === dtype) return x;
    const y = this.node('Cast', [x], [{ dtype, shape: x.shape }], {
      to: onnxDataType[dtype],
    })[0]!;
    if (isFloat(x.dtype) && isFloat(dtype))
      this.record([x], [y], ([g]) => [this.cast(g!, x.dtype)]);
    return y;
  }

  // ---------------------------------------------------------------- shape ops

  /** Reshape to a static shape. */
  reshape(x: Value, shape: readonly number[]): Value {
    if (sameShape(x.shape, shape)) return x;
    if (size(shape) !== size(x.shape)) {
      throw internal(`reshape [${x.shape.join(',')}] -> [${shape.join(',')}]`);
    }
    const y = this.node(
      'Reshape',
      [x, this.int64s(shape)],
      [{ dtype: x.dtype, shape }],
    )[0]!;
    this.record([x], [y], ([g]) => [this.reshape(g!, x.shape)]);
    return y;
  }

  /** Axis permutation. */
  transpose(x: Value, perm: readonly number[]): Value {
    const shape = perm.map((axis) => x.shape[axis]!);
    const y = this.node('Transpose', [x], [{ dtype: x.dtype, shape }], {
      perm,
    })[0]!;
    this.record([x], [y], ([g]) => {
      const inverse = new Array<number>(perm.length);
      perm.forEach((axis, i) => (inverse[axis] = i));
      return [this.transpose(g!, inverse)];
    });
    return y;
  }

  /** `x[..., start:end, ...]` along one axis. */
  slice(x: Value, axis: number, start: number, end: number): Value {
    const a = normaliseAxis(axis, x.shape.length);
    const shape = x.shape.map((d, i) => (i === a ? end - start : d));
    const y = this.node(
      'Slice',
      [x, this.int64s([start]), this.int64s([end]), this.int64s([a])],
      [{ dtype: x.dtype, shape }],
    )[0]!;
    this.record([x], [y], ([g]) => {
      const pads = new Array<number>(2 * x.shape.length).fill(0);
      pads[a] = start;
      pads[a + x.shape.length] = x.shape[a]! - end;
      return [this.node('Pad', [g!, this.int64s(pads)], [x])[0]!];
    });
    return y;
  }

  /** Concatenation along one axis. */
  concat(inputs: readonly Value[], axis: number): Value {
    const first = inputs[0]!;
    const a = normaliseAxis(axis, first.shape.length);
    const total = inputs.reduce((sum, input) => sum + input.shape[a]!, 0);
    const shape = first.shape.map((d, i) => (i === a ? total : d));
    const y = this.node('Concat', inputs, [{ dtype: first.dtype, shape }], {
      axis: a,
    })[0]!;
    this.record(inputs, [y], ([g]) => {
      let offset = 0;
      return inputs.map((input) => {
        const start = offset;
        offset += input.shape[a]!;
        return this.requiresGrad(input)
          ? this.slice(g!, a, start, offset)
          : undefined;
      });
    });
    return y;
  }

  /** Splits the last axis into two equal halves (one `Split` node). */
  splitHalves(x: Value): [Value, Value] {
    const last = x.shape.length - 1;
    const half = x.shape[last]! / 2;
    const shape = x.shape.map((d, i) => (i === last ? half : d));
    const [a, b] = this.node(
      'Split',
      [x],
      [
        { dtype: x.dtype, shape },
        { dtype: x.dtype, shape },
      ],
      { axis: last, num_outputs: 2 },
    );
    this.record([x], [a!, b!], ([ga, gb]) => [
      this.concat(
        [ga ?? this.zeros(shape, x.dtype), gb ?? this.zeros(shape, x.dtype)],
        last,
      ),
    ]);
    return [a!, b!];
  }

  /** Broadcast to a larger shape. */
  expand(x: Value, shape: readonly number[]): Value {
    if (sameShape(x.shape, shape)) return x;
    const y = this.node(
      'Expand',
      [x, this.int64s(shape)],
      [{ dtype: x.dtype, shape }],
    )[0]!;
    this.record([x], [y], ([g]) => [this.unbroadcast(g!, x.shape)]);
    return y;
  }

  // ---------------------------------------------------------------- reductions

  /** Sum over axes (`keepDims` default true). */
  reduceSum(x: Value, axes: readonly number[], keepDims = true): Value {
    return this.reduce('ReduceSum', x, axes, keepDims);
  }

  /** Mean over axes (`keepDims` default true). */
  reduceMean(x: Value, axes: readonly number[], keepDims = true): Value {
    return this.reduce('ReduceMean', x, axes, keepDims);
  }

  private reduce(
    opType: 'ReduceSum' | 'ReduceMean',
    x: Value,
    axes: readonly number[],
    keepDims: boolean,
  ): Value {
    const normalised = axes.map((axis) => normaliseAxis(axis, x.shape.length));
    const keptShape = x.shape.map((d, i) => (normalised.includes(i) ? 1 : d));
    const shape = keepDims
      ? keptShape
      : x.shape.filter((_, i) => !normalised.includes(i));
    const y = this.node(
      opType,
      [x, this.int64s(normalised)],
      [{ dtype: x.dtype, shape }],
      {
        keepdims: keepDims ? 1 : 0,
      },
    )[0]!;
    this.record([x], [y], ([g]) => {
      let grad = this.reshape(g!, keptShape);
      if (opType === 'ReduceMean') {
        const count = normalised.reduce((n, axis) => n * x.shape[axis]!, 1);
        grad = this.mul(grad, this.scalar(1 / count, x.dtype));
      }
      return [this.expand(grad, x.shape)];
    });
    return y;
  }

  /**
   * Sums `g` over the axes along which a value of `shape` was broadcast, and
   * reshapes the result to `shape`.
   */
  unbroadcast(g: Value, shape: readonly number[]): Value {
    if (sameShape(g.shape, shape)) return g;
    const lead = g.shape.length - shape.length;
    const axes: number[] = [];
    for (let i = 0; i < g.shape.length; i++) {
      if (i < lead) axes.push(i);
      else if (shape[i - lead] === 1 && g.shape[i] !== 1) axes.push(i);
    }
    const summed = axes.length > 0 ? this.reduceSum(g, axes, true) : g;
    return this.reshape(summed, shape);
  }

  /** Softmax over the last axis. */
  softmax(x: Value): Value {
    const y = this.node('Softmax', [x], [x], { axis: -1 })[0]!;
    this.record([x], [y], ([g]) => {
      const inner = this.reduceSum(this.mul(g!, y), [-1], true);
      return [this.mul(y, this.sub(g!, inner))];
    });
    return y;
  }

  // ---------------------------------------------------------------- linear algebra

  /** Batched matrix product with broadcasting of batch axes (rank >= 2 both). */
  matmul(a: Value, b: Value): Value {
    if (a.shape.length < 2 || b.shape.length < 2)
      throw internal('matmul needs rank >= 2');
    const batch = broadcastShapes(a.shape.slice(0, -2), b.shape.slice(0, -2));
    const shape = [...batch, a.shape.at(-2)!, b.shape.at(-1)!];
    const y = this.product('MatMul', a, b, shape);
    this.record([a, b], [y], ([g]) => [
      this.requiresGrad(a)
        ? this.unbroadcast(this.matmul(g!, this.swapLast(b)), a.shape)
        : undefined,
      this.requiresGrad(b)
        ? this.unbroadcast(this.matmul(this.swapLast(a), g!), b.shape)
        : undefined,
    ]);
    return y;
  }

  /**
   * One matrix product node (`MatMul`, or `Gemm` without bias), in reduced
   * precision under {@link MatmulPrecision}; never recorded. Without it, the
   * same single node as always.
   */
  private product(
    opType: 'MatMul' | 'Gemm',
    a: Value,
    b: Value,
    shape: readonly number[],
    attributes: Record<string, AttributeValue> = {},
  ): Value {
    const precision = this.matmulPrecision;
    if (precision === undefined)
      return this.node(
        opType,
        [a, b],
        [{ dtype: a.dtype, shape }],
        attributes,
      )[0]!;
    const native = precision.mode === 'native';
    const y = this.node(
      opType,
      [this.reducedOperand(a), this.reducedOperand(b)],
      [{ dtype: native ? precision.dtype : 'float32', shape }],
      attributes,
    )[0]!;
    return native
      ? this.convert(y, 'float32')
      : this.roundTrip(y, precision.dtype);
  }

  /** `x` as an operand of a reduced-precision product (cast, or rounded), once per value. */
  private reducedOperand(x: Value): Value {
    const precision = this.matmulPrecision!;
    let reduced = this.reducedOperands.get(x.name);
    if (reduced === undefined) {
      reduced =
        precision.mode === 'native'
          ? this.convert(x, precision.dtype)
          : this.roundTrip(x, precision.dtype);
      this.reducedOperands.set(x.name, reduced);
    }
    return reduced;
  }

  /** An untaped `Cast`. */
  private convert(x: Value, dtype: DataType): Value {
    return this.node('Cast', [x], [{ dtype, shape: x.shape }], {
      to: onnxDataType[dtype],
    })[0]!;
  }

  /** `x` rounded to `dtype` and back (two untaped casts): out-of-range values become ±inf for float16. */
  private roundTrip(x: Value, dtype: 'float16' | 'bfloat16'): Value {
    return this.convert(this.convert(x, dtype), x.dtype);
  }

  private swapLast(x: Value): Value {
    const perm = x.shape.map((_, i) => i);
    const n = perm.length;
    [perm[n - 2], perm[n - 1]] = [perm[n - 1]!, perm[n - 2]!];
    return this.transpose(x, perm);
  }

  /**
   * A linear layer on rows, `x · Wᵀ + bias`, with `x` `[T, K]` and `W`
   * `[N, K]` (PyTorch layout), as one `Gemm` with `transB`. Backward uses
   * `Gemm` with transpose flags: `dx = g · W`, `dW = gᵀ · x`, `db = Σ_rows g`.
   */
  linear(x: Value, weight: Value, bias?: Value): Value {
    const [t, k] = x.shape as [number, number];
    const [n, k2] = weight.shape as [number, number];
    if (x.shape.length !== 2 || k !== k2) {
      throw internal(
        `linear [${x.shape.join(',')}] x [${weight.shape.join(',')}]ᵀ`,
      );
    }
    const inputs = bias === undefined ? [x, weight] : [x, weight, bias];
    if (this.matmulPrecision === undefined) {
      const y = this.node(
        'Gemm',
        [x, weight, bias],
        [{ dtype: x.dtype, shape: [t, n] }],
        { transB: 1 },
      )[0]!;
      this.record(inputs, [y], ([g]) => [
        this.requiresGrad(x)
          ? this.node('Gemm', [g!, weight], [x])[0]!
          : undefined,
        this.requiresGrad(weight)
          ? this.node('Gemm', [g!, x], [weight], { transA: 1 })[0]!
          : undefined,
        bias !== undefined && this.requiresGrad(bias)
          ? this.reduceSum(g!, [0], false)
          : undefined,
      ]);
      return y;
    }
    // Reduced precision: the products in reduced precision, the bias added in float32.
    const product = this.product('Gemm', x, weight, [t, n], { transB: 1 });
    const y =
      bias === undefined
        ? product
        : this.node('Add', [product, bias], [product])[0]!;
    this.record(inputs, [y], ([g]) => [
      this.requiresGrad(x)
        ? this.product('Gemm', g!, weight, x.shape)
        : undefined,
      this.requiresGrad(weight)
        ? this.product('Gemm', g!, x, weight.shape, { transA: 1 })
        : undefined,
      bias !== undefined && this.requiresGrad(bias)
        ? this.reduceSum(g!, [0], false)
        : undefined,
    ]);
    return y;
  }

  // ---------------------------------------------------------------- indexing

  /** Embedding lookup: rows of `table` `[V, H]` at `ids` (int64, any shape). */
  gather(table: Value, ids: Value): Value {
    const shape = [...ids.shape, ...table.shape.slice(1)];
    const y = this.node(
      'Gather',
      [table, ids],
      [{ dtype: table.dtype, shape }],
      { axis: 0 },
    )[0]!;
    this.record([table], [y], ([g]) =>
      this.untaped(() => {
        const count = size(ids.shape);
        const width = size(table.shape.slice(1));
        const indices = this.expand(this.reshape(ids, [count, 1]), [
          count,
          width,
        ]);
        const updates = this.reshape(g!, [count, width]);
        const rows = this.scatterAddRows(
          this.zeros([table.shape[0]!, width], table.dtype),
          indices,
          updates,
        );
        return [this.reshape(rows, table.shape)];
      }),
    );
    return y;
  }

  /**
   * Adds `updates [N, W]` into rows `indices [N, W]` (each row one index,
   * repeated across W) of `data [R, W]`; never recorded. `ScatterElements`, not
   * `ScatterND`: ORT's CPU `ScatterND` applies `reduction='add'` from several
   * threads at once, so repeated indices (the same token twice) race: the sum
   * depends on timing and can lose an update. `ScatterElements` adds in order.
   */
  scatterAddRows(data: Value, indices: Value, updates: Value): Value {
    return this.node('ScatterElements', [data, indices, updates], [data], {
      axis: 0,
      reduction: 'add',
    })[0]!;
  }

  // ---------------------------------------------------------------- composites

  /**
   * RMSNorm over the last axis: `x / sqrt(mean(x²) + eps) · w`. Backward with
   * `r = 1/rms`, `x̂ = x·r`: `dx = r·(g·w − x̂·mean(g·w·x̂))`, `dw = Σ g·x̂`.
   */
  rmsNorm(x: Value, weight: Value, eps: number): Value {
    const { y, normalised, inverseRms } = this.untaped(() => {
      const meanSquare = this.reduceMean(this.mul(x, x), [-1], true);
      const inverseRms = this.reciprocal(
        this.sqrt(this.add(meanSquare, this.scalar(eps, x.dtype))),
      );
      const normalised = this.mul(x, inverseRms);
      return { y: this.mul(normalised, weight), normalised, inverseRms };
    });
    this.record([x, weight], [y], ([g]) => {
      const gw = this.mul(g!, weight);
      const dot = this.reduceMean(this.mul(gw, normalised), [-1], true);
      const dx = this.mul(inverseRms, this.sub(gw, this.mul(normalised, dot)));
      const leading = x.shape.slice(0, -1).map((_, i) => i);
      const dw = this.requiresGrad(weight)
        ? this.reduceSum(this.mul(g!, normalised), leading, false)
        : undefined;
      return [this.requiresGrad(x) ? dx : undefined, dw];
    });
    return y;
  }

  /**
   * Rotate-half rotary embedding on the last axis: with `x = [x1, x2]`,
   * `y = [x1·cos − x2·sin, x2·cos + x1·sin]`; `cos`/`sin` hold half the
   * head width and broadcast over heads. Backward is the inverse rotation:
   * `dx = [g1·cos + g2·sin, g2·cos − g1·sin]`.
   */
  rope(x: Value, cos: Value, sin: Value): Value {
    const rotate = (input: Value, sign: 1 | -1): Value =>
      this.untaped(() => {
        const [x1, x2] = this.splitHalves(input);
        const first =
          sign === 1
            ? this.sub(this.mul(x1, cos), this.mul(x2, sin))
            : this.add(this.mul(x1, cos), this.mul(x2, sin));
        const second =
          sign === 1
            ? this.add(this.mul(x2, cos), this.mul(x1, sin))
            : this.sub(this.mul(x2, cos), this.mul(x1, sin));
        return this.concat([first, second], -1);
      });
    const y = rotate(x, 1);
    this.record([x], [y], ([g]) => [rotate(g!, -1)]);
    return y;
  }

  /**
   * SwiGLU: `silu(gate) · up`. Backward: `dup = g·silu(gate)`,
   * `dgate = g·up·σ·(1 + gate·(1 − σ))`.
   */
  swiglu(gate: Value, up: Value): Value {
    const { y, sig, silu } = this.untaped(() => {
      const sig = this.sigmoid(gate);
      const silu = this.mul(gate, sig);
      return { y: this.mul(silu, up), sig, silu };
    });
    this.record([gate, up], [y], ([g]) => {
      const dup = this.requiresGrad(up) ? this.mul(g!, silu) : undefined;
      let dgate: Value | undefined;
      if (this.requiresGrad(gate)) {
        const one = this.scalar(1, gate.dtype);
        const inner = this.add(this.mul(gate, this.sub(one, sig)), one);
        dgate = this.mul(this.mul(this.mul(g!, up), sig), inner);
      }
      return [dgate, dup];
    });
    return y;
  }

  /**
   * Scaled-dot-product attention core for grouped-query attention, with the
   * `rep` query heads of each key/value head stacked along the row axis (so
   * K/V are never repeated and every product is one batched MatMul):
   * `q` `[B, kvh, rep·S, d]` (already scaled), `kT` `[B, kvh, d, T]`,
   * `v` `[B, kvh, T, d]`, additive `bias` broadcastable to
   * `[B, kvh, rep, S, T]`. Returns `[B, kvh, rep·S, d]`.
   *
   * Backward keeps only the probabilities P from the forward and uses
   * `rowsum(dP ∘ P) = rowsum(dO ∘ O)`, so it adds one S×T temporary less, and
   * it transposes only head-width tensors, never P.
   */
  attention(q: Value, kT: Value, v: Value, bias: Value, rep: number): Value {
    const [b, kvh, rows] = q.shape as [number, number, number, number];
    const keys = kT.shape[3]!;
    const s = rows / rep;
    const { out, probabilities } = this.untaped(() => {
      const scores = this.matmul(q, kT);
      const biased = this.add(
        this.reshape(scores, [b, kvh, rep, s, keys]),
        bias,
      );
      const probabilities = this.reshape(this.softmax(biased), [
        b,
        kvh,
        rows,
        keys,
      ]);
      return { out: this.matmul(probabilities, v), probabilities };
    });
    this.record([q, kT, v], [out], ([g]) =>
      this.untaped(() => {
        const vT = this.transpose(v, [0, 1, 3, 2]);
        const dP = this.matmul(g!, vT);
        const rowDot = this.reduceSum(this.mul(g!, out), [-1], true);
        const dScores = this.mul(probabilities, this.sub(dP, rowDot));
        const dq = this.requiresGrad(q)
          ? this.matmul(dScores, this.transpose(kT, [0, 1, 3, 2]))
          : undefined;
        const dkT = this.requiresGrad(kT)
          ? this.matmul(this.transpose(q, [0, 1, 3, 2]), dScores)
          : undefined;
        const dv = this.requiresGrad(v)
          ? this.transpose(
              this.matmul(this.transpose(g!, [0, 1, 3, 2]), probabilities),
              [0, 1, 3, 2],
            )
          : undefined;
        return [dq, dkT, dv];
      }),
    );
    return out;
  }

  /**
   * Log-probability of the chosen class per row: `logits[t, target[t]] −
   * logsumexp(logits[t])`, with `logits` `[T, V]` and `targets` `[T, 1]`
   * int64; returns `[T]`. The forward keeps `e = exp(logits − max)` and its
   * row sums; the backward is then one vocabulary-sized multiply,
   * `dlogits = e · (−g / Σe)`, plus `g` added at the targets with one
   * `ScatterElements`: no one-hot, no log-softmax gradient, no second `Exp`.
   */
  chosenLogprob(logits: Value, targets: Value): Value {
    const [t] = logits.shape as [number, number];
    const column = { dtype: logits.dtype, shape: [t, 1] };
    const axis = this.int64s([1]);
    const { y, exponentials, sums } = this.untaped(() => {
      const max = this.node('ReduceMax', [logits, axis], [column], {
        keepdims: 1,
      })[0]!;
      const exponentials = this.exp(this.sub(logits, max));
      const sums = this.reduceSum(exponentials, [1], true);
      const logSumExp = this.add(max, this.log(sums));
      const picked = this.node('GatherElements', [logits, targets], [column], {
        axis: 1,
      })[0]!;
      return {
        y: this.reshape(this.sub(picked, logSumExp), [t]),
        exponentials,
        sums,
      };
    });
    this.record([logits], [y], ([g]) =>
      this.untaped(() => {
        const gradColumn = this.reshape(g!, [t, 1]);
        const spread = this.mul(
          exponentials,
          this.neg(this.div(gradColumn, sums)),
        );
        return [
          this.node(
            'ScatterElements',
            [spread, targets, gradColumn],
            [logits],
            {
              axis: 1,
              reduction: 'add',
            },
          )[0]!,
        ];
      }),
    );
    return y;
  }

  // ---------------------------------------------------------------- autodiff

  /**
   * Emits the backward pass of `loss` (a scalar) and returns the gradient of
   * each of `wrt` (zeros when `loss` does not depend on it). `seed` replaces
   * the implicit `1` (its shape is `loss.shape`).
   */
  gradients({
    loss,
    wrt,
    seed,
  }: {
    loss: Value;
    wrt: readonly Value[];
    seed?: Value;
  }): Value[] {
    return this.untaped(() => {
      const grads = new Map<string, Value>();
      grads.set(
        loss.name,
        seed ?? this.expand(this.scalar(1, loss.dtype), loss.shape),
      );
      for (let i = this.tape.length - 1; i >= 0; i--) {
        const entry = this.tape[i]!;
        const outputGrads = entry.outputs.map((output) =>
          grads.get(output.name),
        );
        if (outputGrads.every((g) => g === undefined)) continue;
        const inputGrads = entry.backward(outputGrads);
        entry.inputs.forEach((input, j) => {
          const g = inputGrads[j];
          if (g === undefined || !this.trainable.has(input.name)) return;
          if (!sameShape(g.shape, input.shape)) {
            throw internal(
              `gradient shape [${g.shape.join(',')}] for [${input.shape.join(',')}]`,
            );
          }
          const previous = grads.get(input.name);
          grads.set(
            input.name,
            previous === undefined ? g : this.add(previous, g),
          );
        });
      }
      return wrt.map(
        (value) =>
          grads.get(value.name) ?? this.zeros(value.shape, value.dtype),
      );
    });
  }

  // ---------------------------------------------------------------- export

  /** Serialises the graph as an ONNX model (opset 21, IR version 10). */
  toOnnx({ name }: { name: string }): Uint8Array {
    const rename = new Map<string, string>();
    for (const { value, name: outputName } of this.graphOutputs)
      rename.set(value.name, outputName);
    const mapName = (n: string): string => rename.get(n) ?? n;
    const valueInfo = (value: Value, valueName: string) => ({
      name: valueName,
      type: {
        tensor_type: {
          elem_type: onnxDataType[value.dtype],
          shape: { dim: value.shape.map((d) => ({ dim_value: d })) },
        },
      },
    });
    const model = {
      ir_version: 10,
      producer_name: '@seal/engine-ort',
      opset_import: [
        { domain: '', version: 21 },
        // ONNX Runtime's contrib operators (GroupQueryAttention), when used.
        ...(this.nodes.some((node) => node.domain === 'com.microsoft')
          ? [{ domain: 'com.microsoft', version: 1 }]
          : []),
      ],
      graph: {
        name,
        node: this.nodes.map((node, i) => ({
          name: `n${i}`,
          op_type: node.opType,
          domain: node.domain,
          input: node.inputs.map(mapName),
          output: node.outputs.map(mapName),
          attribute: Object.entries(node.attributes).map(([key, value]) =>
            encodeAttribute(key, value),
          ),
        })),
        initializer: this.initializers.map(({ name: initName, data }) =>
          encodeTensor(initName, data),
        ),
        input: this.graphInputs.map((value) => valueInfo(value, value.name)),
        output: this.graphOutputs.map(({ value, name: outputName }) =>
          valueInfo(value, outputName),
        ),
      },
    };
    const type = onnxModelProtoType();
    return type.encode(type.fromObject(model)).finish();
  }
}

function encodeAttribute(
  name: string,
  value: AttributeValue,
): Record<string, unknown> {
  if (typeof value === 'number')
    return { name, type: onnxAttributeType.INT, i: value };
  if (typeof value === 'string') {
    return {
      name,
      type: onnxAttributeType.STRING,
      s: new TextEncoder().encode(value),
    };
  }
  if (isNumberArray(value))
    return { name, type: onnxAttributeType.INTS, ints: [...value] };
  if ('float' in value)
    return { name, type: onnxAttributeType.FLOAT, f: value.float };
  return {
    name,
    type: onnxAttributeType.TENSOR,
    t: encodeTensor('', value.tensor),
  };
}

function isNumberArray(value: AttributeValue): value is readonly number[] {
  return Array.isArray(value);
}

function encodeTensor(
  name: string,
  data: ConstantData,
): Record<string, unknown> {
  const n = size(data.shape);
  let bytes: Uint8Array;
  switch (data.dtype) {
    case 'float32':
      bytes = new Uint8Array(
        Float32Array.from({ length: n }, (_, i) => data.values[i]!).buffer,
      );
      break;
    case 'float64':
      bytes = new Uint8Array(
        Float64Array.from({ length: n }, (_, i) => data.values[i]!).buffer,
      );
      break;
    case 'int32':
      bytes = new Uint8Array(
        Int32Array.from({ length: n }, (_, i) => data.values[i]!).buffer,
      );
      break;
    case 'int64':
      bytes = new Uint8Array(
        BigInt64Array.from({ length: n }, (_, i) => BigInt(data.values[i]!))
          .buffer,
      );
      break;
    case 'bool':
      bytes = Uint8Array.from({ length: n }, (_, i) =>
        data.values[i] ? 1 : 0,
      );
      break;
    case 'float16':
    case 'bfloat16':
      throw internal(
        `no ${data.dtype} constants: reduced precision lives only between a Cast and a product`,
      );
  }
  return {
    name,
    dims: [...data.shape],
    data_type: onnxDataType[data.dtype],
    raw_data: bytes,
  };
}

/** Broadcast result shape of two shapes (numpy rules); throws on mismatch. */
export function broadcastShapes(
  a: readonly number[],
  b: readonly number[],
): number[] {
  const rank = Math.max(a.length, b.length);
  const out: number[] = [];
  for (let i = 0; i < rank; i++) {
    const da = a[a.length - rank + i] ?? 1;
    const db = b[b.length - rank + i] ?? 1;
    if (da !== db && da !== 1 && db !== 1) {
      throw internal(`cannot broadcast [${a.join(',')}] with [${b.join(',')}]`);
    }
    out.push(da === 1 ? db : da);
  }
  return out;
}

function sameShape(a: readonly number[], b: readonly number[]): boolean {
  return a.length === b.length && a.every((d, i) => d === b[i]);
}

function size(shape: readonly number[]): number {
  return shape.reduce((x, y) => x * y, 1);
}

function normaliseAxis(axis: number, rank: number): number {
  return axis < 0 ? axis + rank : axis;
}

function isFloat(dtype: DataType): boolean {
  return (
    dtype === 'float32' ||
    dtype === 'float64' ||
    dtype === 'float16' ||
    dtype === 'bfloat16'
  );
}

function internal(message: string): SealError {
  return new SealError({
    code: 'INTERNAL',
    message: `graph builder: ${message}`,
  });
}

import { SealError } from '@seal/spec';
import type {
  TinkerForwardBackwardInput,
  TinkerForwardBackwardOutput,
  TinkerSampleResponse,
  TinkerTensorData,
} from './tinker-wire';

/*
 * The Tinker API's protobuf messages (package `tinker_public`), written by
 * hand from their field numbers (PROTOCOL.md names the schema's source) with
 * a minimal wire codec: no generated code. SDK 0.25 sends `forward_backward`
 * as a `ForwardBackwardRequest` (`Content-Type: application/x-protobuf`,
 * forward-only passes with `forward_only` set) and retrieves the results of
 * forward, forward_backward and sample as `ForwardBackwardOutput` and
 * `SampleResponse` (`Accept: application/x-protobuf`). Arrays travel as
 * little-endian bytes: tokens int32, log-probabilities float32, tensors in
 * their dtype. Each function converts between the bytes and the JSON form of
 * the same message (`tinker-wire.ts`), so the rest of the package sees one
 * shape whatever the wire.
 */

/** The protobuf media type. */
export const tinkerProtobufContentType = 'application/x-protobuf';

const VARINT = 0;
const FIXED64 = 1;
const BYTES = 2;
const FIXED32 = 5;

/** `tinker_public.DType`. */
const dtypeCodes = {
  unspecified: 0,
  float32: 1,
  int64: 2,
  int32: 3,
  bfloat16: 4,
} as const;

/** `tinker_public.StopReason`. */
const stopReasonCodes = { stop: 0, length: 1 } as const;

function invalid(message: string): SealError {
  return new SealError({
    code: 'INVALID_DATA',
    message: `protobuf: ${message}`,
  });
}

/** Appends protobuf fields to a growing byte buffer. */
class ProtoWriter {
  private chunks: Uint8Array[] = [];
  private length = 0;

  private push(bytes: Uint8Array): void {
    this.chunks.push(bytes);
    this.length += bytes.length;
  }

  private varint(value: bigint | number): void {
    let rest = BigInt.asUintN(64, BigInt(value));
    const bytes: number[] = [];
    while (rest >= 0x80n) {
      bytes.push(Number(rest & 0x7fn) | 0x80);
      rest >>= 7n;
    }
    bytes.push(Number(rest));
    this.push(Uint8Array.from(bytes));
  }

  private tag(field: number, wireType: number): void {
    this.varint((field << 3) | wireType);
  }

  /** An integer field (int32, int64, uint32, enum, bool); 0 is left out, as proto3 does. */
  integer(field: number, value: number | bigint | boolean): void {
    const number = typeof value === 'boolean' ? (value ? 1 : 0) : value;
    if (number === 0 || number === 0n) return;
    this.tag(field, VARINT);
    this.varint(number);
  }

  /** A double field. */
  double(field: number, value: number): void {
    const bytes = new Uint8Array(8);
    new DataView(bytes.buffer).setFloat64(0, value, true);
    this.tag(field, FIXED64);
    this.push(bytes);
  }

  /** A bytes field; empty bytes are written only when `always` (a proto3 `optional`). */
  bytes(field: number, value: Uint8Array, always = false): void {
    if (value.length === 0 && !always) return;
    this.tag(field, BYTES);
    this.varint(value.length);
    this.push(value);
  }

  /** A string field; the empty string is left out. */
  string(field: number, value: string): void {
    this.bytes(field, new TextEncoder().encode(value));
  }

  /** An embedded message (written even when empty: it is present). */
  message(field: number, write: (writer: ProtoWriter) => void): void {
    const inner = new ProtoWriter();
    write(inner);
    this.bytes(field, inner.finish(), true);
  }

  /** A packed repeated integer field. */
  packed(field: number, values: readonly number[]): void {
    if (values.length === 0) return;
    const inner = new ProtoWriter();
    for (const value of values) inner.varint(value);
    this.bytes(field, inner.finish());
  }

  finish(): Uint8Array {
    const out = new Uint8Array(this.length);
    let at = 0;
    for (const chunk of this.chunks) {
      out.set(chunk, at);
      at += chunk.length;
    }
    return out;
  }
}

/** One decoded field: its number and its raw value. */
type ProtoField =
  | { field: number; wireType: 0; value: bigint }
  | { field: number; wireType: 1 | 5; value: Uint8Array }
  | { field: number; wireType: 2; value: Uint8Array };

/** The fields of one message, in order (unknown fields included; groups refused). */
function readFields(bytes: Uint8Array, where: string): ProtoField[] {
  const fields: ProtoField[] = [];
  let at = 0;
  const varint = (): bigint => {
    let result = 0n;
    for (let shift = 0n; ; shift += 7n) {
      if (at >= bytes.length) throw invalid(`${where}: truncated varint`);
      if (shift > 63n) throw invalid(`${where}: varint longer than 64 bits`);
      const byte = bytes[at++]!;
      result |= BigInt(byte & 0x7f) << shift;
      if ((byte & 0x80) === 0) return result;
    }
  };
  const take = (length: number): Uint8Array => {
    if (length < 0 || at + length > bytes.length)
      throw invalid(`${where}: field runs past the end of the message`);
    const slice = bytes.subarray(at, at + length);
    at += length;
    return slice;
  };
  while (at < bytes.length) {
    const key = varint();
    const field = Number(key >> 3n);
    const wireType = Number(key & 7n);
    if (field === 0) throw invalid(`${where}: field number 0`);
    switch (wireType) {
      case VARINT:
        fields.push({ field, wireType, value: varint() });
        break;
      case FIXED64:
        fields.push({ field, wireType, value: take(8) });
        break;
      case BYTES:
        fields.push({ field, wireType, value: take(Number(varint())) });
        break;
      case FIXED32:
        fields.push({ field, wireType, value: take(4) });
        break;
      default:
        throw invalid(`${where}: unsupported wire type ${wireType}`);
    }
  }
  return fields;
}

function bytesOf(field: ProtoField, where: string): Uint8Array {
  if (field.wireType !== BYTES)
    throw invalid(`${where}: expected a length-delimited field`);
  return field.value;
}

function integerOf(field: ProtoField, where: string): number {
  if (field.wireType !== VARINT) throw invalid(`${where}: expected a varint`);
  return Number(BigInt.asIntN(64, field.value));
}

function doubleOf(field: ProtoField, where: string): number {
  if (field.wireType !== FIXED64) throw invalid(`${where}: expected a double`);
  return new DataView(field.value.buffer, field.value.byteOffset, 8).getFloat64(
    0,
    true,
  );
}

function stringOf(field: ProtoField, where: string): string {
  return new TextDecoder('utf-8', { fatal: true }).decode(
    bytesOf(field, where),
  );
}

/** A packed (or, as parsers must accept, unpacked) repeated integer field. */
function integersOf(field: ProtoField, where: string): number[] {
  if (field.wireType === VARINT) return [integerOf(field, where)];
  return readPackedVarints(bytesOf(field, where), where);
}

function readPackedVarints(bytes: Uint8Array, where: string): number[] {
  const values: number[] = [];
  let at = 0;
  while (at < bytes.length) {
    let result = 0n;
    for (let shift = 0n; ; shift += 7n) {
      if (at >= bytes.length || shift > 63n)
        throw invalid(`${where}: bad packed varint`);
      const byte = bytes[at++]!;
      result |= BigInt(byte & 0x7f) << shift;
      if ((byte & 0x80) === 0) break;
    }
    values.push(Number(BigInt.asIntN(64, result)));
  }
  return values;
}

/** A `map<string, V>` entry: key (1) and value (2). */
function mapEntry(
  bytes: Uint8Array,
  where: string,
): { key: string; value: ProtoField | undefined } {
  let key = '';
  let value: ProtoField | undefined;
  for (const field of readFields(bytes, where)) {
    if (field.field === 1) key = stringOf(field, `${where}.key`);
    else if (field.field === 2) value = field;
  }
  return { key, value };
}

// Little-endian arrays. Copies keep the views aligned whatever the offset.

function int32Bytes(values: readonly number[]): Uint8Array {
  const bytes = new Uint8Array(values.length * 4);
  const view = new DataView(bytes.buffer);
  values.forEach((value, i) => view.setInt32(i * 4, value, true));
  return bytes;
}

function float32Bytes(values: readonly (number | null)[]): Uint8Array {
  const bytes = new Uint8Array(values.length * 4);
  const view = new DataView(bytes.buffer);
  values.forEach((value, i) =>
    view.setFloat32(i * 4, value ?? Number.NaN, true),
  );
  return bytes;
}

function int64Bytes(values: readonly number[]): Uint8Array {
  const bytes = new Uint8Array(values.length * 8);
  const view = new DataView(bytes.buffer);
  values.forEach((value, i) =>
    view.setBigInt64(i * 8, BigInt(Math.trunc(value)), true),
  );
  return bytes;
}

function readArray(
  bytes: Uint8Array,
  width: 2 | 4 | 8,
  read: (view: DataView, at: number) => number,
  where: string,
): number[] {
  if (bytes.length % width !== 0)
    throw invalid(
      `${where}: ${bytes.length} bytes is not a whole number of ${width}-byte values`,
    );
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.length);
  return Array.from({ length: bytes.length / width }, (_, i) =>
    read(view, i * width),
  );
}

const readInt32 = (view: DataView, at: number) => view.getInt32(at, true);
const readFloat32 = (view: DataView, at: number) => view.getFloat32(at, true);
const readInt64 = (view: DataView, at: number) =>
  Number(view.getBigInt64(at, true));
const readBfloat16 = (view: DataView, at: number) => {
  const widened = new DataView(new ArrayBuffer(4));
  widened.setUint32(0, view.getUint16(at, true) << 16, true);
  return widened.getFloat32(0, true);
};

/** The values of a `DType`-typed buffer, widened as the SDK widens them. */
function readTyped(
  bytes: Uint8Array,
  dtype: number,
  where: string,
): { values: number[]; dtype: 'float32' | 'int64'; width: number } {
  switch (dtype) {
    case dtypeCodes.float32:
      return {
        values: readArray(bytes, 4, readFloat32, where),
        dtype: 'float32',
        width: 4,
      };
    case dtypeCodes.int64:
      return {
        values: readArray(bytes, 8, readInt64, where),
        dtype: 'int64',
        width: 8,
      };
    case dtypeCodes.int32:
      return {
        values: readArray(bytes, 4, readInt32, where),
        dtype: 'int64',
        width: 4,
      };
    case dtypeCodes.bfloat16:
      return {
        values: readArray(bytes, 2, readBfloat16, where),
        dtype: 'float32',
        width: 2,
      };
    default:
      throw invalid(`${where}: unsupported dtype ${dtype}`);
  }
}

function tensorDtype(tensor: TinkerTensorData): 'float32' | 'int64' {
  return tensor.dtype ?? 'float32';
}

// ForwardBackwardRequest

/** A `forward_backward` body in JSON form, and whether it is forward-only. */
export type TinkerForwardBackwardProtoRequest = {
  model_id: string;
  seq_id?: number | null | undefined;
  forward_backward_input: TinkerForwardBackwardInput;
  /** Field 6: a forward pass without gradient (SDK 0.25's `forward`). */
  forward_only: boolean;
};

/**
 * Encodes a `ForwardBackwardRequest`: `model_id` (1), `seq_id` (2, 0 for
 * none), `data` (3: `Datum`s), `loss_fn` (4), `loss_fn_config` (5,
 * `map<string, double>`), `forward_only` (6). A `Datum` is `model_input`
 * (1, `Chunk`s: `encoded_text` (1) holding int32 `tokens`) and
 * `loss_fn_inputs` (2, `map<string, Tensor>`); a `Tensor` is `dense` bytes
 * (1) in its `dtype` (3), with its `shape` (4).
 */
export function encodeTinkerForwardBackwardRequest(
  request: TinkerForwardBackwardProtoRequest,
): Uint8Array {
  const writer = new ProtoWriter();
  writer.string(1, request.model_id);
  writer.integer(2, request.seq_id ?? 0);
  const input = request.forward_backward_input;
  for (const datum of input.data) {
    writer.message(3, (datumWriter) => {
      for (const chunk of datum.model_input.chunks) {
        if ((chunk.type ?? 'encoded_text') !== 'encoded_text' || !chunk.tokens)
          throw new SealError({
            code: 'INVALID_ARGUMENT',
            message: `protobuf: only encoded_text chunks are encoded (got '${chunk.type}')`,
          });
        const tokens = chunk.tokens;
        datumWriter.message(1, (chunkWriter) =>
          chunkWriter.message(1, (text) => text.bytes(1, int32Bytes(tokens))),
        );
      }
      for (const [name, tensor] of Object.entries(datum.loss_fn_inputs)) {
        datumWriter.message(2, (entry) => {
          entry.string(1, name);
          entry.message(2, (tensorWriter) => {
            const dtype = tensorDtype(tensor);
            const data =
              dtype === 'int64'
                ? int64Bytes(tensor.data)
                : float32Bytes(tensor.data);
            if (tensor.sparse_crow_indices || tensor.sparse_col_indices) {
              tensorWriter.message(2, (csr) => {
                csr.bytes(1, data);
                csr.bytes(2, int64Bytes(tensor.sparse_crow_indices ?? []));
                csr.bytes(3, int64Bytes(tensor.sparse_col_indices ?? []));
              });
            } else tensorWriter.bytes(1, data, true);
            tensorWriter.integer(3, dtypeCodes[dtype]);
            tensorWriter.packed(4, tensor.shape ?? [tensor.data.length]);
          });
        });
      }
    });
  }
  writer.string(4, input.loss_fn);
  for (const [key, value] of Object.entries(input.loss_fn_config ?? {})) {
    writer.message(5, (entry) => {
      entry.string(1, key);
      entry.double(2, value);
    });
  }
  writer.integer(6, request.forward_only);
  return writer.finish();
}

/**
 * Decodes a `ForwardBackwardRequest` into the JSON form the server parses
 * (image and audio chunks become chunks of their type, which the server
 * refuses by name; a sparse tensor keeps its CSR indices, refused the same
 * way). Malformed bytes are one `INVALID_DATA` error naming the field.
 */
export function decodeTinkerForwardBackwardRequest(
  bytes: Uint8Array,
): TinkerForwardBackwardProtoRequest {
  let modelId = '';
  let seqId = 0;
  let lossFn = '';
  let forwardOnly = false;
  const config: Record<string, number> = {};
  const data: TinkerForwardBackwardInput['data'] = [];
  for (const field of readFields(bytes, 'ForwardBackwardRequest')) {
    switch (field.field) {
      case 1:
        modelId = stringOf(field, 'model_id');
        break;
      case 2:
        seqId = integerOf(field, 'seq_id');
        break;
      case 3:
        data.push(decodeDatum(bytesOf(field, 'data'), `data.${data.length}`));
        break;
      case 4:
        lossFn = stringOf(field, 'loss_fn');
        break;
      case 5: {
        const { key, value } = mapEntry(
          bytesOf(field, 'loss_fn_config'),
          'loss_fn_config',
        );
        config[key] = value ? doubleOf(value, `loss_fn_config.${key}`) : 0;
        break;
      }
      case 6:
        forwardOnly = integerOf(field, 'forward_only') !== 0;
        break;
      default:
        break;
    }
  }
  return {
    model_id: modelId,
    seq_id: seqId === 0 ? null : seqId,
    forward_backward_input: {
      data,
      loss_fn: lossFn,
      ...(Object.keys(config).length > 0 ? { loss_fn_config: config } : {}),
    },
    forward_only: forwardOnly,
  };
}

function decodeDatum(
  bytes: Uint8Array,
  where: string,
): TinkerForwardBackwardInput['data'][number] {
  const chunks: { type: string; tokens?: number[] }[] = [];
  const inputs: Record<string, TinkerTensorData> = {};
  for (const field of readFields(bytes, where)) {
    if (field.field === 1) {
      const chunkWhere = `${where}.model_input.${chunks.length}`;
      const parts = readFields(bytesOf(field, chunkWhere), chunkWhere);
      const part = parts.at(-1);
      if (part?.field === 1) {
        const text = readFields(bytesOf(part, chunkWhere), chunkWhere);
        const tokens = text.find((inner) => inner.field === 1);
        chunks.push({
          type: 'encoded_text',
          tokens: tokens
            ? readArray(bytesOf(tokens, chunkWhere), 4, readInt32, chunkWhere)
            : [],
        });
      } else
        chunks.push({
          type: part?.field === 2 ? 'image' : part?.field === 3 ? 'dmel' : '',
        });
    } else if (field.field === 2) {
      const entryWhere = `${where}.loss_fn_inputs`;
      const { key, value } = mapEntry(bytesOf(field, entryWhere), entryWhere);
      inputs[key] = decodeTensor(
        value ? bytesOf(value, `${entryWhere}.${key}`) : new Uint8Array(),
        `${entryWhere}.${key}`,
      );
    }
  }
  return { model_input: { chunks }, loss_fn_inputs: inputs };
}

function decodeTensor(bytes: Uint8Array, where: string): TinkerTensorData {
  let dense: Uint8Array = new Uint8Array();
  let csr: Uint8Array | undefined;
  let dtype: number = dtypeCodes.unspecified;
  const shape: number[] = [];
  for (const field of readFields(bytes, where)) {
    if (field.field === 1) dense = bytesOf(field, where);
    else if (field.field === 2) csr = bytesOf(field, where);
    else if (field.field === 3) dtype = integerOf(field, `${where}.dtype`);
    else if (field.field === 4) shape.push(...integersOf(field, where));
  }
  if (dtype === dtypeCodes.unspecified)
    throw invalid(`${where}: tensor without a dtype`);
  if (csr !== undefined) {
    const parts = readFields(csr, `${where}.sparse_csr`);
    const get = (number: number): Uint8Array => {
      const part = parts.find((candidate) => candidate.field === number);
      return part ? bytesOf(part, `${where}.sparse_csr`) : new Uint8Array();
    };
    const values = readTyped(get(1), dtype, `${where}.sparse_csr.values`);
    return {
      data: values.values,
      dtype: values.dtype,
      shape,
      sparse_crow_indices: readArray(get(2), 8, readInt64, where),
      sparse_col_indices: readArray(get(3), 8, readInt64, where),
    };
  }
  const values = readTyped(dense, dtype, where);
  return { data: values.values, dtype: values.dtype, shape };
}

// ForwardBackwardOutput

/**
 * Encodes a `ForwardBackwardOutput`: `loss_fn_output_type` (1), one
 * `ArrayRecord` (2) whose `fields` (2, `map<string, BatchedTensor>`) hold
 * every datum's tensor of that name back to back, with int64 byte `offsets`
 * (n + 1 of them) and the `trailing_shape` after the leading dimension, and
 * `num_datums` (3); `metrics` (3, `map<string, double>`). Tensors of one
 * name must share dtype and trailing shape.
 */
export function encodeTinkerForwardBackwardOutput(
  output: TinkerForwardBackwardOutput,
): Uint8Array {
  const writer = new ProtoWriter();
  writer.string(1, output.loss_fn_output_type ?? 'ArrayRecord');
  const datums = output.loss_fn_outputs;
  if (datums.length > 0) {
    writer.message(2, (record) => {
      const names = [...new Set(datums.flatMap((datum) => Object.keys(datum)))];
      for (const name of names) {
        const tensors = datums.map((datum) => datum[name]);
        const dtypes = new Set(
          tensors.flatMap((tensor) => (tensor ? [tensorDtype(tensor)] : [])),
        );
        const trailing = new Set(
          tensors.flatMap((tensor) =>
            tensor ? [JSON.stringify((tensor.shape ?? []).slice(1))] : [],
          ),
        );
        if (dtypes.size > 1 || trailing.size > 1)
          throw new SealError({
            code: 'INVALID_ARGUMENT',
            message: `protobuf: loss output '${name}' differs in dtype or trailing shape between datums`,
          });
        const dtype = [...dtypes][0] ?? 'float32';
        const encode = dtype === 'int64' ? int64Bytes : float32Bytes;
        const parts = tensors.map((tensor) => encode(tensor?.data ?? []));
        const offsets = [0];
        for (const part of parts) offsets.push(offsets.at(-1)! + part.length);
        const data = new Uint8Array(offsets.at(-1)!);
        parts.forEach((part, i) => data.set(part, offsets[i]!));
        record.message(2, (entry) => {
          entry.string(1, name);
          entry.message(2, (batched) => {
            batched.bytes(1, data);
            batched.bytes(2, int64Bytes(offsets));
            batched.integer(3, dtypeCodes[dtype]);
            batched.packed(4, JSON.parse([...trailing][0] ?? '[]') as number[]);
          });
        });
      }
      record.integer(3, datums.length);
    });
  }
  for (const [key, value] of Object.entries(output.metrics ?? {})) {
    writer.message(3, (entry) => {
      entry.string(1, key);
      entry.double(2, value);
    });
  }
  return writer.finish();
}

/**
 * Decodes a `ForwardBackwardOutput` into its JSON form: per datum a map of
 * `TensorData` (bfloat16 widened to float32, int32 to int64, as the SDK
 * does), shapes `[leading, ...trailing]`; any number of `ArrayRecord`s.
 */
export function decodeTinkerForwardBackwardOutput(
  bytes: Uint8Array,
): TinkerForwardBackwardOutput {
  let type = '';
  const metrics: Record<string, number> = {};
  const outputs: Record<string, TinkerTensorData>[] = [];
  for (const field of readFields(bytes, 'ForwardBackwardOutput')) {
    if (field.field === 1) type = stringOf(field, 'loss_fn_output_type');
    else if (field.field === 3) {
      const { key, value } = mapEntry(bytesOf(field, 'metrics'), 'metrics');
      metrics[key] = value ? doubleOf(value, `metrics.${key}`) : 0;
    } else if (field.field === 2) {
      const where = `loss_fn_outputs.${outputs.length}`;
      const perName = new Map<string, TinkerTensorData[]>();
      let declared = 0;
      for (const part of readFields(bytesOf(field, where), where)) {
        if (part.field === 3) declared = integerOf(part, `${where}.num_datums`);
        if (part.field !== 2) continue;
        const { key, value } = mapEntry(bytesOf(part, where), where);
        perName.set(
          key,
          decodeBatched(
            value ? bytesOf(value, `${where}.${key}`) : new Uint8Array(),
            `${where}.${key}`,
          ),
        );
      }
      const count = Math.max(
        declared,
        ...[...perName.values()].map((list) => list.length),
      );
      for (let i = 0; i < count; i++) {
        const datum: Record<string, TinkerTensorData> = {};
        for (const [name, list] of perName) {
          const tensor = list[i];
          if (tensor) datum[name] = tensor;
        }
        outputs.push(datum);
      }
    }
  }
  return {
    loss_fn_output_type: type.split(':').at(-1) || 'ArrayRecord',
    loss_fn_outputs: outputs,
    metrics,
  };
}

function decodeBatched(bytes: Uint8Array, where: string): TinkerTensorData[] {
  let data: Uint8Array = new Uint8Array();
  let offsets: number[] = [];
  let dtype: number = dtypeCodes.unspecified;
  const trailing: number[] = [];
  for (const field of readFields(bytes, where)) {
    if (field.field === 1) data = bytesOf(field, where);
    else if (field.field === 2)
      offsets = readArray(bytesOf(field, where), 8, readInt64, where);
    else if (field.field === 3) dtype = integerOf(field, `${where}.dtype`);
    else if (field.field === 4) trailing.push(...integersOf(field, where));
  }
  const all = readTyped(data, dtype, where);
  const inner = trailing.reduce((a, b) => a * b, 1);
  const tensors: TinkerTensorData[] = [];
  for (let i = 0; i + 1 < offsets.length; i++) {
    const start = offsets[i]! / all.width;
    const end = offsets[i + 1]! / all.width;
    if (
      !Number.isInteger(start) ||
      !Number.isInteger(end) ||
      start > end ||
      end > all.values.length
    )
      throw invalid(`${where}: offsets do not slice the data`);
    const values = all.values.slice(start, end);
    tensors.push({
      data: values,
      dtype: all.dtype,
      shape: [inner === 0 ? 0 : values.length / inner, ...trailing],
    });
  }
  return tensors;
}

// SampleResponse

/**
 * Encodes a `SampleResponse`: `sequences` (1: `stop_reason` (1), int32
 * `tokens` (2), float32 `logprobs` (3, when known)), float32
 * `prompt_logprobs` (2, NaN where undefined), `prompt_cache_hit_tokens` (4).
 */
export function encodeTinkerSampleResponse(
  response: TinkerSampleResponse,
): Uint8Array {
  const writer = new ProtoWriter();
  for (const sequence of response.sequences) {
    writer.message(1, (inner) => {
      inner.integer(1, stopReasonCodes[sequence.stop_reason]);
      inner.bytes(2, int32Bytes(sequence.tokens));
      if (sequence.logprobs)
        inner.bytes(3, float32Bytes(sequence.logprobs), true);
    });
  }
  if (response.prompt_logprobs)
    writer.bytes(2, float32Bytes(response.prompt_logprobs), true);
  return writer.finish();
}

/** Decodes a `SampleResponse` into its JSON form (NaN prompt log-probabilities become null). */
export function decodeTinkerSampleResponse(
  bytes: Uint8Array,
): TinkerSampleResponse {
  const sequences: TinkerSampleResponse['sequences'] = [];
  let promptLogprobs: (number | null)[] | undefined;
  for (const field of readFields(bytes, 'SampleResponse')) {
    if (field.field === 1) {
      const where = `sequences.${sequences.length}`;
      let stop = 0;
      let tokens: number[] = [];
      let logprobs: number[] | undefined;
      for (const part of readFields(bytesOf(field, where), where)) {
        if (part.field === 1) stop = integerOf(part, `${where}.stop_reason`);
        else if (part.field === 2)
          tokens = readArray(bytesOf(part, where), 4, readInt32, where);
        else if (part.field === 3)
          logprobs = readArray(bytesOf(part, where), 4, readFloat32, where);
      }
      if (stop !== 0 && stop !== 1)
        throw invalid(`${where}.stop_reason: unknown value ${stop}`);
      sequences.push({
        stop_reason: stop === 1 ? 'length' : 'stop',
        tokens,
        ...(logprobs === undefined ? {} : { logprobs }),
      });
    } else if (field.field === 2) {
      promptLogprobs = readArray(
        bytesOf(field, 'prompt_logprobs'),
        4,
        readFloat32,
        'prompt_logprobs',
      ).map((value) => (Number.isNaN(value) ? null : value));
    }
  }
  return {
    sequences,
    ...(promptLogprobs === undefined
      ? {}
      : { prompt_logprobs: promptLogprobs }),
  };
}

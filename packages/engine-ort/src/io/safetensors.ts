import { SealError, parseJsonWithSchema } from '@seal/spec';
import * as z from 'zod';

/** A named fp32 tensor as read from or written to a safetensors file. */
export type NamedTensor = {
  /** Row-major dimensions. */
  shape: number[];
  /** The values (converted to fp32 on read when stored as F16, BF16 or F64). */
  data: Float32Array;
};

const headerEntrySchema = z.object({
  dtype: z.string(),
  shape: z.array(z.number().int().nonnegative()),
  data_offsets: z.tuple([
    z.number().int().nonnegative(),
    z.number().int().nonnegative(),
  ]),
});

const headerSchema = z.record(z.string(), z.unknown());

/** The contents of a safetensors file: tensors and the `__metadata__` strings. */
export type SafetensorsContents = {
  /** Tensors by name, in file order. */
  tensors: Map<string, NamedTensor>;
  /** The optional `__metadata__` string map. */
  metadata: Record<string, string>;
};

/**
 * Decodes a safetensors buffer (8-byte little-endian header length, a JSON
 * header, then raw little-endian data). F32 is read bit-exactly; F16, BF16
 * and F64 are converted to fp32.
 */
export function decodeSafetensors({
  bytes,
  source,
}: {
  bytes: Uint8Array;
  /** The file name, for error messages. */
  source: string;
}): SafetensorsContents {
  if (bytes.byteLength < 8) {
    throw new SealError({
      code: 'INVALID_DATA',
      message: `${source}: too short for safetensors`,
    });
  }
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const headerLength = Number(view.getBigUint64(0, true));
  if (8 + headerLength > bytes.byteLength) {
    throw new SealError({
      code: 'INVALID_DATA',
      message: `${source}: header length exceeds the file`,
    });
  }
  const headerText = new TextDecoder().decode(
    bytes.subarray(8, 8 + headerLength),
  );
  const header = parseJsonWithSchema({
    text: headerText,
    schema: headerSchema,
    source,
  });
  const dataStart = 8 + headerLength;
  const tensors = new Map<string, NamedTensor>();
  let metadata: Record<string, string> = {};
  for (const [name, raw] of Object.entries(header)) {
    if (name === '__metadata__') {
      metadata = z.record(z.string(), z.string()).parse(raw);
      continue;
    }
    const parsed = headerEntrySchema.safeParse(raw);
    if (!parsed.success) {
      throw new SealError({
        code: 'INVALID_DATA',
        message: `${source}: bad header entry for tensor '${name}'`,
        cause: parsed.error,
      });
    }
    const {
      dtype,
      shape,
      data_offsets: [begin, end],
    } = parsed.data;
    const count = shape.reduce((a, b) => a * b, 1);
    const width = dtypeWidth(dtype);
    if (width === undefined) {
      throw new SealError({
        code: 'INVALID_DATA',
        message: `${source}: tensor '${name}' has unsupported dtype ${dtype} (F32, F16, BF16, F64 are read)`,
      });
    }
    if (end - begin !== count * width || dataStart + end > bytes.byteLength) {
      throw new SealError({
        code: 'INVALID_DATA',
        message: `${source}: tensor '${name}' offsets do not match its shape`,
      });
    }
    const chunk = bytes.slice(dataStart + begin, dataStart + end);
    tensors.set(name, { shape, data: toFloat32({ dtype, chunk, count }) });
  }
  return { tensors, metadata };
}

/** Encodes fp32 tensors (and string metadata) as a safetensors buffer. */
export function encodeSafetensors({
  tensors,
  metadata,
}: {
  tensors:
    ReadonlyMap<string, NamedTensor> | ReadonlyArray<[string, NamedTensor]>;
  metadata?: Record<string, string>;
}): Uint8Array {
  const entries = [...tensors];
  const header: Record<string, unknown> = {};
  if (metadata !== undefined) header.__metadata__ = metadata;
  let offset = 0;
  for (const [name, tensor] of entries) {
    const length = tensor.data.length * 4;
    header[name] = {
      dtype: 'F32',
      shape: tensor.shape,
      data_offsets: [offset, offset + length],
    };
    offset += length;
  }
  let headerText = JSON.stringify(header);
  // Pad the header with spaces so the data starts 8-byte aligned.
  while ((8 + Buffer.byteLength(headerText)) % 8 !== 0) headerText += ' ';
  const headerBytes = new TextEncoder().encode(headerText);
  const out = new Uint8Array(8 + headerBytes.length + offset);
  new DataView(out.buffer).setBigUint64(0, BigInt(headerBytes.length), true);
  out.set(headerBytes, 8);
  let position = 8 + headerBytes.length;
  for (const [, tensor] of entries) {
    const bytes = new Uint8Array(
      tensor.data.buffer,
      tensor.data.byteOffset,
      tensor.data.byteLength,
    );
    out.set(bytes, position);
    position += bytes.byteLength;
  }
  return out;
}

function dtypeWidth(dtype: string): number | undefined {
  switch (dtype) {
    case 'F32':
      return 4;
    case 'F16':
    case 'BF16':
      return 2;
    case 'F64':
      return 8;
    default:
      return undefined;
  }
}

function toFloat32({
  dtype,
  chunk,
  count,
}: {
  dtype: string;
  chunk: Uint8Array;
  count: number;
}): Float32Array {
  const view = new DataView(chunk.buffer, chunk.byteOffset, chunk.byteLength);
  if (dtype === 'F32')
    return new Float32Array(chunk.buffer, chunk.byteOffset, count);
  const out = new Float32Array(count);
  for (let i = 0; i < count; i++) {
    if (dtype === 'F64') out[i] = view.getFloat64(i * 8, true);
    else if (dtype === 'BF16') {
      const scratch = new DataView(new ArrayBuffer(4));
      scratch.setUint32(0, view.getUint16(i * 2, true) << 16, true);
      out[i] = scratch.getFloat32(0, true);
    } else out[i] = halfToFloat(view.getUint16(i * 2, true));
  }
  return out;
}

function halfToFloat(h: number): number {
  const sign = h & 0x8000 ? -1 : 1;
  const exponent = (h >> 10) & 0x1f;
  const fraction = h & 0x3ff;
  if (exponent === 0) return sign * 2 ** -14 * (fraction / 1024);
  if (exponent === 31) return fraction === 0 ? sign * Infinity : NaN;
  return sign * 2 ** (exponent - 15) * (1 + fraction / 1024);
}

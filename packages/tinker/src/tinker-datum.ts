import { SealError } from '@seal/spec';
import type * as z from 'zod';
import type {
  TinkerDatum,
  TinkerTensorData,
  tinkerDatumSchema,
  tinkerModelInputSchema,
} from './tinker-wire';

/** A flat vector as `TensorData` (`shape: [n]`). */
export function tinkerTensor(
  values: readonly number[],
  dtype: 'int64' | 'float32',
): TinkerTensorData {
  return { data: [...values], dtype, shape: [values.length] };
}

/** A token sequence as a `ModelInput` of one `encoded_text` chunk. */
export function tinkerModelInput(tokens: readonly number[]) {
  return { chunks: [{ type: 'encoded_text', tokens: [...tokens] }] };
}

/**
 * A PolicyV1 sequence as a Tinker datum: the model reads `tokens[0..n-2]`
 * and predicts `target_tokens = tokens[1..n-1]`; each per-token array of
 * PolicyV1 (aligned with `tokens`, entry 0 unused) drops its entry 0 so that
 * it is aligned with the targets.
 */
export function toTinkerDatum({
  tokenIds,
  inputs,
}: {
  tokenIds: readonly number[];
  inputs: Readonly<Record<string, readonly number[]>>;
}): TinkerDatum {
  const lossInputs: Record<string, TinkerTensorData> = {
    target_tokens: tinkerTensor(tokenIds.slice(1), 'int64'),
  };
  for (const [name, values] of Object.entries(inputs))
    lossInputs[name] = tinkerTensor(values.slice(1), 'float32');
  return {
    model_input: tinkerModelInput(tokenIds.slice(0, -1)),
    loss_fn_inputs: lossInputs,
  };
}

/** The tokens of a `ModelInput`; only `encoded_text` chunks are supported. */
export function modelInputTokens(
  input: z.output<typeof tinkerModelInputSchema>,
  where: string,
): number[] {
  const tokens: number[] = [];
  for (const [index, chunk] of input.chunks.entries()) {
    if (chunk.type !== 'encoded_text' || !chunk.tokens) {
      throw new SealError({
        code: 'INVALID_ARGUMENT',
        message: `${where}.chunks.${index}: chunk type '${chunk.type}' is not supported; this server takes encoded_text chunks (token ids) only`,
        details: { where, type: chunk.type },
      });
    }
    tokens.push(...chunk.tokens);
  }
  return tokens;
}

/**
 * A received datum as a PolicyV1-style sequence: the full token sequence
 * (`model_input` followed by the last target) and every loss input aligned
 * with it (entry 0 is 0). Refuses targets that are not the input shifted by
 * one, per-token arrays of the wrong length and sparse tensors.
 */
export function fromTinkerDatum(
  datum: z.output<typeof tinkerDatumSchema>,
  where: string,
): { tokenIds: number[]; inputs: Record<string, number[]> } {
  const input = modelInputTokens(datum.model_input, `${where}.model_input`);
  const targetTensor = datum.loss_fn_inputs.target_tokens;
  if (targetTensor === undefined) {
    throw new SealError({
      code: 'INVALID_ARGUMENT',
      message: `${where}.loss_fn_inputs: target_tokens is required`,
      details: { where },
    });
  }
  const inputs: Record<string, number[]> = {};
  for (const [name, tensor] of Object.entries(datum.loss_fn_inputs)) {
    if (tensor.sparse_crow_indices || tensor.sparse_col_indices) {
      throw new SealError({
        code: 'INVALID_ARGUMENT',
        message: `${where}.loss_fn_inputs.${name}: sparse tensors are not supported; send a dense vector`,
        details: { where, name },
      });
    }
    if (tensor.data.length !== input.length) {
      throw new SealError({
        code: 'INVALID_ARGUMENT',
        message: `${where}.loss_fn_inputs.${name}: ${tensor.data.length} values for ${input.length} input tokens (one per target is needed)`,
        details: {
          where,
          name,
          length: tensor.data.length,
          tokens: input.length,
        },
      });
    }
    if (name !== 'target_tokens') inputs[name] = [0, ...tensor.data];
  }
  const targets = targetTensor.data;
  if (input.length === 0) {
    throw new SealError({
      code: 'INVALID_ARGUMENT',
      message: `${where}.model_input: at least one token is needed`,
      details: { where },
    });
  }
  for (let position = 0; position + 1 < input.length; position++) {
    if (targets[position] !== input[position + 1]) {
      throw new SealError({
        code: 'INVALID_ARGUMENT',
        message: `${where}.loss_fn_inputs.target_tokens[${position}] is ${targets[position]} but model_input[${position + 1}] is ${input[position + 1]}: this server trains next-token targets only (target_tokens = model_input shifted by one)`,
        details: { where, position },
      });
    }
  }
  const last = targets[targets.length - 1]!;
  if (!Number.isInteger(last) || last < 0) {
    throw new SealError({
      code: 'INVALID_ARGUMENT',
      message: `${where}.loss_fn_inputs.target_tokens: token ids are non-negative integers`,
      details: { where },
    });
  }
  return { tokenIds: [...input, last], inputs };
}

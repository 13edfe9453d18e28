import { SealError } from '@seal/spec';
import { describe, expect, it } from 'vitest';
import {
  decodeTinkerForwardBackwardOutput,
  decodeTinkerForwardBackwardRequest,
  decodeTinkerSampleResponse,
  encodeTinkerForwardBackwardOutput,
  encodeTinkerForwardBackwardRequest,
  encodeTinkerSampleResponse,
} from './tinker-protobuf';

const hex = (bytes: Uint8Array) => Buffer.from(bytes).toString('hex');
const ascii = (text: string) => Buffer.from(text, 'ascii').toString('hex');

const request = {
  model_id: 'm',
  seq_id: 2,
  forward_backward_input: {
    loss_fn: 'cross_entropy',
    data: [
      {
        model_input: { chunks: [{ type: 'encoded_text', tokens: [1, 2] }] },
        loss_fn_inputs: {
          weights: { data: [0.5], dtype: 'float32' as const, shape: [1] },
        },
      },
    ],
  },
  forward_only: true,
};

describe('encodeTinkerForwardBackwardRequest', () => {
  it('should write the fields of tinker_public.ForwardBackwardRequest', () => {
    // Worked by hand from the schema's field numbers and wire types.
    const text = '0a08' + '01000000' + '02000000'; // EncodedTextChunk.tokens, int32 LE
    const chunk = '0a0a' + text; // Chunk.encoded_text
    const tensor = '0a04' + '0000003f' + '1801' + '220101'; // dense 0.5f, FLOAT32, shape [1]
    const entry = '0a07' + ascii('weights') + '120b' + tensor;
    const datum = '0a0c' + chunk + '1216' + entry;
    expect(hex(encodeTinkerForwardBackwardRequest(request))).toBe(
      '0a01' +
        ascii('m') +
        '1002' +
        '1a26' +
        datum +
        '220d' +
        ascii('cross_entropy') +
        '3001',
    );
  });

  it('should decode what it encodes, loss config and int64 tensors included', () => {
    const full = {
      ...request,
      forward_only: false,
      forward_backward_input: {
        ...request.forward_backward_input,
        loss_fn: 'ppo',
        loss_fn_config: { clip_low_threshold: 0.8, clip_high_threshold: 1.2 },
        data: [
          {
            model_input: {
              chunks: [{ type: 'encoded_text', tokens: [7, 8, 9] }],
            },
            loss_fn_inputs: {
              target_tokens: {
                data: [8, 9, 2 ** 40],
                dtype: 'int64' as const,
                shape: [3],
              },
              advantages: {
                data: [0.25, -1.5, 2],
                dtype: 'float32' as const,
                shape: [3],
              },
            },
          },
        ],
      },
    };
    expect(
      decodeTinkerForwardBackwardRequest(
        encodeTinkerForwardBackwardRequest(full),
      ),
    ).toEqual(full);
  });

  it('should refuse truncated bytes with INVALID_DATA', () => {
    const bytes = encodeTinkerForwardBackwardRequest(request);
    let error: unknown;
    try {
      decodeTinkerForwardBackwardRequest(bytes.subarray(0, bytes.length - 9));
    } catch (thrown) {
      error = thrown;
    }
    expect(SealError.isInstance(error) && error.code).toBe('INVALID_DATA');
  });

  it('should skip fields it does not know', () => {
    // Field 15 (varint 1) and field 14 (bytes) before the model id.
    const bytes = Buffer.concat([
      Buffer.from('7801' + '7202abcd', 'hex'),
      Buffer.from(encodeTinkerForwardBackwardRequest(request)),
    ]);
    expect(decodeTinkerForwardBackwardRequest(bytes)).toEqual(request);
  });
});

describe('encodeTinkerForwardBackwardOutput', () => {
  it('should batch each output across datums and slice it back', () => {
    const output = {
      loss_fn_output_type: 'ArrayRecord',
      loss_fn_outputs: [
        {
          logprobs: {
            data: [-0.5, -1.25],
            dtype: 'float32' as const,
            shape: [2],
          },
          elementwise_loss: {
            data: [0.5, 1.25],
            dtype: 'float32' as const,
            shape: [2],
          },
        },
        {
          logprobs: { data: [-2], dtype: 'float32' as const, shape: [1] },
          elementwise_loss: {
            data: [2],
            dtype: 'float32' as const,
            shape: [1],
          },
        },
      ],
      metrics: { 'loss:sum': 3.75 },
    };
    expect(
      decodeTinkerForwardBackwardOutput(
        encodeTinkerForwardBackwardOutput(output),
      ),
    ).toEqual(output);
  });

  it('should round values to float32, as the wire carries them', () => {
    const decoded = decodeTinkerForwardBackwardOutput(
      encodeTinkerForwardBackwardOutput({
        loss_fn_outputs: [
          { logprobs: { data: [0.1], dtype: 'float32', shape: [1] } },
        ],
      }),
    );
    expect(decoded.loss_fn_outputs[0]!.logprobs!.data[0]).toBe(
      Math.fround(0.1),
    );
  });
});

describe('encodeTinkerSampleResponse', () => {
  it('should carry tokens, log-probabilities, stop reasons and undefined prompt log-probabilities', () => {
    const response = {
      sequences: [
        {
          stop_reason: 'stop' as const,
          tokens: [5, 6, 7],
          logprobs: [-1, -0.5, -0.25],
        },
        { stop_reason: 'length' as const, tokens: [9] },
      ],
      prompt_logprobs: [null, -2, -0.125],
    };
    expect(
      decodeTinkerSampleResponse(encodeTinkerSampleResponse(response)),
    ).toEqual(response);
  });
});

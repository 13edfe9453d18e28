import type {
  SequenceBucket,
  SharedPrefixBucket,
} from '../model/graph-families';
import type { ModelConfig } from '../model/model-config';
import { floatTensor, ort } from './ort-session';
import {
  buildSharedPrefixFeeds,
  buildSequenceFeeds,
  type SequenceFeeds,
} from './sequence-feeds';

/**
 * The tensors of a score or grad graph's rows; with `slots`
 * (`bucket.selected` of them), also `slots` and their targets only.
 */
export function sequenceFeedTensors({
  config,
  bucket,
  rows,
  slots,
}: {
  config: ModelConfig;
  bucket: SequenceBucket;
  rows: ReadonlyArray<readonly number[]>;
  slots?: Int32Array | undefined;
}): Record<string, ort.Tensor> {
  const feeds = buildSequenceFeeds({
    config,
    bucket,
    sequences: rows,
    floatType: 'float32',
  });
  const tensors = rowTensors(config, bucket, feeds, bucket.length);
  if (slots === undefined) return tensors;
  const targets = new BigInt64Array(slots.length);
  const indices = new BigInt64Array(slots.length);
  slots.forEach((slot, k) => {
    targets[k] = feeds.targets[slot]!;
    indices[k] = BigInt(slot);
  });
  return {
    ...tensors,
    targets: new ort.Tensor('int64', targets, [slots.length, 1]),
    slots: new ort.Tensor('int64', indices, [slots.length]),
  };
}

/** The tensors of a shared-prefix graph: the prefix's, then its continuations' rows. */
export function sharedPrefixFeedTensors({
  config,
  bucket,
  prefix,
  rows,
}: {
  config: ModelConfig;
  bucket: SharedPrefixBucket;
  prefix: readonly number[];
  rows: ReadonlyArray<readonly number[]>;
}): Record<string, ort.Tensor> {
  const feeds = buildSharedPrefixFeeds({
    config,
    bucket,
    prefix,
    rows,
    floatType: 'float32',
  });
  const slots = bucket.prefix;
  const half = config.headDim / 2;
  return {
    prefix_ids: new ort.Tensor('int64', feeds.prefixIds, [slots]),
    prefix_cos: floatTensor(feeds.prefixCos, [1, slots, 1, half]),
    prefix_sin: floatTensor(feeds.prefixSin, [1, slots, 1, half]),
    prefix_bias: floatTensor(feeds.prefixBias, [1, 1, 1, slots, slots]),
    ...rowTensors(config, bucket, feeds, slots + bucket.length),
  };
}

/** The rows' `input_ids`, `targets`, RoPE tables and bias (over `keys` key slots) as tensors. */
function rowTensors(
  config: ModelConfig,
  { batch, length }: SequenceBucket,
  feeds: SequenceFeeds,
  keys: number,
): Record<string, ort.Tensor> {
  const half = config.headDim / 2;
  return {
    input_ids: new ort.Tensor('int64', feeds.inputIds, [batch * length]),
    targets: new ort.Tensor('int64', feeds.targets, [batch * length, 1]),
    rope_cos: floatTensor(feeds.cos, [batch, length, 1, half]),
    rope_sin: floatTensor(feeds.sin, [batch, length, 1, half]),
    attention_bias: floatTensor(feeds.bias, [batch, 1, 1, length, keys]),
  };
}

/** The scalar `inverse_temperature` feed; exactly 1 at temperature 1, so scores are unchanged there. */
export function inverseTemperatureTensor(temperature: number): ort.Tensor {
  return floatTensor(Float32Array.of(1 / temperature), []);
}

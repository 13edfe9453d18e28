// The graph families the engine builds, one per file, all from the decoder
// in `../decoder-graph.ts` and with the weights as inputs.
export {
  scoredSlots,
  type BuiltGraph,
  type FloatType,
  type SequenceBucket,
  type SharedPrefixBucket,
  type TrainObjective,
} from './graph-types';
export {
  forwardLogprobs,
  sequenceInputs,
  type SequenceInputValues,
} from './sequence-forward';
export {
  lossInputValues,
  policyLoss,
  type LossInputValues,
  type LossParts,
} from './policy-loss';
export { buildLogitsGraph } from './logits-graph';
export { buildScoreGraph } from './score-graph';
export { buildGradGraph } from './grad-graph';
export { buildSharedPrefixScoreGraph } from './shared-prefix-score-graph';
export { buildSharedPrefixGradGraph } from './shared-prefix-grad-graph';
export { buildPrefillGraph } from './prefill-graph';
export {
  buildDecodeGraph,
  decodeAttentions,
  type DecodeAttention,
} from './decode-graph';
export { buildExtendGraph } from './extend-graph';
export { buildOptimizerGraph } from './optimizer-graph';

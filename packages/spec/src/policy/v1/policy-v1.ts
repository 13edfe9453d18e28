import type { PolicyV1Tokenizer } from './policy-v1-chat';
import type {
  PolicyV1GenerateOptions,
  PolicyV1GenerateResult,
} from './policy-v1-generate';
import type {
  PolicyV1ScoreOptions,
  PolicyV1ScoreResult,
} from './policy-v1-score';
import type {
  PolicyV1TrainOptions,
  PolicyV1TrainResult,
} from './policy-v1-train';

/**
 * A trainable (or inference-only) language-model policy: the one interface
 * the RL loop talks to. Implementations: the ONNX Runtime engine
 * (`@seal/engine-ort`), a remote OpenAI-compatible endpoint (inference only),
 * and test doubles.
 *
 * Calls may be issued concurrently; an implementation serialises them in call
 * order (a `train` issued after a `generate` sees the weights that
 * `generate` used, and the next `generate` sees the updated ones).
 */
export type PolicyV1 = {
  /** The contract version. */
  readonly specificationVersion: 'v1';
  /** A name for logs and run records (e.g. `ort:qwen2-2m`). */
  readonly policyId: string;
  /** Tokenization and chat templating; ids are the ones the other calls use. */
  readonly tokenizer: PolicyV1Tokenizer;
  /** Longest sequence (prompt plus generated tokens) the policy accepts. */
  readonly maxSequenceLength: number;
  /** Whether `train`, `save` and `load` are implemented (false for remote endpoints). */
  readonly trainable: boolean;
  /**
   * Continues a batch of prompts. Deterministic for a given seed, prompts and
   * weights. Each prompt is sampled as if it were alone (batching and padding
   * do not change the distribution, only rounding).
   */
  generate(
    options: PolicyV1GenerateOptions,
  ): PromiseLike<PolicyV1GenerateResult>;
  /** Per-token log-probabilities of given sequences, with the training graph's arithmetic. */
  score(options: PolicyV1ScoreOptions): PromiseLike<PolicyV1ScoreResult>;
  /**
   * One optimizer step on a batch (gradients accumulated over internal
   * micro-batches). A NaN or infinite loss or gradient norm refuses the step:
   * `skipped: true` and nothing changes. Throws `INVALID_STATE` when the policy
   * is not trainable.
   */
  train(options: PolicyV1TrainOptions): PromiseLike<PolicyV1TrainResult>;
  /**
   * Writes a checkpoint directory: `config.json` (Hugging Face), weights as
   * `model.safetensors`, the optimizer state and step as
   * `optimizer.safetensors`, and the tokenizer files (`tokenizer.json`,
   * `tokenizer_config.json`). Existing files are replaced atomically.
   */
  save(options: { directory: string }): PromiseLike<void>;
  /**
   * Replaces weights (and optimizer state, when the directory has one) from a
   * checkpoint written by `save` or a Hugging Face model directory of the same
   * architecture. Throws `SHAPE_MISMATCH` or `MISSING_WEIGHT` when it does not fit.
   */
  load(options: { directory: string }): PromiseLike<void>;
  /**
   * Drops what earlier calls left behind that changes later calls' rounding
   * (an engine's prefix cache), so that the next call computes exactly as in
   * a freshly loaded policy with the same weights. The training loop calls it
   * at the start of each step and of each evaluation, which makes a resumed
   * run replay the uninterrupted one bit for bit. Optional: a policy without
   * such state leaves it out.
   */
  resetCache?(): PromiseLike<void>;
  /** Frees sessions and worker threads. The policy is unusable afterwards. */
  close(): PromiseLike<void>;
};

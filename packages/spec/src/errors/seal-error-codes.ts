/**
 * The closed registry of SealError codes. Every error a `@seal/*` package
 * raises carries exactly one of these codes; callers branch on the code, never
 * on the message text. Add a code here (with its comment) before using it.
 */
export const sealErrorCodes = {
  /** Data read from disk or received over a wire failed schema validation. */
  INVALID_DATA: 'INVALID_DATA',
  /** A caller passed an argument that is out of range or inconsistent. */
  INVALID_ARGUMENT: 'INVALID_ARGUMENT',
  /** A file or directory that was named does not exist. */
  FILE_NOT_FOUND: 'FILE_NOT_FOUND',
  /** An id (task, episode, instance, checkpoint) is unknown. */
  NOT_FOUND: 'NOT_FOUND',
  /** Model output could not be parsed by the active tool-call protocol. */
  PARSE_ERROR: 'PARSE_ERROR',
  /** A contract object declared a specification version this code cannot use. */
  UNSUPPORTED_SPEC_VERSION: 'UNSUPPORTED_SPEC_VERSION',
  /** An operation is not valid in the object's current state (e.g. step after the end). */
  INVALID_STATE: 'INVALID_STATE',
  /** Evaluation was asked to run with a non-empty training-interface overlay. */
  EVAL_GATE_VIOLATION: 'EVAL_GATE_VIOLATION',
  /** A requested execution provider or backend is not available on this machine. */
  BACKEND_UNAVAILABLE: 'BACKEND_UNAVAILABLE',
  /** Tensor or batch shapes do not match what a graph or model expects. */
  SHAPE_MISMATCH: 'SHAPE_MISMATCH',
  /** A weight tensor that the model description requires is missing. */
  MISSING_WEIGHT: 'MISSING_WEIGHT',
  /** The tokenizer and the model disagree on the vocabulary. */
  VOCAB_MISMATCH: 'VOCAB_MISMATCH',
  /** A loss or gradient was NaN or infinite; the step was refused. */
  NON_FINITE: 'NON_FINITE',
  /** A remote endpoint failed in a way that may succeed when retried. */
  NETWORK_ERROR: 'NETWORK_ERROR',
  /** An operation took longer than its deadline. */
  TIMEOUT: 'TIMEOUT',
  /** A request or payload exceeded a configured size limit. */
  PAYLOAD_TOO_LARGE: 'PAYLOAD_TOO_LARGE',
  /**
   * A prompt plus the room asked for the reply does not fit a model's context
   * window; shorten the conversation or ask for fewer tokens. Evaluation ends
   * such an episode (`context-limit`) instead of failing the run.
   */
  CONTEXT_LENGTH_EXCEEDED: 'CONTEXT_LENGTH_EXCEEDED',
  /** A bug: an invariant of our own code does not hold. */
  INTERNAL: 'INTERNAL',
} as const;

/** A code from the closed {@link sealErrorCodes} registry. */
export type SealErrorCode = keyof typeof sealErrorCodes;

import type { SealErrorCode } from './seal-error-codes';

const marker = Symbol.for('seal.error');

/** Options for constructing a {@link SealError}. */
export type SealErrorOptions = {
  /** The error class, from the closed registry. */
  code: SealErrorCode;
  /** A sentence a user can act on. */
  message: string;
  /** The underlying error, if any. */
  cause?: unknown;
  /** Structured context (file, field, id, ...) for `--json` output. */
  details?: Record<string, unknown>;
  /** Whether retrying the same operation may succeed. Defaults to false. */
  isRetryable?: boolean;
};

/**
 * The one error base of SEAL. Check with `SealError.isInstance(error)`, which
 * survives duplicate installs of `@seal/spec`, instead of `instanceof`.
 */
export class SealError extends Error {
  private readonly [marker] = true;

  /** The error class, from the closed registry. */
  readonly code: SealErrorCode;
  /** Structured context for machine-readable output. */
  readonly details: Record<string, unknown>;
  /** Whether retrying the same operation may succeed. */
  readonly isRetryable: boolean;

  constructor({
    code,
    message,
    cause,
    details,
    isRetryable,
  }: SealErrorOptions) {
    super(message, cause === undefined ? undefined : { cause });
    this.name = 'SealError';
    this.code = code;
    this.details = details ?? {};
    this.isRetryable = isRetryable ?? false;
  }

  /** True for any SealError, including ones from another copy of this package. */
  static isInstance(error: unknown): error is SealError {
    return (
      typeof error === 'object' &&
      error !== null &&
      (error as Record<symbol, unknown>)[marker] === true
    );
  }

  /**
   * Wraps `cause` in a SealError with the given code and message, unless it is
   * already a SealError, which is returned unchanged (never wrapped twice).
   */
  static wrap({
    cause,
    code,
    message,
    details,
  }: {
    cause: unknown;
    code: SealErrorCode;
    message: string;
    details?: Record<string, unknown>;
  }): SealError {
    if (SealError.isInstance(cause)) return cause;
    return new SealError({ code, message, cause, details });
  }

  /** `{ code, message, details }`, the shape of `--json` error output. */
  toJSON(): {
    code: SealErrorCode;
    message: string;
    details: Record<string, unknown>;
  } {
    return { code: this.code, message: this.message, details: this.details };
  }
}

/** Normalises anything thrown into a SealError (unknown errors become INTERNAL). */
export function toSealError(error: unknown): SealError {
  if (SealError.isInstance(error)) return error;
  if (error instanceof Error) {
    return new SealError({
      code: 'INTERNAL',
      message: error.message,
      cause: error,
    });
  }
  return new SealError({
    code: 'INTERNAL',
    message: String(error),
    cause: error,
  });
}

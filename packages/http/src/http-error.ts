const marker = Symbol.for('seal.http-error');

/** Options of an {@link HttpError}. */
export type HttpErrorOptions = {
  /** The status to answer with (404, 405, 413, ...). */
  status: number;
  /** A sentence the client can act on. */
  message: string;
  /** Headers of the answer (`allow` for a 405, `retry-after` for a 503, ...). */
  headers?: Readonly<Record<string, string>>;
  /**
   * Close the connection once the answer is sent: a request body that is
   * still arriving (an oversized one) is not read any further.
   */
  closeConnection?: boolean;
};

/**
 * A request a server answers with an error status, thrown from a route and
 * caught by the server's handler, which renders the body in its own format.
 * Check with `HttpError.isInstance(error)`, which survives duplicate
 * installs of this package, instead of `instanceof`.
 */
export class HttpError extends Error {
  private readonly [marker] = true;

  /** The status to answer with. */
  readonly status: number;
  /** Headers of the answer. */
  readonly headers: Readonly<Record<string, string>>;
  /** Close the connection once the answer is sent. */
  readonly closeConnection: boolean;

  constructor({
    status,
    message,
    headers = {},
    closeConnection = false,
  }: HttpErrorOptions) {
    super(message);
    this.name = 'HttpError';
    this.status = status;
    this.headers = headers;
    this.closeConnection = closeConnection;
  }

  /** True for any HttpError, including ones from another copy of this package. */
  static isInstance(error: unknown): error is HttpError {
    return (
      typeof error === 'object' &&
      error !== null &&
      (error as Record<symbol, unknown>)[marker] === true
    );
  }
}

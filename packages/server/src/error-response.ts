import { randomBytes } from 'node:crypto';
import { toSealError, type SealErrorCode } from '@seal/spec';

/**
 * The HTTP status of a SealError code:
 * 400 for a missing or malformed field or an unsupported setting, 404 for an
 * unknown instance, task or endpoint, 405 for a wrong method (set by the
 * router), 409 for a step on a finished episode or an instance id in use, 413
 * for a body over the limit, 503 when the instance limit is reached, 500 for
 * anything else.
 */
export function statusForCode(code: SealErrorCode): number {
  switch (code) {
    case 'INVALID_ARGUMENT':
    case 'INVALID_DATA':
    case 'PARSE_ERROR':
    case 'UNSUPPORTED_SPEC_VERSION':
    case 'EVAL_GATE_VIOLATION':
    case 'CONTEXT_LENGTH_EXCEEDED':
      return 400;
    case 'NOT_FOUND':
    case 'FILE_NOT_FOUND':
      return 404;
    case 'INVALID_STATE':
      return 409;
    case 'PAYLOAD_TOO_LARGE':
      return 413;
    case 'BACKEND_UNAVAILABLE':
      return 503;
    case 'TIMEOUT':
      return 504;
    default:
      return 500;
  }
}

/**
 * An error response body: SEAL's envelope with `success: false` and `data:
 * null`, FastAPI's `detail` (the message, which SEAL's Python client
 * prints), and `error: {code, message, details}`.
 */
export type ErrorBody = {
  success: false;
  data: null;
  detail: string;
  error: {
    code: SealErrorCode;
    message: string;
    details: Record<string, unknown>;
  };
};

/**
 * Turns anything thrown into a status and body. Internal errors (status 500)
 * never carry a message or stack unless `exposeInternalErrors` is set: the
 * body names a reference that `onInternalError` receives with the error, so
 * the operator's log can show it.
 */
export function errorResponse({
  error,
  exposeInternalErrors = false,
  onInternalError,
}: {
  error: unknown;
  exposeInternalErrors?: boolean;
  onInternalError?: (info: { error: unknown; reference: string }) => void;
}): { status: number; body: ErrorBody } {
  const sealError = toSealError(error);
  const status = statusForCode(sealError.code);
  if (status === 500) {
    const reference = randomBytes(4).toString('hex');
    onInternalError?.({ error, reference });
    const message = exposeInternalErrors
      ? sealError.message
      : `internal error (reference ${reference}); the server log has the details`;
    const details: Record<string, unknown> = { reference };
    if (exposeInternalErrors && error instanceof Error && error.stack)
      details['stack'] = error.stack;
    return {
      status,
      body: {
        success: false,
        data: null,
        detail: message,
        error: { code: 'INTERNAL', message, details },
      },
    };
  }
  return {
    status,
    body: {
      success: false,
      data: null,
      detail: sealError.message,
      error: {
        code: sealError.code,
        message: sealError.message,
        details: sealError.details,
      },
    },
  };
}

import type { SealErrorCode } from '@seal/spec';

/**
 * Exit codes by error class. 1 means "ran fine, but the check it performs
 * failed" (mismatches, disagreements); errors map by their SealError code.
 */
export const exitCodes = {
  success: 0,
  checkFailed: 1,
  usage: 2,
  data: 3,
  backend: 4,
  network: 5,
  interrupted: 130,
  internal: 70,
} as const;

/** The exit code for a SealError code. */
export function exitCodeFor(code: SealErrorCode): number {
  switch (code) {
    case 'INVALID_ARGUMENT':
    case 'UNSUPPORTED_SPEC_VERSION':
    case 'CONTEXT_LENGTH_EXCEEDED':
      return exitCodes.usage;
    case 'INVALID_DATA':
    case 'FILE_NOT_FOUND':
    case 'NOT_FOUND':
    case 'VOCAB_MISMATCH':
    case 'MISSING_WEIGHT':
    case 'SHAPE_MISMATCH':
    case 'PAYLOAD_TOO_LARGE':
      return exitCodes.data;
    case 'BACKEND_UNAVAILABLE':
      return exitCodes.backend;
    case 'NETWORK_ERROR':
    case 'TIMEOUT':
      return exitCodes.network;
    default:
      return exitCodes.internal;
  }
}

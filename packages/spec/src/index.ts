export { sealErrorCodes, type SealErrorCode } from './errors/seal-error-codes';
export { SealError, toSealError, type SealErrorOptions } from './errors/seal-error';
export * from './policy';

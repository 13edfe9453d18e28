export {
  SealEnvClient,
  SealEnvClientError,
  type SealRawResponse,
} from './seal-env-client';

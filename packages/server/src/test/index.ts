export {
  SealEnvClient,
  SealEnvClientError,
  type SealCreateData,
  type SealEvaluateData,
  type SealRawResponse,
  type SealRequestBody,
  type SealStepData,
  type SealWireMessage,
} from './seal-env-client';

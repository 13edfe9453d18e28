export {
  envServiceRequestSchema,
  envServiceStepMessageSchema,
  envServiceStepParamsSchema,
  type EnvServiceRequest,
  type EnvServiceRequestInput,
  type EnvServiceStepMessage,
  type EnvServiceStepParams,
} from './env-service-request';
export {
  envServiceCreateDataSchema,
  envServiceDiagnoseDataSchema,
  envServiceEvaluationSchema,
  envServiceMessageSchema,
  envServiceResponseSchema,
  envServiceStepDataSchema,
  type EnvServiceCreateData,
  type EnvServiceDiagnoseData,
  type EnvServiceEvaluation,
  type EnvServiceMessage,
  type EnvServiceResponse,
  type EnvServiceStepData,
} from './env-service-response';

export { MockToolBackendV1 } from './mock-tool-backend-v1';

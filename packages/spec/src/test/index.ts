export { MockToolBackendV1 } from './mock-tool-backend-v1';
export {
  fixturesRequired,
  requireFixturesVariable,
  sharedDir,
  sharedFixture,
  type SharedFixture,
} from './shared-fixture';

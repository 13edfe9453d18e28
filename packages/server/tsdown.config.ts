import { createPackageConfig } from '../../tsdown.config.ts';

// The worker is its own entry: `createEnvWorkerPool` starts it by URL
// (`./env-service-worker.js` next to the bundled code).
export default createPackageConfig({
  entry: ['src/index.ts', 'src/test/index.ts', 'src/env-service-worker.ts'],
});

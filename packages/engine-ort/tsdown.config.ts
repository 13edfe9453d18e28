import { createPackageConfig } from '../../tsdown.config.ts';

// The worker is its own entry: `createOrtPolicy` starts it by URL
// (`./policy-worker.js` next to the bundled code).
export default createPackageConfig({
  entry: ['src/index.ts', 'src/test/index.ts', 'src/policy-worker.ts'],
});

import { createPackageConfig } from '../../tsdown.config.ts';

export default createPackageConfig({
  entry: ['src/index.ts', 'src/test/index.ts'],
});

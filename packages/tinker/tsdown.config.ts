import { createPackageConfig } from '../../tsdown.config.ts';

export default createPackageConfig();

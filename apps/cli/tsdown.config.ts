import { createPackageConfig } from '../../tsdown.config.ts';

// `seal serve`'s worker threads import the settings module by URL
// (`./serve-settings.js` next to the bundled code).
export default createPackageConfig({
  entry: ['src/index.ts', 'src/bin.ts', 'src/commands/serve-settings.ts'],
});

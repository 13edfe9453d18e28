// Bundles the GPU checks, `bench engine` and the `seal` CLI (with the policy
// worker it starts beside it) into single ES modules for the payload of
// run-gpu-bench.sh (sources read with the @seal/source
// condition; onnxruntime-node stays external: it is a native package).
// esbuild comes with tsx, which the workspace already installs.
import { createRequire } from 'node:module';
import process from 'node:process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const [outdir = join(root, '.device', 'payload', 'app')] =
  process.argv.slice(2);
const require = createRequire(import.meta.url);
const tsxDirectory = dirname(
  require.resolve('tsx/package.json', { paths: [root] }),
);
const esbuild = require(require.resolve('esbuild', { paths: [tsxDirectory] }));

await esbuild.build({
  entryPoints: {
    'gpu-check': join(root, 'scripts', 'device', 'gpu-check.ts'),
    'bench-engine': join(root, 'bench', 'engine.ts'),
    'webgpu-ceiling': join(root, 'scripts', 'device', 'webgpu-ceiling.ts'),
    'compare-summary': join(root, 'scripts', 'device', 'compare-summary.ts'),
    'payload-parts': join(root, 'scripts', 'device', 'payload-parts.ts'),
    seal: join(root, 'apps', 'cli', 'src', 'bin.ts'),
    // create-ort-policy starts ./policy-worker.mjs beside the bundle.
    'policy-worker': join(
      root,
      'packages',
      'engine-ort',
      'src',
      'policy-worker.ts',
    ),
  },
  outdir,
  outExtension: { '.js': '.mjs' },
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  conditions: ['@seal/source'],
  external: ['onnxruntime-node'],
  minify: true,
  legalComments: 'none',
  // Bundled CommonJS dependencies may call require().
  banner: {
    js: "import { createRequire as __sealCreateRequire } from 'node:module'; const require = __sealCreateRequire(import.meta.url);",
  },
  logLevel: 'warning',
});

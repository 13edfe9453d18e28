// `pnpm check:packages`: checks what each public package would publish. It
// builds nothing (run `pnpm build` first). For every workspace package that is
// not private it packs the tarball pnpm would publish, then runs
//   - publint (strict, every level) on the unpacked tarball;
//   - are-the-types-wrong on the tarball, with the esm-only profile (every
//     @seal package is ESM only, so CommonJS resolution is out of scope);
//   - our manifest rules: no `workspace:` or `catalog:` range survives packing;
//     a package whose published types import zod takes it as a peer, never as
//     a dependency (two copies of zod break schema identity); and a package
//     passes on the peers of the workspace packages it depends on.
// Prints every problem and exits 1 if there is any.
import { execFileSync, spawnSync } from 'node:child_process';
import {
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  rmSync,
  existsSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import process from 'node:process';
import { URL, fileURLToPath } from 'node:url';
import { publint } from 'publint';
import { formatMessage } from 'publint/utils';

const root = fileURLToPath(new URL('..', import.meta.url));
const attw = join(root, 'node_modules', '.bin', 'attw');

/** Workspace packages as pnpm lists them (the root excluded). */
function workspacePackages() {
  const listed = JSON.parse(
    execFileSync('pnpm', ['ls', '--recursive', '--depth', '-1', '--json'], {
      cwd: root,
      encoding: 'utf8',
    }),
  );
  return listed
    .filter((entry) => entry.path !== root.replace(/\/$/, ''))
    .map((entry) => ({
      dir: entry.path,
      manifest: JSON.parse(
        readFileSync(join(entry.path, 'package.json'), 'utf8'),
      ),
    }));
}

function filesUnder(dir) {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => join(entry.parentPath, entry.name));
}

/** Our rules on the packed manifest and declaration files. */
function manifestProblems({ packed, unpackedDir, byName }) {
  const problems = [];
  for (const field of [
    'dependencies',
    'peerDependencies',
    'optionalDependencies',
  ]) {
    for (const [name, range] of Object.entries(packed[field] ?? {})) {
      if (/^(workspace|catalog):/.test(range))
        problems.push(`${field}.${name} is still '${range}' in the tarball`);
    }
  }
  const declarations = filesUnder(unpackedDir).filter((file) =>
    /\.d\.[cm]?ts$/.test(file),
  );
  const typesImportZod = declarations.some((file) =>
    /\bfrom\s+['"]zod['"]|import\(['"]zod['"]\)/.test(
      readFileSync(file, 'utf8'),
    ),
  );
  if (typesImportZod) {
    if (packed.dependencies?.zod)
      problems.push(
        'its types import zod, so zod must be a peer dependency, not a dependency',
      );
    if (!packed.peerDependencies?.zod)
      problems.push('its types import zod, but zod is not a peer dependency');
  }
  const provided = { ...packed.dependencies, ...packed.peerDependencies };
  for (const dependency of Object.keys(packed.dependencies ?? {})) {
    for (const peer of Object.keys(
      byName.get(dependency)?.peerDependencies ?? {},
    )) {
      if (!(peer in provided))
        problems.push(
          `depends on ${dependency}, which has the peer ${peer}: list ${peer} as a peer (or dependency) too`,
        );
    }
  }
  return problems;
}

async function checkPackage({ dir, manifest, byName, scratch }) {
  const problems = [];
  if (!existsSync(join(dir, 'dist')))
    return [`no dist/ in ${relative(root, dir)}: run pnpm build first`];
  const destination = mkdtempSync(join(scratch, 'pack-'));
  const packOutput = execFileSync(
    'pnpm',
    ['pack', '--json', '--pack-destination', destination],
    {
      cwd: dir,
      encoding: 'utf8',
    },
  );
  const tarball = JSON.parse(
    packOutput.slice(packOutput.indexOf('{')),
  ).filename;
  const unpacked = join(destination, 'unpacked');
  mkdirSync(unpacked);
  execFileSync('tar', ['-xzf', tarball, '-C', unpacked]);
  const unpackedDir = join(unpacked, 'package');
  const packed = JSON.parse(
    readFileSync(join(unpackedDir, 'package.json'), 'utf8'),
  );

  const lint = await publint({
    pkgDir: unpackedDir,
    pack: false,
    level: 'suggestion',
    strict: true,
  });
  for (const message of lint.messages) {
    problems.push(
      `publint ${message.type} ${message.code}: ${formatMessage(message, lint.pkg, { color: false })}`,
    );
  }

  const types = spawnSync(
    attw,
    [
      tarball,
      '--profile',
      'esm-only',
      '--format',
      'ascii',
      '--no-color',
      '--no-emoji',
      '--no-definitely-typed',
    ],
    { encoding: 'utf8' },
  );
  if (types.status !== 0) {
    problems.push(
      `attw (exit ${types.status}):\n${`${types.stdout}${types.stderr}`.trim().replace(/^/gm, '    ')}`,
    );
  }

  problems.push(...manifestProblems({ packed, unpackedDir, byName }));
  if (manifest.name !== packed.name)
    problems.push(`packed name ${packed.name} differs from ${manifest.name}`);
  return problems;
}

const packages = workspacePackages();
const byName = new Map(
  packages.map(({ manifest }) => [manifest.name, manifest]),
);
const published = packages.filter(({ manifest }) => manifest.private !== true);
const scratch = mkdtempSync(join(tmpdir(), 'seal-check-packages-'));
let failed = 0;
try {
  for (const { dir, manifest } of published) {
    const problems = await checkPackage({ dir, manifest, byName, scratch });
    if (problems.length === 0) {
      process.stdout.write(
        `ok    ${manifest.name} (publint, attw, manifest)\n`,
      );
    } else {
      failed++;
      process.stdout.write(
        `FAIL  ${manifest.name}\n${problems.map((problem) => `  - ${problem}\n`).join('')}`,
      );
    }
  }
} finally {
  rmSync(scratch, { recursive: true, force: true });
}
process.stdout.write(
  `check:packages: ${published.length - failed}/${published.length} public packages pass\n`,
);
if (published.length === 0 || failed > 0) process.exitCode = 1;

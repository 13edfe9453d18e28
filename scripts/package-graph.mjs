// `pnpm docs:graph`: the package graph of docs/architecture/README.md, made
// from the package.json files, between the package-graph markers. With
// `--check` it writes nothing and exits 1 when the page is out of date, when
// the graph, test-only edges included, has a cycle, or when a package's
// sources import a workspace package they do not declare (or reach into
// another package by relative path).
import {
  existsSync,
  readFileSync,
  readdirSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import process from 'node:process';
import { URL, fileURLToPath } from 'node:url';
import * as prettier from 'prettier';

const root = fileURLToPath(new URL('..', import.meta.url));
const page = join(root, 'docs', 'architecture', 'README.md');
const start =
  '<!-- package-graph:start (pnpm docs:graph writes this block) -->';
const end = '<!-- package-graph:end -->';

/** Workspace packages (the `packages/*` and `apps/*` globs of pnpm-workspace.yaml). */
function readPackages() {
  return ['packages', 'apps'].flatMap((group) =>
    readdirSync(join(root, group), { withFileTypes: true })
      .filter(
        (entry) =>
          entry.isDirectory() &&
          existsSync(join(root, group, entry.name, 'package.json')),
      )
      .map((entry) => {
        const dir = `${group}/${entry.name}`;
        const manifest = JSON.parse(
          readFileSync(join(root, dir, 'package.json'), 'utf8'),
        );
        return { dir, manifest };
      }),
  );
}

const packages = readPackages();
const names = new Set(packages.map(({ manifest }) => manifest.name));
const internal = (deps) =>
  Object.keys(deps ?? {})
    .filter((name) => names.has(name))
    .sort();
const external = (deps) =>
  Object.keys(deps ?? {})
    .filter((name) => !names.has(name))
    .sort();
const nodes = packages.map(({ dir, manifest }) => ({
  dir,
  name: manifest.name,
  isPrivate: manifest.private === true,
  runtime: internal(manifest.dependencies),
  dev: internal(manifest.devDependencies).filter(
    (name) => !(name in (manifest.dependencies ?? {})),
  ),
  externalRuntime: external(manifest.dependencies),
  peers: external(manifest.peerDependencies),
}));
const byName = new Map(nodes.map((node) => [node.name, node]));

/** A cycle over runtime and test-only edges, as a list of names, or undefined. */
function findCycle() {
  const state = new Map();
  const stack = [];
  const visit = (name) => {
    state.set(name, 'open');
    stack.push(name);
    const node = byName.get(name);
    for (const next of [...node.runtime, ...node.dev]) {
      if (state.get(next) === 'open')
        return [...stack.slice(stack.indexOf(next)), next];
      if (!state.has(next)) {
        const cycle = visit(next);
        if (cycle) return cycle;
      }
    }
    stack.pop();
    state.set(name, 'done');
    return undefined;
  };
  for (const { name } of nodes) {
    if (!state.has(name)) {
      const cycle = visit(name);
      if (cycle) return cycle;
    }
  }
  return undefined;
}

/** Layer of a package: 0 for no internal dependency, else one more than its deepest runtime dependency. */
function layers() {
  const layer = new Map();
  const of = (name) => {
    if (!layer.has(name))
      layer.set(name, Math.max(-1, ...byName.get(name).runtime.map(of)) + 1);
    return layer.get(name);
  };
  for (const { name } of nodes) of(name);
  return layer;
}

function render() {
  const layer = layers();
  const ordered = [...nodes].sort(
    (a, b) =>
      layer.get(a.name) - layer.get(b.name) || a.name.localeCompare(b.name),
  );
  const id = (name) => name.replace(/^@seal\//, '').replace(/[^a-z0-9]/gi, '_');
  const mermaid = [
    '```mermaid',
    'graph BT',
    ...ordered.map((node) => `  ${id(node.name)}["${node.name}"]`),
    ...ordered.flatMap((node) =>
      node.runtime.map((dep) => `  ${id(node.name)} --> ${id(dep)}`),
    ),
    ...ordered.flatMap((node) =>
      node.dev.map((dep) => `  ${id(node.name)} -. tests .-> ${id(dep)}`),
    ),
    '```',
  ];
  const list = (items) =>
    items.length === 0 ? 'none' : items.map((item) => `\`${item}\``).join(', ');
  const rows = ordered.map((node) => {
    const others = [
      ...node.externalRuntime,
      ...node.peers.map((peer) => `${peer} (peer)`),
    ];
    const parts = [
      node.runtime.length === 0
        ? 'no workspace dependency'
        : `depends on ${list(node.runtime)}`,
    ];
    if (node.dev.length > 0) parts.push(`its tests also on ${list(node.dev)}`);
    if (others.length > 0) parts.push(`other: ${list(others)}`);
    const label = `[\`${node.name}\`](../../${node.dir})${node.isPrivate ? ' (private)' : ''}`;
    return `- ${label}: ${parts.join('; ')}.`;
  });
  return [
    start,
    `${nodes.length} workspace packages. An arrow points from a package to one it depends on; a dotted arrow is a`,
    'dependency of its tests only (`devDependencies`). Generated from the `package.json` files.',
    '',
    ...mermaid,
    '',
    ...rows,
    end,
  ].join('\n');
}

const importPattern = /(?:from\s+|import\s*\(\s*|import\s+)['"]([^'"]+)['"]/g;

/** The file a relative specifier names (`./x`, `./x.js`, `./dir` → `.ts` sources). */
function resolveRelative(file, specifier) {
  const base = resolve(dirname(file), specifier);
  const candidates = [
    base,
    base.replace(/\.js$/, '.ts'),
    `${base}.ts`,
    join(base, 'index.ts'),
  ];
  return candidates.find(
    (candidate) => existsSync(candidate) && statSync(candidate).isFile(),
  );
}

/** Source files the build publishes: those reached by relative imports from tsdown's entries. */
function publishedFiles(packageDir) {
  const config = join(packageDir, 'tsdown.config.ts');
  const listed = existsSync(config)
    ? readFileSync(config, 'utf8').match(/entry:\s*\[([^\]]*)\]/)
    : null;
  const entries = listed
    ? [...listed[1].matchAll(/['"]([^'"]+)['"]/g)].map((match) => match[1])
    : ['src/index.ts'];
  const reached = new Set();
  const queue = entries
    .map((entry) => join(packageDir, entry))
    .filter((file) => existsSync(file));
  while (queue.length > 0) {
    const file = queue.pop();
    if (reached.has(file)) continue;
    reached.add(file);
    for (const [, specifier] of readFileSync(file, 'utf8').matchAll(
      importPattern,
    )) {
      if (!specifier.startsWith('.')) continue;
      const target = resolveRelative(file, specifier);
      if (target && /\.[cm]?tsx?$/.test(target)) queue.push(target);
    }
  }
  return reached;
}

/**
 * Imports the graph does not show: a workspace package imported from `src/`
 * but not declared (files the build publishes need `dependencies`; tests and
 * their fixtures may use `devDependencies`), and a relative import that
 * leaves the package.
 */
function undeclaredImports() {
  const problems = [];
  for (const node of nodes) {
    const packageDir = join(root, node.dir);
    const srcDir = join(packageDir, 'src');
    if (!existsSync(srcDir)) continue;
    const published = publishedFiles(packageDir);
    const files = readdirSync(srcDir, { recursive: true, withFileTypes: true })
      .filter((entry) => entry.isFile() && /\.[cm]?tsx?$/.test(entry.name))
      .map((entry) => join(entry.parentPath, entry.name));
    for (const file of files) {
      const allowed = new Set([
        node.name,
        ...node.runtime,
        ...(published.has(file) ? [] : node.dev),
      ]);
      const where = relative(root, file);
      for (const [, specifier] of readFileSync(file, 'utf8').matchAll(
        importPattern,
      )) {
        if (specifier.startsWith('.')) {
          if (!resolve(dirname(file), specifier).startsWith(packageDir + sep)) {
            problems.push(
              `${where}: relative import ${specifier} leaves ${node.dir}`,
            );
          }
          continue;
        }
        const name = specifier.split('/').slice(0, 2).join('/');
        if (names.has(name) && !allowed.has(name)) {
          const declared = node.dev.includes(name)
            ? 'only a devDependency, and the build publishes this file'
            : 'not declared';
          problems.push(`${where}: imports ${name}, ${declared}`);
        }
      }
    }
  }
  return problems;
}

const check = process.argv.includes('--check');
const cycle = findCycle();
if (cycle) {
  process.stderr.write(`package graph: cycle ${cycle.join(' -> ')}\n`);
  process.exitCode = 1;
}
const undeclared = undeclaredImports();
for (const problem of undeclared)
  process.stderr.write(`package graph: ${problem}\n`);
if (undeclared.length > 0) process.exitCode = 1;
const text = readFileSync(page, 'utf8');
const from = text.indexOf(start);
const to = text.indexOf(end);
if (from < 0 || to < from) {
  process.stderr.write(
    `package graph: ${page} has no ${start} ... ${end} block\n`,
  );
  process.exit(1);
}
// Formatted as `pnpm format` would, so that formatting the page keeps it up to date.
const options = { ...(await prettier.resolveConfig(page)), parser: 'markdown' };
const block = (await prettier.format(render(), options)).trimEnd();
const updated = `${text.slice(0, from)}${block}${text.slice(to + end.length)}`;
if (check) {
  if (updated !== text) {
    process.stderr.write(
      'package graph: docs/architecture/README.md is out of date; run pnpm docs:graph\n',
    );
    process.exitCode = 1;
  } else if (!cycle && undeclared.length === 0) {
    process.stdout.write(
      `package graph: ${nodes.length} packages, up to date, no cycle\n`,
    );
  }
} else if (updated !== text) {
  writeFileSync(page, updated);
  process.stdout.write('package graph: docs/architecture/README.md updated\n');
}

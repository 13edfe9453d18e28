/**
 * `pnpm bench <name> [args]`: runs `bench/<name>.ts`. Each benchmark prints
 * its own table (ratios measured side by side in one run) and records nothing
 * by itself; figures are copied into `bench/RESULTS.md` with the command and
 * date.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const available = readdirSync(here)
  .filter(
    (file) =>
      file.endsWith('.ts') && file !== 'run.ts' && !file.startsWith('_'),
  )
  .map((file) => file.slice(0, -3))
  .sort();

const [name, ...rest] = process.argv.slice(2);
if (name === undefined || name === '--help' || name === '-h') {
  console.log(
    `usage: pnpm bench <name> [args]\n\nbenchmarks: ${available.join(', ')}`,
  );
  process.exit(name === undefined ? 1 : 0);
}
const file = join(here, `${name}.ts`);
if (!existsSync(file)) {
  console.error(
    `unknown benchmark '${name}'; available: ${available.join(', ')}`,
  );
  process.exit(2);
}
// `--help` before any `--` (after it, arguments belong to a child command) prints the
// benchmark's own header comment, which opens with its usage line.
const separator = rest.indexOf('--');
const ownArgs = separator >= 0 ? rest.slice(0, separator) : rest;
if (ownArgs.includes('--help') || ownArgs.includes('-h')) {
  console.log(headerComment(file) ?? `usage: pnpm bench ${name} [args]`);
  process.exit(0);
}
process.argv = [process.argv[0]!, file, ...rest];
try {
  await import(pathToFileURL(file).href);
} catch (error) {
  // Bad input and refused states are one line, as in the CLI; anything else keeps its stack.
  const code = (error as { code?: unknown }).code;
  if (
    error instanceof Error &&
    (code === 'INVALID_ARGUMENT' ||
      code === 'INVALID_STATE' ||
      code === 'FILE_NOT_FOUND')
  ) {
    console.error(`bench ${name}: ${error.message}`);
    process.exit(2);
  }
  // `node:util` parseArgs refusals: an unknown option, a missing or stray value.
  if (
    error instanceof Error &&
    typeof code === 'string' &&
    code.startsWith('ERR_PARSE_ARGS_')
  ) {
    console.error(
      `bench ${name}: ${error.message.split('\n')[0]} (pnpm bench ${name} --help lists the options)`,
    );
    process.exit(2);
  }
  throw error;
}

/** The leading `/** … *\/` comment of a benchmark file, without its stars. */
function headerComment(path: string): string | undefined {
  const match = /^\/\*\*([\s\S]*?)\*\//.exec(readFileSync(path, 'utf8'));
  if (match === null) return undefined;
  return match[1]!
    .split('\n')
    .map((line) => line.replace(/^\s*\* ?/, ''))
    .join('\n')
    .trim();
}

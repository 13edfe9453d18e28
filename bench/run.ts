/**
 * `pnpm bench <name> [args]`: runs `bench/<name>.ts`. Each benchmark prints
 * its own table (ratios measured side by side in one run) and records nothing
 * by itself; figures are copied into `bench/RESULTS.md` with the command and
 * date.
 */
import { existsSync, readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const available = readdirSync(here)
  .filter((file) => file.endsWith('.ts') && file !== 'run.ts' && !file.startsWith('_'))
  .map((file) => file.slice(0, -3))
  .sort();

const [name, ...rest] = process.argv.slice(2);
if (name === undefined || name === '--help' || name === '-h') {
  console.log(`usage: pnpm bench <name> [args]\n\nbenchmarks: ${available.join(', ')}`);
  process.exit(name === undefined ? 1 : 0);
}
const file = join(here, `${name}.ts`);
if (!existsSync(file)) {
  console.error(`unknown benchmark '${name}'; available: ${available.join(', ')}`);
  process.exit(2);
}
process.argv = [process.argv[0]!, file, ...rest];
try {
  await import(pathToFileURL(file).href);
} catch (error) {
  // Bad input and refused states are one line, as in the CLI; anything else keeps its stack.
  const code = (error as { code?: unknown }).code;
  if (error instanceof Error && (code === 'INVALID_ARGUMENT' || code === 'INVALID_STATE' || code === 'FILE_NOT_FOUND')) {
    console.error(`bench ${name}: ${error.message}`);
    process.exit(2);
  }
  throw error;
}

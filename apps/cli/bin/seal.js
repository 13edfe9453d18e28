#!/usr/bin/env node
// The `seal` executable. pnpm links bins at install time, before anything is
// built, so the file it links must be committed: this one loads the built
// command (dist/bin.js). In the workspace, before `pnpm build`, it says how to
// build or how to run from source instead of failing on a missing module.
import { existsSync } from 'node:fs';
import process from 'node:process';
import { URL } from 'node:url';

const built = new URL('../dist/bin.js', import.meta.url);
if (existsSync(built)) {
  await import(built.href);
} else {
  process.stderr.write(
    'seal: @seal/cli is not built (no dist/bin.js); run `pnpm build`, or `pnpm seal` from the repository root to run from source\n',
  );
  process.exitCode = 1;
}

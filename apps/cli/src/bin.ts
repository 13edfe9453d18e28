#!/usr/bin/env node
import { toSealError } from '@seal/spec';
import { runCli } from './cli';
import { exitCodeFor, exitCodes } from './exit-codes';

// The one error boundary of the CLI: every failure ends here, printed once,
// with an exit code by error class (see exit-codes.ts).
process.on('SIGINT', () => process.exit(exitCodes.interrupted));
try {
  process.exitCode = await runCli(process.argv.slice(2));
} catch (thrown) {
  const error = toSealError(thrown);
  if (process.argv.includes('--json')) {
    process.stdout.write(
      `${JSON.stringify({ error: error.toJSON() }, null, 2)}\n`,
    );
  } else {
    process.stderr.write(`seal: ${error.message}\n`);
    if (error.code === 'INTERNAL' && thrown instanceof Error && thrown.stack) {
      process.stderr.write(`${thrown.stack}\n`);
    }
  }
  process.exitCode = exitCodeFor(error.code);
}

// An "MCP server" that answers its first message with garbage and exits
// (for the bad-input tests of seal train --env and seal env check).
import process from 'node:process';

process.stdin.once('data', () => {
  process.stdout.write('this is not JSON-RPC\n', () => process.exit(3));
});

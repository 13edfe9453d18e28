import { spawnSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

/** The monorepo root, where `pnpm bench` runs `bench/run.ts`. */
const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');

/** `pnpm bench ARGS` without pnpm: the same node flags as the root script. */
function bench(...args: string[]): {
  status: number | null;
  stdout: string;
  stderr: string;
} {
  const result = spawnSync(
    process.execPath,
    ['--conditions=@seal/source', '--import', 'tsx', 'bench/run.ts', ...args],
    {
      cwd: root,
      encoding: 'utf8',
      timeout: 60_000,
    },
  );
  return {
    status: result.status,
    stdout: result.stdout,
    stderr: result.stderr,
  };
}

describe('pnpm bench', () => {
  it('should print a benchmark’s usage from its header comment for --help, without running it', () => {
    const { status, stdout } = bench('learning', '--help');
    expect(status).toBe(0);
    expect(stdout.split('\n')[0]).toMatch(/^`pnpm bench learning \[--preset /);
    expect(stdout).toContain('The learning study of issue 17');
    expect(stdout).not.toMatch(/^\s*\*/m);
  });

  it('should leave --help after -- to the child command', () => {
    // chaos passes what follows `--` to `seal train`; a --help there is not the bench's.
    // Only the parse is checked: an unknown option before `--` stops it first.
    const { status, stderr } = bench('chaos', '--bogus', '--', '--help');
    expect(status).toBe(2);
    expect(stderr).toContain("Unknown option '--bogus'");
  });

  it('should refuse an unknown option in one line that names it, without a stack trace', () => {
    const { status, stderr } = bench('learning', '--bogus');
    expect(status).toBe(2);
    expect(stderr.trim()).toBe(
      "bench learning: Unknown option '--bogus' (pnpm bench learning --help lists the options)",
    );
  });

  it('should refuse an unknown benchmark and list the available ones', () => {
    const { status, stderr } = bench('nope');
    expect(status).toBe(2);
    expect(stderr).toMatch(/^unknown benchmark 'nope'; available: .*learning/);
  });
});

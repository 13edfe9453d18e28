import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { SealError } from '../errors/seal-error';
import { fixturesRequired, sharedFixture } from './shared-fixture';

function sharedFolder(): string {
  const dir = mkdtempSync(join(tmpdir(), 'seal-shared-'));
  onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
  writeFileSync(join(dir, 'present.json'), '{}');
  return dir;
}

describe('sharedFixture', () => {
  it('should report a present fixture by its absolute path', () => {
    const dir = sharedFolder();
    expect(
      sharedFixture({ path: 'present.json', dir, required: true }),
    ).toMatchObject({
      path: join(dir, 'present.json'),
      present: true,
    });
  });

  it('should report a missing fixture as absent, with a skip message naming it, when not required', () => {
    const dir = sharedFolder();
    const fixture = sharedFixture({
      path: 'bfcl/missing.json',
      dir,
      required: false,
    });
    expect(fixture.present).toBe(false);
    expect(fixture.skipMessage).toContain(join(dir, 'bfcl', 'missing.json'));
  });

  it('should throw FILE_NOT_FOUND for a missing fixture when fixtures are required', () => {
    const dir = sharedFolder();
    let thrown: unknown;
    try {
      sharedFixture({ path: 'bfcl/missing.json', dir, required: true });
    } catch (error) {
      thrown = error;
    }
    expect(SealError.isInstance(thrown)).toBe(true);
    expect((thrown as SealError).code).toBe('FILE_NOT_FOUND');
  });
});

describe('fixturesRequired', () => {
  it('should be on for SEAL_REQUIRE_FIXTURES=1 or true only', () => {
    expect(fixturesRequired({ SEAL_REQUIRE_FIXTURES: '1' })).toBe(true);
    expect(fixturesRequired({ SEAL_REQUIRE_FIXTURES: 'true' })).toBe(true);
    expect(fixturesRequired({ SEAL_REQUIRE_FIXTURES: '0' })).toBe(false);
    expect(fixturesRequired({})).toBe(false);
  });
});

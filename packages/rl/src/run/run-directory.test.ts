import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { RunDirectory } from './run-directory';

function makeRun(): RunDirectory {
  const root = mkdtempSync(join(tmpdir(), 'seal-run-directory-'));
  onTestFinished(() => rmSync(root, { recursive: true, force: true }));
  return new RunDirectory(root);
}

describe('RunDirectory.truncateAfter', () => {
  it('should remove the temporary files of writes a kill cut short, and only those', async () => {
    const run = makeRun();
    await run.ensure();
    mkdirSync(run.checkpointPath(1));
    const leftovers = [
      'capability_state.json.8694.ec90fb12.tmp',
      'config.json.tmp-12-1700000000000',
      'best-000001.tmp-12',
      'episodes/step-000001.jsonl.tmp-12-1700000000000',
      'checkpoints/latest.json.tmp-12-1700000000000',
      'checkpoints/step-000001/model.safetensors.tmp-12-1700000000000',
    ];
    const kept = [
      'config.json',
      'events.jsonl',
      'episodes/step-000001.jsonl',
      'checkpoints/step-000001/model.safetensors',
    ];
    for (const name of [...leftovers, ...kept]) {
      if (name.startsWith('best-')) mkdirSync(run.path(name));
      else writeFileSync(run.path(name), name === 'events.jsonl' ? '' : 'x');
    }
    await run.truncateAfter(1);
    for (const name of leftovers)
      expect({ name, exists: existsSync(run.path(name)) }).toEqual({
        name,
        exists: false,
      });
    for (const name of kept)
      expect({ name, exists: existsSync(run.path(name)) }).toEqual({
        name,
        exists: true,
      });
    expect(readdirSync(run.path('checkpoints'))).toEqual(['step-000001']);
  });

  it('should drop a torn last line and the events of later steps', async () => {
    const run = makeRun();
    await run.ensure();
    writeFileSync(
      run.path('events.jsonl'),
      '{"schemaVersion":1,"type":"rollback","step":1,"toStep":0,"windowGain":0,"learningRate":0.1}\n{"schemaVersion":1,"type":"rollback","step":2,"toStep":0,"windowGain":0,"learningRate":0.1}\n{"schemaVersion":1,"ty',
    );
    const events = await run.truncateAfter(1);
    expect(events.map((event) => event.step)).toEqual([1]);
  });
});

import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { taskV2Schema } from '@seal/spec';
import { checkEnvironmentV2 } from '@seal/verifier';
import { describe, expect, it } from 'vitest';
import { fromMcp } from './from-mcp';

const require = createRequire(import.meta.url);
const memoryServer = join(
  dirname(require.resolve('@modelcontextprotocol/server-memory/package.json')),
  'dist/index.js',
);

const tasks = [
  {
    id: 'remember-and-recall',
    category: 'write-then-read',
    turns: [
      [
        {
          role: 'user',
          content:
            'Ada and Charles are people; Ada writes code and works with Charles.',
        },
      ],
      [{ role: 'user', content: 'Who writes code? Then show me everything.' }],
    ],
    groundTruth: [
      [
        {
          name: 'create_entities',
          arguments: {
            entities: [
              {
                name: 'Ada',
                entityType: 'person',
                observations: ['writes code'],
              },
              { name: 'Charles', entityType: 'person', observations: [] },
            ],
          },
        },
        {
          name: 'create_relations',
          arguments: {
            relations: [
              { from: 'Ada', to: 'Charles', relationType: 'works_with' },
            ],
          },
        },
      ],
      [
        { name: 'search_nodes', arguments: { query: 'code' } },
        { name: 'read_graph', arguments: {} },
      ],
    ],
  },
].map((task) => taskV2Schema.parse(task));

describe('the memory MCP server end to end', () => {
  it('should pass every ground-truth replay and tag every sabotaged one', async () => {
    const environment = fromMcp({
      command: process.execPath,
      args: [memoryServer],
      env: { MEMORY_FILE_PATH: '{session_dir}/memory.jsonl' },
      snapshotCall: { name: 'read_graph', arguments: {} },
      timeoutMs: 10_000,
    });
    const report = await checkEnvironmentV2({
      environment,
      tasks,
      seed: 0,
    });
    expect(
      report.tasks.map((check) => check.replay.turns.map((turn) => turn.tag)),
    ).toEqual([['pass', 'pass']]);
    expect(report.replays).toEqual({ passed: 1, total: 1 });
    expect(report.sabotaged).toEqual({ tagged: 1, total: 1 });
    for (const check of report.tasks) {
      const turn = check.sabotage!.result.turns[check.sabotage!.turn]!;
      expect(turn.pass).toBe(false);
    }
  });
});

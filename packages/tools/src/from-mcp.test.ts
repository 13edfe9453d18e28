import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { taskV2Schema } from '@seal/spec';
import { describe, expect, it, onTestFinished } from 'vitest';
import { fromMcp } from './from-mcp';

const require = createRequire(import.meta.url);
const memoryServer = join(
  dirname(require.resolve('@modelcontextprotocol/server-memory/package.json')),
  'dist/index.js',
);

const task = taskV2Schema.parse({
  id: 't',
  turns: [[{ role: 'user', content: 'hi' }]],
});

describe('fromMcp', () => {
  it('should run the real memory server with one process and directory per session, and clean up on close', async () => {
    const sessionRoot = mkdtempSync(join(tmpdir(), 'seal-mcp-test-'));
    onTestFinished(() => rmSync(sessionRoot, { recursive: true, force: true }));
    const environment = fromMcp({
      command: process.execPath,
      args: [memoryServer],
      env: { MEMORY_FILE_PATH: '{session_dir}/memory.jsonl' },
      snapshotCall: { name: 'read_graph', arguments: {} },
      sessionRoot,
      timeoutMs: 10_000,
    });
    const [first, second] = await Promise.all([
      environment.openSession({ task, role: 'policy' }),
      environment.openSession({ task, role: 'ground-truth' }),
    ]);
    expect(readdirSync(sessionRoot)).toHaveLength(2);
    const names = (await first.listTools()).map((tool) => tool.name);
    expect(names).toContain('create_entities');
    expect(names).toContain('read_graph');

    const created = await first.call({
      name: 'create_entities',
      arguments: {
        entities: [
          { name: 'Ada', entityType: 'person', observations: ['writes code'] },
        ],
      },
    });
    expect(created.kind).toBe('ok');
    const found = await first.call({
      name: 'search_nodes',
      arguments: { query: 'code' },
    });
    expect(found.content).toContain('Ada');
    expect(await first.snapshot?.()).toMatchObject({
      entities: [{ name: 'Ada' }],
    });
    // The other session's server keeps its graph in its own directory.
    expect(await second.snapshot?.()).toEqual({ entities: [], relations: [] });

    // isError → tool_error; a schema failure → invalid_arguments.
    const missing = await second.call({
      name: 'add_observations',
      arguments: { observations: [{ entityName: 'Nobody', contents: ['x'] }] },
    });
    expect(missing.kind).toBe('tool_error');
    expect(missing.error).toContain('Nobody');
    const invalid = await second.call({
      name: 'create_entities',
      arguments: { entities: 5 },
    });
    expect(invalid.kind).toBe('invalid_arguments');
    const unknown = await second.call({ name: 'nope', arguments: {} });
    expect(unknown.kind).toBe('unknown_tool');

    await first.close();
    await first.close();
    await expect(
      first.call({ name: 'read_graph', arguments: {} }),
    ).rejects.toMatchObject({ code: 'INVALID_STATE' });
    expect(readdirSync(sessionRoot)).toHaveLength(1);
    await second.close();
    expect(readdirSync(sessionRoot)).toEqual([]);
  });

  it('should fail clearly when the command does not start', async () => {
    const environment = fromMcp({
      command: join(tmpdir(), 'no-such-mcp-server'),
      startTimeoutMs: 5000,
    });
    await expect(
      environment.openSession({ task, role: 'policy' }),
    ).rejects.toMatchObject({ code: 'BACKEND_UNAVAILABLE' });
  });

  it('should fail clearly when the server answers garbage', async () => {
    const environment = fromMcp({
      command: process.execPath,
      args: [
        '-e',
        "process.stdin.on('data', () => process.stdout.write('not json\\n'))",
      ],
      startTimeoutMs: 1500,
    });
    await expect(
      environment.openSession({ task, role: 'policy' }),
    ).rejects.toMatchObject({
      code: 'BACKEND_UNAVAILABLE',
      message: expect.stringContaining('did not start'),
    });
  });
});

import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { PassThrough } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { describe, expect, it, onTestFinished } from 'vitest';
import { createOutput } from '../ui/output';
import { runEnvCheck } from './env-check';

const here = dirname(fileURLToPath(import.meta.url));
const fixtures = join(here, '__fixtures__', 'env-check');
const example = join(here, '..', '..', '..', '..', 'examples', 'ai-sdk-notes');

async function tempFile(name: string, text: string): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'seal-cli-env-check-'));
  onTestFinished(() => rm(dir, { recursive: true, force: true }));
  const file = join(dir, name);
  await writeFile(file, text);
  return file;
}

async function run(argv: string[]): Promise<{ code: number; stdout: string }> {
  const stdout = new PassThrough();
  const chunks: Buffer[] = [];
  stdout.on('data', (chunk: Buffer) => chunks.push(chunk));
  const output = createOutput({
    json: false,
    stdout,
    stderr: new PassThrough(),
  });
  const code = await runEnvCheck({ argv, output });
  return { code, stdout: Buffer.concat(chunks).toString('utf8') };
}

const jsonl = (tasks: unknown[]) =>
  tasks.map((task) => JSON.stringify(task)).join('\n') + '\n';

describe('seal env check', () => {
  it('should pass the example environment on its tasks and print the summary last', async () => {
    const lines = (await readFile(join(example, 'tasks.jsonl'), 'utf8'))
      .split('\n')
      .slice(0, 7);
    const tasks = await tempFile('tasks.jsonl', `${lines.join('\n')}\n`);
    const { code, stdout } = await run([
      '--env',
      join(example, 'env.ts'),
      '--tasks',
      tasks,
    ]);
    expect(code).toBe(0);
    expect(stdout.trim().split('\n').at(-1)).toBe(
      'env check: 7/7 ground-truth replays pass; 7/7 sabotaged replays tagged',
    );
  });

  it('should fail a tool that throws or hangs with gt_error turns and exit 1', async () => {
    const tasks = await tempFile(
      'tasks.jsonl',
      jsonl([
        {
          id: 'fine',
          turns: [[{ role: 'user', content: 'record a' }]],
          groundTruth: [[{ name: 'record', arguments: { value: 'a' } }]],
        },
        {
          id: 'throws',
          turns: [[{ role: 'user', content: 'explode' }]],
          groundTruth: [[{ name: 'explode', arguments: {} }]],
        },
        {
          id: 'hangs',
          turns: [[{ role: 'user', content: 'hang' }]],
          groundTruth: [[{ name: 'hang', arguments: {} }]],
        },
      ]),
    );
    const { code, stdout } = await run([
      '--env',
      join(fixtures, 'broken-tools.ts'),
      '--tasks',
      tasks,
    ]);
    expect(code).toBe(1);
    expect(stdout).toContain(
      'FAIL throws: ground-truth replay, turn 0: gt_error',
    );
    expect(stdout).toContain('the tool exploded');
    expect(stdout).toContain(
      'FAIL hangs: ground-truth replay, turn 0: gt_error',
    );
    expect(stdout).toContain('timeout');
    expect(stdout.trim().split('\n').at(-1)).toBe(
      'env check: 1/3 ground-truth replays pass; 1/3 sabotaged replays tagged',
    );
  });

  it('should report a throwing checker as checker_error and exit 1', async () => {
    const tasks = await tempFile(
      'tasks.jsonl',
      jsonl([{ id: 'checked', turns: [[{ role: 'user', content: 'hi' }]] }]),
    );
    const { code, stdout } = await run([
      '--env',
      join(fixtures, 'throwing-checker.ts'),
      '--tasks',
      tasks,
    ]);
    expect(code).toBe(1);
    expect(stdout).toContain('checker_error');
    expect(stdout).toContain('the checker has a bug');
  });

  it('should refuse a module without an environment export', async () => {
    const tasks = await tempFile(
      'tasks.jsonl',
      jsonl([{ id: 'a', turns: [[{ role: 'user', content: 'hi' }]] }]),
    );
    await expect(
      run(['--env', join(fixtures, 'no-environment.ts'), '--tasks', tasks]),
    ).rejects.toMatchObject({
      code: 'INVALID_ARGUMENT',
      message: expect.stringContaining('exports no environment'),
    });
  });

  it('should name the line of a task that fails its schema', async () => {
    const tasks = await tempFile(
      'tasks.jsonl',
      `${JSON.stringify({ id: 'a', turns: [[{ role: 'user', content: 'hi' }]] })}\n\n${JSON.stringify({ id: 'b', turns: 'not a list' })}\n`,
    );
    await expect(
      run(['--env', join(example, 'env.ts'), '--tasks', tasks]),
    ).rejects.toMatchObject({
      code: 'INVALID_DATA',
      message: expect.stringMatching(/tasks\.jsonl:3: field 'turns'/),
    });
  });

  it('should fail clearly when the MCP command does not start', async () => {
    const tasks = await tempFile(
      'tasks.jsonl',
      jsonl([
        {
          id: 'a',
          turns: [[{ role: 'user', content: 'hi' }]],
          groundTruth: [[]],
        },
      ]),
    );
    await expect(
      run([
        '--env',
        `mcp:X={session_dir} ${join(tmpdir(), 'no-such-mcp-server')}`,
        '--tasks',
        tasks,
      ]),
    ).rejects.toMatchObject({ code: 'BACKEND_UNAVAILABLE' });
  });
});

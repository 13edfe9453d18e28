import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { PassThrough } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { describe, expect, it, onTestFinished } from 'vitest';
import { createOutput } from '../ui/output';
import { runEnvEval } from './env-eval';

const here = dirname(fileURLToPath(import.meta.url));
const example = join(here, '..', '..', '..', '..', 'examples', 'ai-sdk-notes');

type WireMessage = { role: string; content?: string | null };
type Call = { name: string; arguments: Record<string, unknown> };

async function body(request: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return JSON.parse(Buffer.concat(chunks).toString('utf8')) as unknown;
}

/**
 * An OpenAI-compatible endpoint (real HTTP, the chat-completions wire
 * format) whose model answers each user message with the calls `answer`
 * gives it, then a text reply. Records the tool names it was offered.
 */
async function endpoint(answer: (user: string) => Call[]) {
  const offered: string[][] = [];
  const server = createServer((request, response) => {
    void body(request).then((value) => {
      const { messages, tools } = value as {
        messages: WireMessage[];
        tools?: { function: { name: string } }[];
      };
      offered.push((tools ?? []).map((tool) => tool.function.name));
      const last = messages.at(-1)!;
      const calls = last.role === 'user' ? answer(last.content ?? '') : [];
      const message =
        calls.length === 0
          ? { role: 'assistant', content: 'Done.' }
          : {
              role: 'assistant',
              content: null,
              tool_calls: calls.map((call, index) => ({
                id: `call_${offered.length}_${index}`,
                type: 'function',
                function: {
                  name: call.name,
                  arguments: JSON.stringify(call.arguments),
                },
              })),
            };
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(
        JSON.stringify({
          choices: [
            {
              message,
              finish_reason: calls.length === 0 ? 'stop' : 'tool_calls',
            },
          ],
          usage: { prompt_tokens: 1, completion_tokens: 1 },
        }),
      );
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  onTestFinished(
    () => new Promise<void>((resolve) => server.close(() => resolve())),
  );
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}/v1`, offered };
}

async function exampleTasks(count: number) {
  const lines = (await readFile(join(example, 'tasks.jsonl'), 'utf8'))
    .split('\n')
    .filter((line) => line.trim() !== '')
    .slice(0, count);
  const dir = await mkdtemp(join(tmpdir(), 'seal-cli-env-eval-'));
  onTestFinished(() => rm(dir, { recursive: true, force: true }));
  const file = join(dir, 'tasks.jsonl');
  await writeFile(file, `${lines.join('\n')}\n`);
  const byUser = new Map<string, Call[]>();
  for (const line of lines) {
    const task = JSON.parse(line) as {
      turns: { content: string }[][];
      groundTruth: Call[][];
    };
    task.turns.forEach((turn, index) =>
      byUser.set(turn.at(-1)!.content, task.groundTruth[index]!),
    );
  }
  return { file, dir, byUser };
}

async function run(argv: string[]) {
  const stdout = new PassThrough();
  const chunks: Buffer[] = [];
  stdout.on('data', (chunk: Buffer) => chunks.push(chunk));
  const output = createOutput({
    json: false,
    stdout,
    stderr: new PassThrough(),
  });
  const code = await runEnvEval({ argv, output });
  return { code, stdout: Buffer.concat(chunks).toString('utf8') };
}

describe('seal env eval', () => {
  it('should score a model that makes the ground-truth calls as all passing', async () => {
    const { file, dir, byUser } = await exampleTasks(6);
    const server = await endpoint((user) => byUser.get(user) ?? []);
    const out = join(dir, 'verdicts.jsonl');
    const { code, stdout } = await run([
      '--env',
      join(example, 'env.ts'),
      '--tasks',
      file,
      '--endpoint',
      server.url,
      '--model',
      'oracle',
      '--out',
      out,
    ]);
    expect(code).toBe(0);
    expect(stdout.trim().split('\n').at(-1)).toBe(
      'env eval: 6/6 episodes succeed; 12/12 turns pass',
    );
    const verdicts = (await readFile(out, 'utf8')).trim().split('\n');
    expect(verdicts).toHaveLength(6);
    // The withheld tool is not offered before its turn.
    expect(server.offered.some((names) => names.includes('delete_note'))).toBe(
      true,
    );
    expect(
      server.offered.some(
        (names) => names.length === 5 && !names.includes('delete_note'),
      ),
    ).toBe(true);
  });

  it('should tag a model that never calls a tool', async () => {
    const { file } = await exampleTasks(2);
    const server = await endpoint(() => []);
    const { code, stdout } = await run([
      '--env',
      join(example, 'env.ts'),
      '--tasks',
      file,
      '--endpoint',
      server.url,
      '--model',
      'lazy',
    ]);
    expect(code).toBe(0);
    expect(stdout).toContain('empty_turn_model_response 3');
    expect(stdout.trim().split('\n').at(-1)).toBe(
      'env eval: 0/2 episodes succeed; 0/3 turns pass',
    );
  });
});

import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { PassThrough } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { formatCall, fromJsonValue } from '@seal/python';
import { describe, expect, it, onTestFinished } from 'vitest';
import { createOutput } from '../ui/output';
import { runEval } from './eval';

const here = dirname(fileURLToPath(import.meta.url));
const example = join(here, '..', '..', '..', '..', 'examples', 'ai-sdk-notes');

type Call = { name: string; arguments: Record<string, unknown> };

async function body(request: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return JSON.parse(Buffer.concat(chunks).toString('utf8')) as unknown;
}

/**
 * An OpenAI-compatible endpoint (real HTTP, the chat-completions wire
 * format) whose model answers a user message with the calls `answer` gives
 * it: as `tool_calls` (function calling) or as a Python call list in the
 * text (prompting); after tool results, a text reply.
 */
async function endpoint(
  answer: (user: string) => Call[],
  style: 'fc' | 'prompting',
) {
  let requests = 0;
  const server = createServer((request, response) => {
    if (request.method === 'GET') {
      // /v1/models: one model, no training hints.
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(JSON.stringify({ data: [{ id: 'oracle' }] }));
      return;
    }
    void body(request).then((value) => {
      requests += 1;
      const { messages } = value as {
        messages: { role: string; content?: string | null }[];
      };
      const last = messages.at(-1)!;
      const calls = last.role === 'user' ? answer(last.content ?? '') : [];
      const message =
        calls.length === 0
          ? { role: 'assistant', content: 'Done.' }
          : style === 'prompting'
            ? {
                role: 'assistant',
                content: `[${calls
                  .map((call) =>
                    formatCall({
                      name: call.name,
                      args: [],
                      kwargs: Object.entries(call.arguments).map(
                        ([key, item]) => [key, fromJsonValue(item)],
                      ),
                    }),
                  )
                  .join(', ')}]`,
              }
            : {
                role: 'assistant',
                content: null,
                tool_calls: calls.map((call, index) => ({
                  id: `call_${requests}_${index}`,
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
          choices: [{ message, finish_reason: 'stop' }],
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
  return `http://127.0.0.1:${port}/v1`;
}

/** The example's first `count` tasks in a file, and an oracle over their turns. */
async function exampleTasks(count: number) {
  const lines = (await readFile(join(example, 'tasks.jsonl'), 'utf8'))
    .split('\n')
    .filter((line) => line.trim() !== '')
    .slice(0, count);
  const dir = await mkdtemp(join(tmpdir(), 'seal-cli-eval-env-'));
  onTestFinished(() => rm(dir, { recursive: true, force: true }));
  const file = join(dir, 'tasks.jsonl');
  await writeFile(file, `${lines.join('\n')}\n`);
  const turns: { content: string; calls: Call[] }[] = [];
  for (const line of lines) {
    const task = JSON.parse(line) as {
      turns: { content: string }[][];
      groundTruth: Call[][];
    };
    task.turns.forEach((turn, index) =>
      turns.push({
        content: turn.at(-1)!.content,
        calls: task.groundTruth[index]!,
      }),
    );
  }
  // A holdout turn's message leads with the revealed tools, then the question.
  const oracle = (user: string): Call[] =>
    turns.find((turn) => user.endsWith(turn.content))?.calls ?? [];
  return { file, dir, oracle };
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
  const code = await runEval({ argv, output });
  return { code, stdout: Buffer.concat(chunks).toString('utf8') };
}

describe('seal eval --env', () => {
  it('should pass every task for a model making the ground-truth calls, by tool_calls or by prompting', async () => {
    const { file, dir, oracle } = await exampleTasks(8);
    for (const mode of ['fc', 'prompting'] as const) {
      const url = await endpoint(oracle, mode);
      const out = join(dir, `verdicts-${mode}.jsonl`);
      const { code, stdout } = await run([
        '--env',
        join(example, 'env.ts'),
        '--tasks',
        file,
        '--endpoint',
        url,
        '--model',
        'oracle',
        '--mode',
        mode,
        '--out',
        out,
      ]);
      expect(code).toBe(0);
      expect(stdout.trim().split('\n').at(-1)).toMatch(
        /^eval --env: 8\/8 episodes succeed; (\d+)\/\1 turns pass$/,
      );
      const verdicts = (await readFile(out, 'utf8'))
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line) as { success: boolean });
      expect(verdicts.map((verdict) => verdict.success)).toEqual(
        new Array<boolean>(8).fill(true),
      );
    }
  });

  it('should tag a model that never calls a tool', async () => {
    const { file } = await exampleTasks(3);
    const url = await endpoint(() => [], 'fc');
    const { code, stdout } = await run([
      '--env',
      join(example, 'env.ts'),
      '--tasks',
      file,
      '--endpoint',
      url,
      '--model',
      'lazy',
      '--mode',
      'fc',
    ]);
    expect(code).toBe(0);
    expect(stdout).toContain('empty_turn_model_response');
    expect(stdout.trim().split('\n').at(-1)).toMatch(
      /^eval --env: 0\/3 episodes succeed/,
    );
  });
});

import { jsonSchema, tool } from 'ai';
import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import { taskV2Schema } from '@seal/spec';
import { fromAiSdkTools } from './from-ai-sdk-tools';

type Notes = { notes: string[] };

const tools = {
  add_note: tool({
    description: 'Adds a note.',
    inputSchema: z.object({ text: z.string().min(1) }),
    execute: ({ text }, { context }) => {
      (context as Notes).notes.push(text);
      return { id: (context as Notes).notes.length };
    },
  }),
  count_notes: tool({
    description: 'Counts notes.',
    inputSchema: jsonSchema<{ containing?: string }>({
      type: 'object',
      properties: { containing: { type: 'string' } },
      additionalProperties: false,
    }),
    execute: ({ containing }, { context }) =>
      (context as Notes).notes.filter((note) => note.includes(containing ?? ''))
        .length,
  }),
  explode: tool({
    inputSchema: z.object({}),
    execute: (): string => {
      throw new Error('boom');
    },
  }),
  hang: tool({
    inputSchema: z.object({}),
    execute: (_input, { abortSignal }) =>
      new Promise<string>((_, reject) =>
        abortSignal?.addEventListener('abort', () =>
          reject(new Error('aborted')),
        ),
      ),
  }),
};

const task = taskV2Schema.parse({
  id: 't',
  turns: [[{ role: 'user', content: 'hi' }]],
});

function environment() {
  return fromAiSdkTools(tools, {
    createState: (): Notes => ({ notes: [] }),
    timeoutMs: 200,
  });
}

describe('fromAiSdkTools', () => {
  it('should list MCP-shaped docs with the JSON Schema of a zod inputSchema', async () => {
    const session = await environment().openSession({ task, role: 'policy' });
    const docs = await session.listTools();
    const addNote = docs.find((doc) => doc.name === 'add_note');
    expect(addNote).toMatchObject({
      description: 'Adds a note.',
      inputSchema: {
        type: 'object',
        properties: { text: { type: 'string', minLength: 1 } },
        required: ['text'],
      },
    });
    expect(addNote?.inputSchema).not.toHaveProperty('$schema');
    expect(docs.map((doc) => doc.name)).toEqual([
      'add_note',
      'count_notes',
      'explode',
      'hang',
    ]);
  });

  it('should run calls on one state per session', async () => {
    const env = environment();
    const first = await env.openSession({ task, role: 'policy' });
    const second = await env.openSession({ task, role: 'ground-truth' });
    const added = await first.call({
      name: 'add_note',
      arguments: { text: 'milk' },
    });
    expect(added).toEqual({
      kind: 'ok',
      ok: true,
      content: '{"id":1}',
      value: { id: 1 },
    });
    expect(
      (await first.call({ name: 'count_notes', arguments: {} })).content,
    ).toBe('1');
    expect(
      (await second.call({ name: 'count_notes', arguments: {} })).content,
    ).toBe('0');
    expect(await first.snapshot?.()).toEqual({ notes: ['milk'] });
    expect(await second.snapshot?.()).toEqual({ notes: [] });
  });

  it('should answer invalid arguments without running the tool', async () => {
    const session = await environment().openSession({ task, role: 'policy' });
    const outcome = await session.call({
      name: 'add_note',
      arguments: { text: 3 },
    });
    expect(outcome.kind).toBe('invalid_arguments');
    expect(outcome.ok).toBe(false);
    expect(await session.snapshot?.()).toEqual({ notes: [] });
  });

  it('should check arguments against a JSON-Schema inputSchema without a validator', async () => {
    const session = await environment().openSession({ task, role: 'policy' });
    const wrongType = await session.call({
      name: 'count_notes',
      arguments: { containing: 5 },
    });
    expect(wrongType.kind).toBe('invalid_arguments');
    expect(wrongType.error).toContain('containing');
    const extra = await session.call({
      name: 'count_notes',
      arguments: { other: 'x' },
    });
    expect(extra.kind).toBe('invalid_arguments');
    const fine = await session.call({
      name: 'count_notes',
      arguments: { containing: 'x' },
    });
    expect(fine).toMatchObject({ kind: 'ok', content: '0' });
  });

  it('should turn a throw into a tool_error, an unknown name into unknown_tool, and a hang into a timeout', async () => {
    const session = await environment().openSession({ task, role: 'policy' });
    const thrown = await session.call({ name: 'explode', arguments: {} });
    expect(thrown).toMatchObject({ kind: 'tool_error', error: 'boom' });
    const unknown = await session.call({ name: 'nope', arguments: {} });
    expect(unknown.kind).toBe('unknown_tool');
    const hung = await session.call({ name: 'hang', arguments: {} });
    expect(hung.kind).toBe('timeout');
  });

  it('should refuse calls after close', async () => {
    const session = await environment().openSession({ task, role: 'policy' });
    await session.close();
    await expect(
      session.call({ name: 'count_notes', arguments: {} }),
    ).rejects.toMatchObject({ code: 'INVALID_STATE' });
  });
});

/**
 * A notes-and-todos environment written with the AI SDK's `tool()` and zod:
 * six tools over one state object per session (each episode, and each
 * ground-truth replay, starts from an empty store).
 *
 * Check it (from the repository root):
 *   pnpm seal env check --env ./examples/ai-sdk-notes/env.ts --tasks ./examples/ai-sdk-notes/tasks.jsonl
 */
import { fromAiSdkTools } from '@seal/tools';
import { tool } from 'ai';
import * as z from 'zod';

/** The state of one session. */
export type NotesState = {
  notes: { id: number; title: string; body: string; tags: string[] }[];
  todos: { id: number; text: string; done: boolean; priority: string }[];
  nextNoteId: number;
  nextTodoId: number;
};

// The AI SDK hands each call the session's state as `context`.
const stateOf = (context: unknown): NotesState => context as NotesState;

/** The tools, as any AI SDK app would write them. */
const tools = {
  add_note: tool({
    description: 'Saves a note and returns its id.',
    inputSchema: z.object({
      title: z.string().min(1).describe('A short title.'),
      body: z.string().describe('The text of the note.'),
      tags: z.array(z.string()).optional().describe('Optional labels.'),
    }),
    execute: ({ title, body, tags }, { context }) => {
      const state = stateOf(context);
      const id = state.nextNoteId++;
      state.notes.push({ id, title, body, tags: tags ?? [] });
      return { id };
    },
  }),
  search_notes: tool({
    description:
      'Finds notes whose title, body or tags contain the query (case-insensitive).',
    inputSchema: z.object({ query: z.string().min(1) }),
    execute: ({ query }, { context }) => {
      const needle = query.toLowerCase();
      return stateOf(context)
        .notes.filter((note) =>
          [note.title, note.body, ...note.tags].some((text) =>
            text.toLowerCase().includes(needle),
          ),
        )
        .map(({ id, title }) => ({ id, title }));
    },
  }),
  delete_note: tool({
    description: 'Deletes a note by id.',
    inputSchema: z.object({ id: z.number().int().positive() }),
    execute: ({ id }, { context }) => {
      const state = stateOf(context);
      const index = state.notes.findIndex((note) => note.id === id);
      if (index < 0) throw new Error(`no note with id ${id}`);
      state.notes.splice(index, 1);
      return { deleted: id };
    },
  }),
  add_todo: tool({
    description: 'Adds a todo item and returns its id.',
    inputSchema: z.object({
      text: z.string().min(1),
      priority: z.enum(['low', 'normal', 'high']).optional(),
    }),
    execute: ({ text, priority }, { context }) => {
      const state = stateOf(context);
      const id = state.nextTodoId++;
      state.todos.push({
        id,
        text,
        done: false,
        priority: priority ?? 'normal',
      });
      return { id };
    },
  }),
  list_todos: tool({
    description: 'Lists todo items, open ones by default.',
    inputSchema: z.object({
      status: z.enum(['open', 'done', 'all']).optional(),
    }),
    execute: ({ status }, { context }) =>
      stateOf(context).todos.filter((todo) =>
        (status ?? 'open') === 'all'
          ? true
          : todo.done === ((status ?? 'open') === 'done'),
      ),
  }),
  complete_todo: tool({
    description: 'Marks a todo item as done.',
    inputSchema: z.object({ id: z.number().int().positive() }),
    execute: ({ id }, { context }) => {
      const todo = stateOf(context).todos.find((item) => item.id === id);
      if (todo === undefined) throw new Error(`no todo with id ${id}`);
      if (todo.done) throw new Error(`todo ${id} is already done`);
      todo.done = true;
      return { completed: id };
    },
  }),
};

/** The environment `seal env check --env` loads: one fresh state per session. */
export const environment = fromAiSdkTools(tools, {
  environmentId: 'ai-sdk-notes',
  createState: (): NotesState => ({
    notes: [],
    todos: [],
    nextNoteId: 1,
    nextTodoId: 1,
  }),
});

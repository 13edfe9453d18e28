/**
 * Writes tasks.jsonl for the notes environment: 60 tasks from seven
 * templates, every random choice from one seeded generator, so the file is
 * the same on every run.
 *
 * Run: node --conditions=@seal/source --import tsx examples/ai-sdk-notes/generate-tasks.ts [--seed 45] [--count 60]
 */
import { writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import type { TaskV2Input } from '@seal/spec';

type Call = { name: string; arguments: Record<string, unknown> };
type Turn = { user: string; calls: Call[] };

/** mulberry32: a small seeded generator of numbers in [0, 1). */
function seeded(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let value = state;
    value = Math.imul(value ^ (value >>> 15), value | 1);
    value ^= value + Math.imul(value ^ (value >>> 7), value | 61);
    return ((value ^ (value >>> 14)) >>> 0) / 4294967296;
  };
}

const topics = [
  ['Dentist', 'Appointment on Tuesday at 10', 'health'],
  ['Groceries', 'Eggs, rice and coffee beans', 'shopping'],
  ['Book club', 'Read chapters 4 to 6 of Middlemarch', 'reading'],
  ['Car', 'Oil change due at 90000 km', 'car'],
  ['Gift ideas', 'Scarf for Mia, puzzle for Leo', 'family'],
  ['Standup', 'Demo the search feature on Friday', 'work'],
  ['Garden', 'Plant tulip bulbs before the frost', 'home'],
  ['Recipes', 'Try the lentil soup with cumin', 'cooking'],
] as const;
const chores = [
  'buy milk',
  'call the plumber',
  'renew the passport',
  'water the plants',
  'book train tickets',
  'pay the electricity bill',
  'return library books',
  'back up the laptop',
] as const;
const priorities = ['low', 'normal', 'high'] as const;

function main(): void {
  const { values } = parseArgs({
    options: {
      seed: { type: 'string', default: '45' },
      count: { type: 'string', default: '60' },
    },
  });
  const random = seeded(Number(values.seed));
  const pick = <T>(items: readonly T[]): T =>
    items[Math.floor(random() * items.length)]!;
  const two = <T>(items: readonly T[]): [T, T] => {
    const first = pick(items);
    let second = pick(items);
    while (second === first) second = pick(items);
    return [first, second];
  };

  const templates: Record<
    string,
    () => { turns: Turn[]; holdouts?: TaskV2Input['holdouts'] }
  > = {
    'save-note': () => {
      const [title, body, tag] = pick(topics);
      return {
        turns: [
          {
            user: `Save a note titled "${title}" that says "${body}", tagged ${tag}.`,
            calls: [
              { name: 'add_note', arguments: { title, body, tags: [tag] } },
            ],
          },
        ],
      };
    },
    'save-then-search': () => {
      const [[title, body], other] = two(topics);
      return {
        turns: [
          {
            user: `Note this down under "${title}": ${body}. Also a note "${other[0]}": ${other[1]}.`,
            calls: [
              { name: 'add_note', arguments: { title, body } },
              {
                name: 'add_note',
                arguments: { title: other[0], body: other[1] },
              },
            ],
          },
          {
            user: `Which of my notes mention "${body.split(' ')[0]!.toLowerCase()}"?`,
            calls: [
              {
                name: 'search_notes',
                arguments: { query: body.split(' ')[0]!.toLowerCase() },
              },
            ],
          },
        ],
      };
    },
    'todo-lifecycle': () => {
      const [first, second] = two(chores);
      return {
        turns: [
          {
            user: `Add two todos: "${first}" and "${second}".`,
            calls: [
              { name: 'add_todo', arguments: { text: first } },
              { name: 'add_todo', arguments: { text: second } },
            ],
          },
          {
            user: `I did "${first}". Mark it done and show what is still open.`,
            calls: [
              { name: 'complete_todo', arguments: { id: 1 } },
              { name: 'list_todos', arguments: { status: 'open' } },
            ],
          },
        ],
      };
    },
    'ask-for-details': () => {
      const chore = pick(chores);
      const priority = pick(priorities);
      return {
        turns: [
          // Nothing to add yet: the right move is to ask which todo.
          { user: 'Add a todo for me.', calls: [] },
          {
            user: `It is "${chore}", ${priority} priority.`,
            calls: [{ name: 'add_todo', arguments: { text: chore, priority } }],
          },
        ],
      };
    },
    'ask-which-note': () => {
      const [title, body] = pick(topics);
      return {
        turns: [
          {
            user: `Save a note titled "${title}".`,
            calls: [],
          },
          {
            user: `The note should say: ${body}.`,
            calls: [{ name: 'add_note', arguments: { title, body } }],
          },
        ],
      };
    },
    'delete-withheld': () => {
      const [title, body] = pick(topics);
      return {
        turns: [
          {
            user: `Save a note "${title}": ${body}.`,
            calls: [{ name: 'add_note', arguments: { title, body } }],
          },
          // delete_note is withheld in this turn: say it cannot be done yet.
          { user: 'Actually, delete that note.', calls: [] },
          {
            user: 'You can delete notes now. Please delete it.',
            calls: [{ name: 'delete_note', arguments: { id: 1 } }],
          },
        ],
        holdouts: [{ turn: 2, toolNames: ['delete_note'] }],
      };
    },
    'prioritised-todos': () => {
      const [first, second] = two(chores);
      const [high, low] = two(priorities);
      return {
        turns: [
          {
            user: `Add "${first}" as ${high} priority and "${second}" as ${low} priority, then list all todos.`,
            calls: [
              { name: 'add_todo', arguments: { text: first, priority: high } },
              { name: 'add_todo', arguments: { text: second, priority: low } },
              { name: 'list_todos', arguments: { status: 'all' } },
            ],
          },
        ],
      };
    },
  };

  const names = Object.keys(templates);
  const lines: string[] = [];
  for (let index = 0; index < Number(values.count); index += 1) {
    // Round-robin over templates keeps every category represented.
    const category = names[index % names.length]!;
    const { turns, holdouts } = templates[category]!();
    const task: TaskV2Input = {
      id: `notes-${String(index).padStart(3, '0')}`,
      category,
      turns: turns.map((turn) => [{ role: 'user', content: turn.user }]),
      groundTruth: turns.map((turn) => turn.calls),
      ...(holdouts === undefined ? {} : { holdouts }),
      meta: { template: category, seed: Number(values.seed) },
    };
    lines.push(JSON.stringify(task));
  }
  const out = join(dirname(fileURLToPath(import.meta.url)), 'tasks.jsonl');
  writeFileSync(out, `${lines.join('\n')}\n`);
  process.stdout.write(`wrote ${lines.length} tasks to ${out}\n`);
}

main();

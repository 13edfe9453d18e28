import { describe, expect, it } from 'vitest';
import { safeParseWithSchema } from '../../shared/parse';
import { taskV2Schema } from './task-v2';
import { toolDocV2Schema } from './tool-v2';

describe('taskV2Schema', () => {
  it('should fill in schemaVersion and accept an empty ground-truth turn', () => {
    const task = taskV2Schema.parse({
      id: 'notes-1',
      turns: [
        [{ role: 'user', content: 'Add a note' }],
        [{ role: 'user', content: 'Titled "x"' }],
      ],
      groundTruth: [[], [{ name: 'add_note', arguments: { title: 'x' } }]],
    });
    expect(task.schemaVersion).toBe(2);
    expect(task.groundTruth?.[0]).toEqual([]);
  });

  it('should reject ground truth with another number of turns than turns', () => {
    const result = safeParseWithSchema({
      schema: taskV2Schema,
      value: {
        id: 't',
        turns: [[{ role: 'user', content: 'hi' }]],
        groundTruth: [[], []],
      },
      source: 'tasks.jsonl:3',
    });
    expect(result.success).toBe(false);
    if (!result.success) {
      expect(result.error.code).toBe('INVALID_DATA');
      expect(result.error.message).toContain('tasks.jsonl:3');
      expect(result.error.message).toContain('groundTruth');
    }
  });

  it('should reject unknown top-level keys', () => {
    expect(
      taskV2Schema.safeParse({
        id: 't',
        turns: [[{ role: 'user', content: 'hi' }]],
        ground_truth: [],
      }).success,
    ).toBe(false);
  });

  it('should reject a holdout past the last turn', () => {
    expect(
      taskV2Schema.safeParse({
        id: 't',
        turns: [[{ role: 'user', content: 'hi' }]],
        holdouts: [{ turn: 1, toolNames: ['x'] }],
      }).success,
    ).toBe(false);
  });
});

describe('toolDocV2Schema', () => {
  it('should keep MCP extras and JSON-Schema keywords such as anyOf', () => {
    const doc = toolDocV2Schema.parse({
      name: 'search',
      inputSchema: {
        type: 'object',
        properties: { q: { anyOf: [{ type: 'string' }, { type: 'null' }] } },
      },
      annotations: { readOnlyHint: true },
    });
    expect(doc.annotations).toEqual({ readOnlyHint: true });
    expect(doc.inputSchema.properties).toBeDefined();
  });
});

import { describe, expect, it } from 'vitest';
import { checkJsonSchema } from './check-json-schema';

const schema = {
  type: 'object',
  properties: {
    title: { type: 'string' },
    priority: { enum: ['low', 'high'] },
    tags: { type: 'array', items: { type: 'string' } },
    due: { anyOf: [{ type: 'string' }, { type: 'null' }] },
  },
  required: ['title'],
  additionalProperties: false,
};

describe('checkJsonSchema', () => {
  it('should pass valid arguments', () => {
    expect(
      checkJsonSchema({
        schema,
        value: { title: 'a', priority: 'low', tags: ['x'], due: null },
      }),
    ).toBeUndefined();
  });

  it.each([
    [{}, 'title: required'],
    [{ title: 1 }, 'title: expected string, got number'],
    [{ title: 'a', priority: 'mid' }, 'priority: expected one of'],
    [{ title: 'a', tags: ['x', 2] }, 'tags[1]: expected string'],
    [{ title: 'a', due: 3 }, 'due: matches none'],
    [{ title: 'a', color: 'red' }, 'color: not an allowed property'],
  ])('should report %j', (value, message) => {
    expect(checkJsonSchema({ schema, value })).toContain(message);
  });
});

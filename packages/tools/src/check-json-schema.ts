/**
 * A small JSON Schema check for tools whose schema has no validator of its
 * own (the AI SDK's `jsonSchema()` without `validate`): `type`, `enum`,
 * `const`, `required`, `properties`, `additionalProperties: false`, `items`,
 * and `anyOf`/`oneOf` (as "one branch passes"). Returns the first problem as
 * `path: message`, or undefined. Keywords it does not know pass.
 */
export function checkJsonSchema({
  schema,
  value,
  path = '',
}: {
  schema: unknown;
  value: unknown;
  path?: string;
}): string | undefined {
  if (typeof schema !== 'object' || schema === null) return undefined;
  const rules = schema as Record<string, unknown>;
  const at = path === '' ? 'arguments' : path;
  for (const key of ['anyOf', 'oneOf'] as const) {
    const branches = rules[key];
    if (Array.isArray(branches) && branches.length > 0) {
      const passes = branches.some(
        (branch) =>
          checkJsonSchema({ schema: branch, value, path }) === undefined,
      );
      if (!passes) return `${at}: matches none of the allowed shapes`;
    }
  }
  const types = rules.type;
  if (types !== undefined) {
    const allowed = Array.isArray(types) ? types : [types];
    if (!allowed.some((type) => hasType(value, type))) {
      return `${at}: expected ${allowed.join(' or ')}, got ${typeName(value)}`;
    }
  }
  if (
    Array.isArray(rules.enum) &&
    !rules.enum.some((item) => same(item, value))
  )
    return `${at}: expected one of ${JSON.stringify(rules.enum)}`;
  if ('const' in rules && !same(rules.const, value))
    return `${at}: expected ${JSON.stringify(rules.const)}`;
  if (typeof value === 'object' && value !== null && !Array.isArray(value)) {
    const record = value as Record<string, unknown>;
    const properties = (rules.properties ?? {}) as Record<string, unknown>;
    for (const name of Array.isArray(rules.required) ? rules.required : []) {
      if (typeof name === 'string' && !(name in record))
        return `${path === '' ? '' : `${path}.`}${name}: required`;
    }
    for (const [name, member] of Object.entries(record)) {
      const inner = `${path === '' ? '' : `${path}.`}${name}`;
      if (name in properties) {
        const problem = checkJsonSchema({
          schema: properties[name],
          value: member,
          path: inner,
        });
        if (problem !== undefined) return problem;
      } else if (rules.additionalProperties === false) {
        return `${inner}: not an allowed property`;
      }
    }
  }
  if (Array.isArray(value) && rules.items !== undefined) {
    for (const [index, item] of value.entries()) {
      const problem = checkJsonSchema({
        schema: rules.items,
        value: item,
        path: `${path}[${index}]`,
      });
      if (problem !== undefined) return problem;
    }
  }
  return undefined;
}

function hasType(value: unknown, type: unknown): boolean {
  switch (type) {
    case 'string':
      return typeof value === 'string';
    case 'number':
      return typeof value === 'number' && Number.isFinite(value);
    case 'integer':
      return Number.isInteger(value);
    case 'boolean':
      return typeof value === 'boolean';
    case 'null':
      return value === null;
    case 'array':
      return Array.isArray(value);
    case 'object':
      return (
        typeof value === 'object' && value !== null && !Array.isArray(value)
      );
    default:
      return true;
  }
}

function typeName(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  return typeof value;
}

function same(left: unknown, right: unknown): boolean {
  return JSON.stringify(left) === JSON.stringify(right);
}

import type { ToolDoc, ToolParameter } from '@seal/spec';

const bfclToJsonSchemaType: Record<string, string> = {
  dict: 'object',
  float: 'number',
  integer: 'integer',
  string: 'string',
  boolean: 'boolean',
  array: 'array',
  tuple: 'array',
  any: 'string',
};

/** Converts a BFCL-dialect parameter to JSON Schema (as OpenAI-style tools expect). */
export function toJsonSchemaParameter(parameter: ToolParameter): Record<string, unknown> {
  const out: Record<string, unknown> = { type: bfclToJsonSchemaType[parameter.type] ?? parameter.type };
  if (parameter.description !== undefined) out['description'] = parameter.description;
  if (parameter.enum !== undefined) out['enum'] = parameter.enum;
  if (parameter.items !== undefined) out['items'] = toJsonSchemaParameter(parameter.items);
  if (parameter.properties !== undefined) {
    out['properties'] = Object.fromEntries(
      Object.entries(parameter.properties).map(([k, v]) => [k, toJsonSchemaParameter(v)]),
    );
  }
  if (parameter.required !== undefined) out['required'] = parameter.required;
  if (parameter.default !== undefined) out['default'] = parameter.default;
  return out;
}

/** A tool doc as an OpenAI `tools[]` item (`{type: "function", function: {...}}`). */
export function toOpenAiTool(doc: ToolDoc): { type: 'function'; function: Record<string, unknown> } {
  return {
    type: 'function',
    function: {
      name: doc.name,
      description: doc.description,
      parameters: toJsonSchemaParameter({
        type: 'dict',
        properties: doc.parameters.properties,
        required: doc.parameters.required ?? [],
      }),
    },
  };
}

function typeText(parameter: ToolParameter): string {
  if (parameter.type === 'array' && parameter.items) return `list[${typeText(parameter.items)}]`;
  if (parameter.type === 'dict') return 'dict';
  if (parameter.type === 'integer') return 'int';
  if (parameter.type === 'string') return 'str';
  if (parameter.type === 'boolean') return 'bool';
  return parameter.type;
}

function firstSentence(text: string): string {
  const trimmed = text.replace(/^This tool belongs to [^.]*\.\s*(Tool description:\s*)?/i, '').trim();
  const match = /^(.*?[.!?])(\s|$)/s.exec(trimmed);
  return (match ? match[1]! : trimmed).replace(/\s+/g, ' ');
}

/**
 * One line per tool for small models: `name(a: str, b?: int = 1): what it does`,
 * required parameters first as declared. Appended parameter cues (overlay
 * `[required]` marks) are kept.
 */
export function renderCompactTool(doc: ToolDoc): string {
  const required = new Set(doc.parameters.required ?? []);
  const params = Object.entries(doc.parameters.properties).map(([name, parameter]) => {
    const optional = !required.has(name);
    const cue = /\[[^\]]+\]\s*$/.exec(parameter.description ?? '')?.[0];
    const defaultText =
      optional && parameter.default !== undefined ? ` = ${JSON.stringify(parameter.default)}` : '';
    return `${name}${optional ? '?' : ''}: ${typeText(parameter)}${defaultText}${cue ? ` ${cue}` : ''}`;
  });
  return `${doc.name}(${params.join(', ')}): ${firstSentence(doc.description)}`;
}

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
export function toJsonSchemaParameter(
  parameter: ToolParameter,
): Record<string, unknown> {
  const out: Record<string, unknown> = {
    type: bfclToJsonSchemaType[parameter.type] ?? parameter.type,
  };
  if (parameter.description !== undefined)
    out['description'] = parameter.description;
  if (parameter.enum !== undefined) out['enum'] = parameter.enum;
  if (parameter.items !== undefined)
    out['items'] = toJsonSchemaParameter(parameter.items);
  if (parameter.properties !== undefined) {
    out['properties'] = Object.fromEntries(
      Object.entries(parameter.properties).map(([k, v]) => [
        k,
        toJsonSchemaParameter(v),
      ]),
    );
  }
  if (parameter.required !== undefined) out['required'] = parameter.required;
  if (parameter.default !== undefined) out['default'] = parameter.default;
  return out;
}

/** A tool doc as an OpenAI `tools[]` item (`{type: "function", function: {...}}`). */
export function toOpenAiTool(doc: ToolDoc): {
  type: 'function';
  function: Record<string, unknown>;
} {
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
  if (parameter.type === 'array' && parameter.items)
    return `list[${typeText(parameter.items)}]`;
  if (parameter.type === 'dict') return 'dict';
  if (parameter.type === 'integer') return 'int';
  if (parameter.type === 'string') return 'str';
  if (parameter.type === 'boolean') return 'bool';
  return parameter.type;
}

function firstSentence(text: string): string {
  const trimmed = text
    .replace(/^This tool belongs to [^.]*\.\s*(Tool description:\s*)?/i, '')
    .trim();
  const match = /^(.*?[.!?])(\s|$)/s.exec(trimmed);
  return (match ? match[1]! : trimmed).replace(/\s+/g, ' ');
}

/** One bracketed cue (`[required]`, `[type: T]`) at the end of a description. */
const trailingBracketCue = /(?:^|\s+)(\[required\]|\[type: [^\]]*\])$/;

/**
 * The cues an overlay appends to a parameter description (φ_schema's
 * ` [required]`, ` [type: T]`, ` Allowed values: a, b`, in that order), split
 * from the doc's own text.
 */
function splitOverlayCues(description: string): {
  text: string;
  cues: string[];
  allowed?: string;
} {
  let text = description;
  let allowed: string | undefined;
  const allowedMatch = /(?:^|\s+)Allowed values: ([^\n]*)$/.exec(text);
  if (allowedMatch) {
    allowed = allowedMatch[1]!.trim();
    text = text.slice(0, allowedMatch.index);
  }
  const cues: string[] = [];
  for (
    let cue = trailingBracketCue.exec(text);
    cue;
    cue = trailingBracketCue.exec(text)
  ) {
    cues.unshift(cue[1]!);
    text = text.slice(0, cue.index);
  }
  return { text, cues, ...(allowed === undefined ? {} : { allowed }) };
}

/**
 * One line per tool for small models: `name(a: str, b?: int = 1): what it does`,
 * required parameters first as declared. A parameter shows the doc's own
 * trailing list (BFCL's `[Enum]: [...]`), then the cues an overlay appended:
 * `[required]`, and the allowed values as `[one of: a, b]` where the doc's
 * own list is not already shown (a `[type: T]` cue repeats the type the line
 * already shows and is left out). Without overlay cues the line is the
 * untouched interface's.
 */
export function renderCompactTool(doc: ToolDoc): string {
  const required = new Set(doc.parameters.required ?? []);
  const params = Object.entries(doc.parameters.properties).map(
    ([name, parameter]) => {
      const optional = !required.has(name);
      const { text, cues, allowed } = splitOverlayCues(
        parameter.description ?? '',
      );
      const listed = /\[[^\]]+\]\s*$/.exec(text)?.[0];
      const shown = [
        ...(listed ? [listed] : []),
        ...cues.filter((cue) => !cue.startsWith('[type:')),
        ...(allowed !== undefined && !listed ? [`[one of: ${allowed}]`] : []),
      ];
      const defaultText =
        optional && parameter.default !== undefined
          ? ` = ${JSON.stringify(parameter.default)}`
          : '';
      return `${name}${optional ? '?' : ''}: ${typeText(parameter)}${defaultText}${shown.length > 0 ? ` ${shown.join(' ')}` : ''}`;
    },
  );
  return `${doc.name}(${params.join(', ')}): ${firstSentence(doc.description)}`;
}

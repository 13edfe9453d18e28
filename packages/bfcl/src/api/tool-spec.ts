import type { ToolDoc, ToolParameter } from '@seal/spec';
import * as z from 'zod';

/**
 * Our own description and argument schema of one API method. Descriptions
 * are written for this project (BFCL's function docs are read from the data
 * directory, never committed); names, types and required parameters match
 * BFCL's docs, which a test checks.
 */
export type BfclToolSpec = {
  /** What the method does, in one or two sentences. */
  description: string;
  /** The arguments; optional members are the parameters with defaults. */
  parameters: z.ZodObject<z.ZodRawShape>;
};

/** Tool specs by method name. */
export type BfclToolSpecs = Readonly<Record<string, BfclToolSpec>>;

type JsonSchema = {
  type?: string | string[];
  description?: string;
  default?: unknown;
  items?: JsonSchema;
  properties?: Record<string, JsonSchema>;
  required?: string[];
  enum?: unknown[];
  anyOf?: JsonSchema[];
};

function toParameter(schema: JsonSchema): ToolParameter {
  const nonNull = schema.anyOf?.find((option) => option.type !== 'null');
  if (nonNull) {
    return toParameter({
      ...nonNull,
      description: schema.description ?? nonNull.description,
      default: schema.default,
    });
  }
  const type = Array.isArray(schema.type)
    ? schema.type.find((t) => t !== 'null')
    : schema.type;
  const out: ToolParameter = {
    type:
      type === 'integer'
        ? 'integer'
        : type === 'number'
          ? 'float'
          : type === 'object'
            ? 'dict'
            : type === undefined
              ? 'any'
              : type,
  };
  if (schema.description !== undefined) out.description = schema.description;
  if (schema.enum !== undefined) out.enum = schema.enum;
  if (schema.items !== undefined) out.items = toParameter(schema.items);
  if (schema.properties !== undefined) {
    out.properties = Object.fromEntries(
      Object.entries(schema.properties).map(([key, value]) => [
        key,
        toParameter(value),
      ]),
    );
    if (schema.required !== undefined) out.required = schema.required;
  }
  if (schema.default !== undefined) out.default = schema.default;
  return out;
}

/**
 * Renders a spec as a function doc in BFCL's dialect (`type: "dict"`,
 * `integer`/`float`/`string`/`boolean`/`array`/`dict`/`any`).
 */
export function toolDocFromSpec({
  name,
  spec,
}: {
  name: string;
  spec: BfclToolSpec;
}): ToolDoc {
  // Converting the zod schema is the slow part; the generator asks for the
  // same specs thousands of times, so the result is kept per spec and name
  // and each caller gets its own copy.
  let byName = toolDocs.get(spec);
  if (byName === undefined) toolDocs.set(spec, (byName = new Map()));
  let doc = byName.get(name);
  if (doc === undefined) {
    const json = z.toJSONSchema(spec.parameters, {
      io: 'input',
      unrepresentable: 'any',
    }) as JsonSchema;
    const properties = Object.fromEntries(
      Object.entries(json.properties ?? {}).map(([key, value]) => [
        key,
        toParameter(value),
      ]),
    );
    doc = {
      name,
      description: spec.description,
      parameters: { type: 'dict', properties, required: json.required ?? [] },
    };
    byName.set(name, doc);
  }
  return structuredClone(doc);
}

const toolDocs = new WeakMap<BfclToolSpec, Map<string, ToolDoc>>();

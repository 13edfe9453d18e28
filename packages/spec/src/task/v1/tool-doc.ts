import * as z from 'zod';

/** A parameter schema in BFCL's function-doc dialect (JSON-schema-like). */
export type ToolParameter = {
  /** `string`, `integer`, `float`, `boolean`, `array`, `dict`, `any`, ... */
  type: string;
  /** What the parameter means (ours or BFCL's). */
  description?: string;
  /** The default value, if optional. */
  default?: unknown;
  /** Element schema of an array. */
  items?: ToolParameter;
  /** Member schemas of a dict. */
  properties?: Record<string, ToolParameter>;
  /** Allowed values, when the doc lists them as an `enum` key. */
  enum?: unknown[];
  /** Required members of a dict. */
  required?: string[];
  [extra: string]: unknown;
};

/** Zod schema of {@link ToolParameter} (unknown keys kept). */
export const toolParameterSchema: z.ZodType<ToolParameter> = z.lazy(() =>
  z
    .object({
      type: z.string(),
      description: z.string().optional(),
      default: z.unknown().optional(),
      items: toolParameterSchema.optional(),
      properties: z.record(z.string(), toolParameterSchema).optional(),
      enum: z.array(z.unknown()).optional(),
      required: z.array(z.string()).optional(),
    })
    .passthrough(),
);

/** A function doc as BFCL ships them: name, description, parameters, response. */
export const toolDocSchema = z
  .object({
    /** The function name, as the model must call it. */
    name: z.string().min(1),
    /** What the function does. */
    description: z.string(),
    /** The parameters object (`type: "dict"` in BFCL). */
    parameters: z
      .object({
        type: z.string(),
        properties: z.record(z.string(), toolParameterSchema),
        required: z.array(z.string()).optional(),
      })
      .passthrough(),
    /** The response schema, informational. */
    response: z.unknown().optional(),
  })
  .passthrough();

/** See {@link toolDocSchema}. */
export type ToolDoc = z.infer<typeof toolDocSchema>;

import type { ToolDoc, ToolPatch } from '@seal/spec';

/** Settings of φ_schema (SEAL's `observation_lite`). */
export type SchemaCueSettings = {
  /** Append ` [required]` to required parameters. Default true. */
  required?: boolean;
  /** Append ` [type: T]`. Default false. */
  type?: boolean;
  /**
   * Append ` Allowed values: a, b` from an `enum` key or from BFCL's
   * `[Enum]: [...]` lists inside descriptions. Default true. (SEAL's own enum
   * hint reads only the `enum` key, which BFCL's multi-turn docs never use,
   * so it does nothing there; reading the description lists makes it work.)
   */
  enum?: boolean;
  /** Remove optional parameters. Default false. */
  hideOptional?: boolean;
  /** The system-prompt note; `null` for none. */
  note?: string | null;
};

/** SEAL's observation-lite note (our wording). */
export const defaultSchemaNote =
  'Observation note: parameters marked [required] must be supplied exactly when you call a tool; do not invent tools that are not in the list.';

/**
 * The enum values a parameter declares: from an `enum` key, a `[Enum]: [...]`
 * list of quoted values in its description, or BFCL's bare form
 * `[Enum]: USD, RMB, EUR` (travel_booking's docs) running to the end of the
 * description.
 */
export function enumValues(parameter: {
  description?: string;
  enum?: unknown[];
}): string[] | undefined {
  if (Array.isArray(parameter.enum) && parameter.enum.length > 0)
    return parameter.enum.map(String);
  const description = parameter.description ?? '';
  const quoted = /\[Enum\]:\s*\[([^\]]*)\]/.exec(description);
  if (quoted) {
    const values = [
      ...quoted[1]!.matchAll(/"((?:[^"\\]|\\.)*)"|'((?:[^'\\]|\\.)*)'/g),
    ].map((m) => m[1] ?? m[2] ?? '');
    return values.length > 0 ? values : undefined;
  }
  const bare = /\[Enum\]:\s*([^[\]\n]+?)\.?\s*$/.exec(description);
  if (!bare) return undefined;
  const values = bare[1]!
    .split(',')
    .map((value) => value.trim())
    .filter((value) => value.length > 0);
  return values.length > 0 ? values : undefined;
}

/**
 * φ_schema: per tool, the cue text appended to each parameter description —
 * ` [required]`, ` [type: T]`, ` Allowed values: …` — skipping cues the
 * description already carries. Pure function of the tool docs.
 */
export function schemaCues({
  tools,
  settings = {},
}: {
  tools: readonly ToolDoc[];
  settings?: SchemaCueSettings;
}): Record<string, ToolPatch> {
  const addRequired = settings.required ?? true;
  const addType = settings.type ?? false;
  const addEnum = settings.enum ?? true;
  const patches: Record<string, ToolPatch> = {};
  for (const doc of tools) {
    const required = new Set(doc.parameters.required ?? []);
    const parameters: Record<string, string> = {};
    const hide: string[] = [];
    for (const [name, parameter] of Object.entries(doc.parameters.properties)) {
      if (settings.hideOptional && !required.has(name)) {
        hide.push(name);
        continue;
      }
      const description = parameter.description ?? '';
      const additions: string[] = [];
      if (
        addRequired &&
        required.has(name) &&
        !description.includes('[required]')
      )
        additions.push('[required]');
      if (addType && !description.includes('[type:'))
        additions.push(`[type: ${parameter.type}]`);
      const values = addEnum ? enumValues(parameter) : undefined;
      if (values && !description.includes('Allowed values:'))
        additions.push(`Allowed values: ${values.join(', ')}`);
      if (additions.length > 0)
        parameters[name] =
          `${description.length > 0 ? ' ' : ''}${additions.join(' ')}`;
    }
    if (Object.keys(parameters).length > 0 || hide.length > 0)
      patches[doc.name] = { parameters, hide };
  }
  return patches;
}

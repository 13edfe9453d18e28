import { createHash } from 'node:crypto';
import {
  SealError,
  emptyOverlay,
  isEmptyOverlay,
  type InterfaceOverlay,
  type ToolDoc,
} from '@seal/spec';

function canonical(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(canonical);
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(
      Object.keys(value as Record<string, unknown>)
        .sort()
        .map((key) => [
          key,
          canonical((value as Record<string, unknown>)[key]),
        ]),
    );
  }
  return value;
}

const overlayHashes = new WeakMap<InterfaceOverlay, string>();

/**
 * Content hash of an overlay: sha256 of its canonical JSON, 16 hex digits.
 * Overlays are values: the hash of an overlay object is computed once (every
 * episode of a step hashes the same one), so do not mutate one after use.
 */
export function hashOverlay(overlay: InterfaceOverlay): string {
  let hash = overlayHashes.get(overlay);
  if (hash === undefined) {
    hash = createHash('sha256')
      .update(JSON.stringify(canonical(overlay)))
      .digest('hex')
      .slice(0, 16);
    overlayHashes.set(overlay, hash);
  }
  return hash;
}

/** The hash every evaluation record carries: that of the empty overlay. */
export const emptyOverlayHash: string = hashOverlay(emptyOverlay);

/**
 * The train/eval gate: evaluation accepts only the empty overlay. Throws
 * EVAL_GATE_VIOLATION otherwise, so no training cue can leak into a score.
 */
export function assertEvalOverlay(overlay: InterfaceOverlay | undefined): void {
  if (overlay !== undefined && !isEmptyOverlay(overlay)) {
    throw new SealError({
      code: 'EVAL_GATE_VIOLATION',
      message: `evaluation refuses a non-empty interface overlay (hash ${hashOverlay(overlay)}); evaluate on the untouched interface`,
      details: { overlayHash: hashOverlay(overlay) },
    });
  }
}

/** Whether an overlay applies to a task category (an empty list means all). */
export function overlayApplies(
  overlay: InterfaceOverlay,
  category: string,
): boolean {
  return (
    overlay.categories.length === 0 || overlay.categories.includes(category)
  );
}

/** Tool docs with the overlay's cues appended (φ_schema); docs are copied, never mutated. */
export function applyToolPatches(
  tools: readonly ToolDoc[],
  overlay: InterfaceOverlay,
): ToolDoc[] {
  return tools.map((doc) => {
    const patch = overlay.toolPatches[doc.name];
    if (!patch) return doc;
    const properties = Object.fromEntries(
      Object.entries(doc.parameters.properties)
        .filter(([name]) => !patch.hide.includes(name))
        .map(([name, parameter]) => {
          const cue = patch.parameters[name];
          if (cue === undefined) return [name, parameter];
          const description = parameter.description ?? '';
          return [
            name,
            {
              ...parameter,
              description: description.includes(cue.trim())
                ? description
                : `${description}${cue}`,
            },
          ];
        }),
    );
    return {
      ...doc,
      description: patch.description
        ? `${doc.description}${patch.description}`
        : doc.description,
      parameters: {
        ...doc.parameters,
        properties,
        required: (doc.parameters.required ?? []).filter(
          (name) => !patch.hide.includes(name),
        ),
      },
    };
  });
}

function fillPlaceholders(
  text: string,
  tools: readonly string[],
  call?: { tool?: string; call?: string },
): string {
  return text
    .replace(/\{tool\}/g, call?.tool ?? 'the tool')
    .replace(/\{call\}/g, call?.call ?? 'the call')
    .replace(/\{tools:(\d+)\}/g, (_m, count: string) => {
      const n = Number(count);
      const shown = tools.slice(0, n).join(', ');
      return tools.length > n ? `${shown} (+${tools.length - n} more)` : shown;
    })
    .replace(/\{tools\}/g, tools.join(', '));
}

const compiled = new WeakMap<object, RegExp>();
function regexOf(rule: { pattern: string; flags: string }): RegExp | undefined {
  let regex = compiled.get(rule);
  if (!regex) {
    try {
      regex = new RegExp(rule.pattern, rule.flags.replace(/g/g, ''));
    } catch {
      return undefined;
    }
    compiled.set(rule, regex);
  }
  return regex;
}

/**
 * The error text a training episode shows: every rewrite that matches
 * (Environment Tuning), then the first matching recovery hint on its own line
 * (φ_err). Untouched when the overlay has neither.
 */
export function applyErrorFeedback({
  text,
  overlay,
  tools,
  tool,
  call,
}: {
  text: string;
  overlay: InterfaceOverlay;
  tools: readonly string[];
  /** The failing tool's name (`{tool}`). */
  tool?: string;
  /** The failing call's text (`{call}`). */
  call?: string;
}): string {
  let out = text;
  const context = { tool, call };
  for (const rule of overlay.errorRewrites) {
    const regex = regexOf(rule);
    if (regex?.test(out))
      out = out.replace(
        regex,
        fillPlaceholders(rule.replacement, tools, context),
      );
  }
  for (const rule of overlay.errorHints) {
    const regex = regexOf(rule);
    const match = regex?.exec(out);
    if (match) {
      const hint = fillPlaceholders(rule.hint, tools, context).replace(
        /\$(\d)/g,
        (_m, i: string) => match[Number(i)] ?? '',
      );
      return `${out}\n${hint}`;
    }
  }
  return out;
}

/** Parse-error hint lines with placeholders filled (φ_err for malformed output). */
export function parseErrorHints(
  overlay: InterfaceOverlay,
  tools: readonly string[],
): string[] {
  return overlay.parseErrorHints.map((hint) => fillPlaceholders(hint, tools));
}

/** The error text inside a tool result: BFCL's `Error during execution: …`, or an `error` field of a JSON result. */
export function toolErrorText(result: string): string | undefined {
  if (result.startsWith('Error during execution:')) return result;
  if (!result.startsWith('{') && !result.startsWith('[')) return undefined;
  // No key can name an error when the text spells none (a key spelled with
  // \u escapes is the exception, parsed below): results can be long.
  if (!/error/i.test(result) && !result.includes('\\u')) return undefined;
  try {
    const value = JSON.parse(result) as unknown;
    const object = Array.isArray(value) ? value[0] : value;
    if (object && typeof object === 'object') {
      for (const [key, item] of Object.entries(
        object as Record<string, unknown>,
      )) {
        if (key.toLowerCase().includes('error') && typeof item === 'string')
          return item;
      }
    }
  } catch {
    // not JSON: not an error shape we recognise
  }
  return undefined;
}

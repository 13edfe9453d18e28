import { formatCall, parseCallString } from '@seal/python';
import type {
  ToolBackendV1,
  ToolBackendV1Execution,
  ToolDoc,
} from '@seal/spec';
import { createPackRandom, mixSeed } from '../packs/pack-random';

/** Prefixes a pack may put before every tool name. */
export const bfclToolPrefixes = [
  'api_',
  'do_',
  'x_',
  'svc_',
  'run_',
  'op_',
] as const;

/**
 * How a pack spells keyword arguments: as documented (`snake`), camelCase
 * (`receiverId`), upper case (`RECEIVER_ID`) or with an `arg_` prefix.
 */
export const bfclArgumentStyles = [
  'snake',
  'camel',
  'upper',
  'prefixed',
] as const;

/** A BFCL pack's hidden regularity: how this deployment spells tool and argument names. */
export type BfclPackRegularity = {
  /** Put before every tool name (`cd` is called `api_cd`). */
  toolPrefix: (typeof bfclToolPrefixes)[number];
  /** How keyword arguments are spelled. */
  argumentStyle: (typeof bfclArgumentStyles)[number];
};

/** The regularity of the pack drawn from `packSeed` (24 combinations). */
export function bfclPackRegularity(packSeed: number): BfclPackRegularity {
  const random = createPackRandom(mixSeed(packSeed, 0xbfc1));
  return {
    toolPrefix: bfclToolPrefixes[random.int(bfclToolPrefixes.length)]!,
    argumentStyle: bfclArgumentStyles[random.int(bfclArgumentStyles.length)]!,
  };
}

/** A sentence stating the regularity (records and the viewer; never shown to the model). */
export function describeBfclRegularity(regularity: BfclPackRegularity): string {
  const spelling = {
    snake: 'spelled as documented',
    camel: 'in camelCase',
    upper: 'in UPPER_CASE',
    prefixed: "prefixed with 'arg_'",
  }[regularity.argumentStyle];
  return `tools are called '${regularity.toolPrefix}<name>'; keyword arguments are ${spelling}`;
}

/** The spelling of a documented argument name under `style`. */
export function aliasArgumentName({
  name,
  style,
}: {
  name: string;
  style: BfclPackRegularity['argumentStyle'];
}): string {
  switch (style) {
    case 'snake':
      return name;
    case 'camel':
      return name.replace(/_+([a-zA-Z0-9])/g, (_, letter: string) =>
        letter.toUpperCase(),
      );
    case 'upper':
      return name.toUpperCase();
    case 'prefixed':
      return `arg_${name}`;
  }
}

/** The result of translating a call of the pack's spelling to the documented one. */
export type CanonicalCall =
  { success: true; callText: string } | { success: false; error: string };

/** Translation between a pack's spelling and the documented tool and argument names. */
export type BfclPackAliases = {
  readonly regularity: BfclPackRegularity;
  /** Pack spelling of a documented tool name. */
  toolAlias(name: string): string;
  /**
   * Translates a call written in the pack's spelling (`api_cd(FOLDER='x')`)
   * to the documented one (`cd(folder='x')`). A documented name, an unknown
   * tool or argument, or a call that does not parse fails with a Python-style
   * error that names the spelling this deployment accepts.
   */
  toCanonical(callText: string): CanonicalCall;
  /** Writes a documented call (a ground-truth line) in the pack's spelling; fails like {@link toCanonical}. */
  toPackSpelling(callText: string): CanonicalCall;
};

/** Builds the aliases of one pack over a task's tools. */
export function createBfclPackAliases({
  tools,
  regularity,
}: {
  tools: readonly ToolDoc[];
  regularity: BfclPackRegularity;
}): BfclPackAliases {
  const byAlias = new Map<
    string,
    { doc: ToolDoc; argumentsByAlias: Map<string, string> }
  >();
  for (const doc of tools) {
    const argumentsByAlias = new Map<string, string>();
    for (const name of Object.keys(doc.parameters.properties)) {
      const alias = aliasArgumentName({
        name,
        style: regularity.argumentStyle,
      });
      // Two documented names with one spelling would be ambiguous: keep the first.
      if (!argumentsByAlias.has(alias)) argumentsByAlias.set(alias, name);
    }
    byAlias.set(`${regularity.toolPrefix}${doc.name}`, {
      doc,
      argumentsByAlias,
    });
  }
  const aliasList = () => [...byAlias.keys()].join(', ');
  return {
    regularity,
    toolAlias: (name) => `${regularity.toolPrefix}${name}`,
    toCanonical(callText) {
      const parsed = parseCallString(callText);
      if (!parsed.success)
        return {
          success: false,
          error: `SyntaxError: ${parsed.error.message}`,
        };
      const call = parsed.value;
      const entry = byAlias.get(call.name);
      if (entry === undefined) {
        return {
          success: false,
          error: `NameError: name '${call.name}' is not defined. The functions of this deployment are: ${aliasList()}`,
        };
      }
      const kwargs: [string, (typeof call.kwargs)[number][1]][] = [];
      for (const [key, value] of call.kwargs) {
        const canonical = entry.argumentsByAlias.get(key);
        if (canonical === undefined) {
          return {
            success: false,
            error: `TypeError: ${call.name}() got an unexpected keyword argument '${key}'. Its arguments here: ${[...entry.argumentsByAlias.keys()].join(', ') || '(none)'}`,
          };
        }
        kwargs.push([canonical, value]);
      }
      return {
        success: true,
        callText: formatCall({ name: entry.doc.name, args: call.args, kwargs }),
      };
    },
    toPackSpelling(callText) {
      const parsed = parseCallString(callText);
      if (!parsed.success)
        return {
          success: false,
          error: `SyntaxError: ${parsed.error.message}`,
        };
      const call = parsed.value;
      if (!byAlias.has(`${regularity.toolPrefix}${call.name}`))
        return {
          success: false,
          error: `NameError: name '${call.name}' is not documented`,
        };
      return {
        success: true,
        callText: formatCall({
          name: `${regularity.toolPrefix}${call.name}`,
          args: call.args,
          kwargs: call.kwargs.map(([key, value]) => [
            aliasArgumentName({ name: key, style: regularity.argumentStyle }),
            value,
          ]),
        }),
      };
    },
  };
}

/**
 * A backend whose sessions accept calls in the pack's spelling only: each
 * call is translated to the documented names and run by `backend` (the BFCL
 * executor, unchanged); anything else is refused with the translation's
 * error, and nothing runs.
 */
export function createAliasedBackend({
  backend,
  regularity,
}: {
  backend: ToolBackendV1;
  regularity: BfclPackRegularity;
}): ToolBackendV1 {
  return {
    specificationVersion: 'v1',
    backendId: `${backend.backendId}+cod-aliases`,
    createSession(task) {
      const aliases = createBfclPackAliases({ tools: task.tools, regularity });
      const inner = backend.createSession(task);
      return {
        execute(callText: string): ToolBackendV1Execution {
          const canonical = aliases.toCanonical(callText);
          if (!canonical.success)
            return {
              result: canonical.error,
              status: 'rejected',
              error: canonical.error,
            };
          return inner.execute(canonical.callText);
        },
      };
    },
  };
}

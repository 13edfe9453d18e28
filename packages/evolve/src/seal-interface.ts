import { hashOverlay } from '@seal/env';
import {
  interfaceOverlaySchema,
  overlayModuleNames,
  type InterfaceOverlay,
  type OverlayModule,
  type ToolDoc,
} from '@seal/spec';
import {
  parseErrorHintLines,
  toolErrorHintRules,
  type ErrorHintSettings,
} from './error-hints';
import {
  guidelineNote,
  selectGuidelines,
  type GuidelineSettings,
  type SelectedGuideline,
  type TagStatistics,
} from './guidelines';
import {
  defaultSchemaNote,
  schemaCues,
  type SchemaCueSettings,
} from './schema-cues';

/** Which of SEAL's interface modules are on, and how (each switchable). */
export type SealInterfaceSettings = {
  /** φ_schema cues and note (on in SEAL's headline runs). `false` turns it off. */
  schema?: SchemaCueSettings | false;
  /** φ_err recovery hints (off in the headline runs). */
  errorHints?: ErrorHintSettings | false;
  /** φ_cap diagnostic guidelines (off in the headline runs). */
  guidelines?: GuidelineSettings | false;
  /** Restrict the overlay to these task categories; empty means all. */
  categories?: string[];
};

/** SEAL's headline configuration: schema cues on, error hints and guidelines off. */
export const sealHeadlineSettings: SealInterfaceSettings = {
  schema: {},
  errorHints: false,
  guidelines: false,
};

/** SEAL's interface modules by their CLI names: φ_schema, φ_err, φ_cap (`@seal/spec`'s `overlayModuleNames`). */
export const sealOverlayModules = overlayModuleNames;
/** See {@link sealOverlayModules}. */
export type SealOverlayModule = OverlayModule;

/**
 * The interface settings that switch on exactly the named modules (the rest
 * off); an empty list switches every module off, which leaves the training
 * interface identical to the untouched one.
 */
export function sealSettingsForModules({
  modules,
  protocol,
}: {
  modules: readonly SealOverlayModule[];
  protocol?: ErrorHintSettings['protocol'];
}): SealInterfaceSettings {
  const on = new Set(modules);
  return {
    schema: on.has('schema') ? {} : false,
    errorHints: on.has('err') ? (protocol ? { protocol } : {}) : false,
    guidelines: on.has('cap') ? {} : false,
  };
}

/** The evolved interface for one step, with what produced it. */
export type EvolvedOverlay = {
  overlay: InterfaceOverlay;
  /** The overlay's content hash (stamped on episodes). */
  hash: string;
  /** The φ_cap guidelines in force, with the statistics that chose them. */
  guidelines: SelectedGuideline[];
};

/**
 * Ω_{t+1} = Evolve(Ω_t, C_t) for SEAL: a pure function of the training tools
 * and the current failure statistics. φ_schema is static, φ_err is a fixed
 * rule set applied by the environment after failures, and φ_cap follows the
 * statistics (empty at first; grows with dominant failures; shrinks as they
 * are mastered).
 */
export function evolveSealOverlay({
  tools,
  statistics = {},
  settings = sealHeadlineSettings,
}: {
  tools: readonly ToolDoc[];
  statistics?: TagStatistics;
  settings?: SealInterfaceSettings;
}): EvolvedOverlay {
  const schema =
    settings.schema === false ? undefined : (settings.schema ?? {});
  const errorHints =
    settings.errorHints === false ? undefined : settings.errorHints;
  const guidelineSettings =
    settings.guidelines === false ? undefined : settings.guidelines;
  const guidelines = guidelineSettings
    ? selectGuidelines({ statistics, settings: guidelineSettings })
    : [];
  const note = schema?.note === undefined ? defaultSchemaNote : schema.note;
  const overlay = interfaceOverlaySchema.parse({
    schemaVersion: 1,
    toolPatches: schema ? schemaCues({ tools, settings: schema }) : {},
    systemNotes: [
      ...(schema && note ? [{ source: 'schema-note', text: note }] : []),
      ...guidelineNote(guidelines),
    ],
    parseErrorHints: errorHints ? parseErrorHintLines(errorHints) : [],
    errorHints: errorHints ? toolErrorHintRules() : [],
    errorRewrites: [],
    categories: settings.categories ?? [],
  });
  return { overlay, hash: hashOverlay(overlay), guidelines };
}

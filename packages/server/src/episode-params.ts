import {
  protocolNames,
  type EpisodeLimits,
  type PromptMode,
  type ProtocolName,
} from '@seal/env';
import {
  evolveSealOverlay,
  type SealInterfaceSettings,
  type TagStatistics,
} from '@seal/evolve';
import {
  SealError,
  emptyOverlay,
  promptModeSchema,
  type InterfaceOverlay,
  type SealWarning,
  type Task,
} from '@seal/spec';
import * as z from 'zod';
import { parseRequestPart } from './wire';

/**
 * How a `/create` request's `params` map onto an episode (SEAL §7.2, §4.1):
 *
 * - `rollout_mode`: `sample` (or `train`) runs the training interface;
 *   `validate`, `validation`, `val`, `test` or `eval` run evaluation, which
 *   never has an overlay. Absent means evaluation (SEAL's trainer always
 *   sends it; SEAL itself treated an absent mode as training).
 * - `observation_lite`, `tool_feedback_evolution`, `diagnostic_evolution`:
 *   SEAL's three train-only modules (φ_schema, φ_err, φ_cap), each with
 *   `enable` and optional `categories`; built with `@seal/evolve`.
 *   `apply_to_validation: true` is refused with a warning: evaluation always
 *   runs on the untouched interface.
 * - `protocol` (ours: `qwen-xml`, `bfcl-python`, `openai-tools`,
 *   `envtuning`), or SEAL's `tool_prompt_mode` / `tool_call_parser` /
 *   `tool_result_mode` (`bfcl_qwen_fc`, `xml_json`, `bfcl_tool_response` →
 *   `qwen-xml`; `envtuning_fc` → `envtuning`). Llama and ToolACE modes are
 *   refused with a 400.
 * - `terminate_on_parse_error`, `is_open_query`, `model_name`: as in SEAL.
 * - Ours: `prompt_mode` (`full` | `compact`), `max_model_calls`,
 *   `max_steps_per_turn`, `max_observation_tokens`.
 * - SEAL's parser switches that our strict parser fixes
 *   (`strict_tool_parser: true`,
 *   `accept_parameters_as_arguments: true`, ...) are accepted; a value our
 *   parser cannot honour gives a warning. Unknown params give a warning.
 */
export type EpisodeParams = {
  /** `train` applies the overlay; `eval` never does. */
  mode: 'train' | 'eval';
  protocol: ProtocolName;
  promptMode: PromptMode;
  /** The training overlay (the empty overlay in eval mode). */
  overlay: InterfaceOverlay;
  /** Whether φ_schema (SEAL's `observation_lite`) is on for this episode. */
  observationLite: boolean;
  limits: EpisodeLimits;
  /** Refuse calls to tools not (yet) available (SEAL's `enforce_available_tools`, default true). */
  enforceAvailableTools: boolean;
  /** End the episode with reward 0 on a parse error. */
  terminateOnParseError: boolean;
  /** End the episode when the first user turn is answered. */
  isOpenQuery: boolean;
  /** Echoed as `model_name` by `/evaluate`. */
  modelName: string;
  warnings: SealWarning[];
};

const categoriesSchema = z.union([z.string(), z.array(z.string())]).nullish();

const observationLiteSchema = z.object({
  enable: z.boolean().nullish(),
  apply_to_validation: z.boolean().nullish(),
  categories: categoriesSchema,
  add_required_hint: z.boolean().nullish(),
  add_type_hint: z.boolean().nullish(),
  add_enum_hint: z.boolean().nullish(),
  hide_optional: z.boolean().nullish(),
  instruction: z.string().nullish(),
});

const toolFeedbackSchema = z.object({
  enable: z.boolean().nullish(),
  apply_to_validation: z.boolean().nullish(),
  categories: categoriesSchema,
  max_tool_names: z.number().int().positive().nullish(),
});

const tagStatisticsSchema = z.record(
  z.string(),
  z.object({ count: z.number().nonnegative(), reward_sum: z.number() }),
);

const diagnosticEvolutionSchema = z.object({
  enable: z.boolean().nullish(),
  apply_to_validation: z.boolean().nullish(),
  categories: categoriesSchema,
  state_path: z.string().nullish(),
  /** Ours: the tag statistics inline, `{tag: {count, reward_sum}}`. */
  tag_statistics: tagStatisticsSchema.nullish(),
  prevalence_threshold: z.number().nullish(),
  reward_threshold: z.number().nullish(),
  min_tag_count: z.number().nullish(),
  max_lines: z.number().int().nonnegative().nullish(),
  category_tags: z.unknown().nullish(),
});

const paramsSchema = z.object({
  rollout_mode: z.string().nullish(),
  is_open_query: z.boolean().nullish(),
  protocol: z.enum(protocolNames).nullish(),
  prompt_mode: promptModeSchema.nullish(),
  tool_prompt_mode: z.string().nullish(),
  tool_call_parser: z.string().nullish(),
  tool_result_mode: z.string().nullish(),
  strict_tool_parser: z.boolean().nullish(),
  enforce_available_tools: z.boolean().nullish(),
  terminate_on_parse_error: z.boolean().nullish(),
  reject_tool_call_with_content: z.boolean().nullish(),
  flag_python_literals_in_tool_json: z.boolean().nullish(),
  accept_parameters_as_arguments: z.boolean().nullish(),
  observation_lite: observationLiteSchema.nullish(),
  tool_feedback_evolution: toolFeedbackSchema.nullish(),
  diagnostic_evolution: diagnosticEvolutionSchema.nullish(),
  data_path: z.string().nullish(),
  answer_path: z.string().nullish(),
  model_name: z.string().nullish(),
  max_model_calls: z.number().int().positive().nullish(),
  max_steps_per_turn: z.number().int().positive().nullish(),
  max_observation_tokens: z.number().int().positive().nullish(),
});

/** The `params` keys `/create` understands (anything else gives a warning). */
export const createParamKeys: readonly string[] = Object.keys(
  paramsSchema.shape,
);

type RawParams = z.infer<typeof paramsSchema>;

const trainModes = new Set(['sample', 'train', 'training']);
const evalModes = new Set([
  'validate',
  'validation',
  'val',
  'test',
  'eval',
  'evaluation',
]);

/** SEAL's protocol names → ours; `undefined` marks a SEAL mode we do not implement. */
const sealProtocolModes: Record<string, ProtocolName | undefined> = {
  bfcl_qwen_fc: 'qwen-xml',
  xml_json: 'qwen-xml',
  bfcl_tool_response: 'qwen-xml',
  envtuning_fc: 'envtuning',
  llama31_official_fc: undefined,
  llama31_official: undefined,
  toolace_fc: undefined,
  toolace_official_prompt: undefined,
  t3rl_text: undefined,
  plain_user: undefined,
};

function unknownKeys(
  raw: unknown,
  known: readonly string[],
  prefix: string,
): SealWarning[] {
  if (typeof raw !== 'object' || raw === null) return [];
  return Object.keys(raw)
    .filter((key) => !known.includes(key))
    .map((key) => ({
      type: 'unsupported' as const,
      setting: `${prefix}${key}`,
      details: 'unknown parameter; ignored',
    }));
}

function invalid(path: string, message: string): SealError {
  return new SealError({
    code: 'INVALID_ARGUMENT',
    message: `field 'params.${path}': ${message}`,
    details: { path: `params.${path}` },
  });
}

function resolveProtocol(params: RawParams): ProtocolName {
  const named: { key: string; protocol: ProtocolName }[] = [];
  for (const key of [
    'tool_prompt_mode',
    'tool_call_parser',
    'tool_result_mode',
  ] as const) {
    const value = params[key];
    if (value === null || value === undefined) continue;
    if (!Object.hasOwn(sealProtocolModes, value)) {
      throw invalid(
        key,
        `unknown mode '${value}'; supported: bfcl_qwen_fc, xml_json, bfcl_tool_response, envtuning_fc`,
      );
    }
    const protocol = sealProtocolModes[value];
    if (protocol === undefined) {
      throw invalid(
        key,
        `'${value}' is not implemented by this service; use bfcl_qwen_fc (Qwen <tool_call> JSON), envtuning_fc, or params.protocol`,
      );
    }
    named.push({ key, protocol });
  }
  if (params.protocol)
    named.unshift({ key: 'protocol', protocol: params.protocol });
  const first = named[0];
  if (!first) return 'qwen-xml';
  const conflict = named.find((entry) => entry.protocol !== first.protocol);
  if (conflict) {
    throw invalid(
      conflict.key,
      `selects protocol ${conflict.protocol}, but params.${first.key} selects ${first.protocol}`,
    );
  }
  return first.protocol;
}

function categoryList(value: string | string[] | null | undefined): string[] {
  if (value === null || value === undefined) return [];
  return typeof value === 'string' ? [value] : value;
}

/** Reads tag statistics for φ_cap from a capability-state file (`diagnostic_evolution.state_path`). */
export type StatisticsLoader = (path: string) => Promise<TagStatistics>;

/**
 * Resolves a `/create` request's `params` for `task` into episode settings
 * (see {@link EpisodeParams} for the mapping). Throws INVALID_ARGUMENT naming
 * the parameter when a value is malformed or unsupported.
 */
export async function resolveEpisodeParams({
  params,
  task,
  loadStatistics,
}: {
  params: Readonly<Record<string, unknown>>;
  task: Task;
  /** Reads `diagnostic_evolution.state_path`; without it state paths are refused with a warning. */
  loadStatistics?: StatisticsLoader;
}): Promise<EpisodeParams> {
  const raw = parseRequestPart({
    schema: paramsSchema,
    value: params,
    field: 'params',
  });
  const warnings: SealWarning[] = [
    ...unknownKeys(params, createParamKeys, 'params.'),
  ];

  const rolloutMode = raw.rollout_mode?.toLowerCase();
  let mode: 'train' | 'eval';
  if (rolloutMode === undefined) mode = 'eval';
  else if (trainModes.has(rolloutMode)) mode = 'train';
  else if (evalModes.has(rolloutMode)) mode = 'eval';
  else
    throw invalid(
      'rollout_mode',
      `'${raw.rollout_mode}' is not one of sample, validate`,
    );

  const protocol = resolveProtocol(raw);

  // Each train-only module is on when enabled, in train mode, and for this
  // task's category (SEAL's `_train_only_enabled`).
  const moduleOn = (
    name:
      'observation_lite' | 'tool_feedback_evolution' | 'diagnostic_evolution',
    config:
      | {
          enable?: boolean | null;
          apply_to_validation?: boolean | null;
          categories?: string | string[] | null;
        }
      | null
      | undefined,
  ): boolean => {
    if (!config?.enable) return false;
    if (mode === 'eval') {
      // SEAL's trainer sends the same module config with `validate`; only a
      // request to apply it there, or a missing mode, deserves a warning.
      if (config.apply_to_validation === true || rolloutMode === undefined) {
        warnings.push({
          type: 'unsupported',
          setting: `params.${name}`,
          details:
            config.apply_to_validation === true
              ? 'apply_to_validation is refused: evaluation always runs on the untouched interface'
              : "not applied: rollout_mode is absent (send 'sample' for training)",
        });
      }
      return false;
    }
    const categories = categoryList(config.categories);
    return categories.length === 0 || categories.includes(task.category);
  };

  const observationLite = moduleOn('observation_lite', raw.observation_lite);
  const toolFeedback = moduleOn(
    'tool_feedback_evolution',
    raw.tool_feedback_evolution,
  );
  const diagnostic = moduleOn('diagnostic_evolution', raw.diagnostic_evolution);
  warnings.push(
    ...unknownKeys(
      params['observation_lite'],
      Object.keys(observationLiteSchema.shape),
      'params.observation_lite.',
    ),
    ...unknownKeys(
      params['tool_feedback_evolution'],
      Object.keys(toolFeedbackSchema.shape),
      'params.tool_feedback_evolution.',
    ),
    ...unknownKeys(
      params['diagnostic_evolution'],
      Object.keys(diagnosticEvolutionSchema.shape),
      'params.diagnostic_evolution.',
    ),
  );

  let statistics: TagStatistics = {};
  const diagnosticConfig = raw.diagnostic_evolution;
  if (diagnostic && diagnosticConfig) {
    if (diagnosticConfig.tag_statistics) {
      statistics = Object.fromEntries(
        Object.entries(diagnosticConfig.tag_statistics).map(([tag, stat]) => [
          tag,
          { count: stat.count, rewardSum: stat.reward_sum },
        ]),
      );
    } else if (diagnosticConfig.state_path) {
      if (loadStatistics)
        statistics = await loadStatistics(diagnosticConfig.state_path);
      else {
        warnings.push({
          type: 'unsupported',
          setting: 'params.diagnostic_evolution.state_path',
          details:
            'reading state files is off on this server (start it with --allow-state-path); pass tag_statistics instead',
        });
      }
    }
    if (
      diagnosticConfig.category_tags !== null &&
      diagnosticConfig.category_tags !== undefined
    ) {
      warnings.push({
        type: 'unsupported',
        setting: 'params.diagnostic_evolution.category_tags',
        details:
          'per-category statistics are not read; the tag statistics are used',
      });
    }
  }

  let overlay: InterfaceOverlay = emptyOverlay;
  if (mode === 'train' && (observationLite || toolFeedback || diagnostic)) {
    const lite = raw.observation_lite;
    const feedback = raw.tool_feedback_evolution;
    const settings: SealInterfaceSettings = {
      schema: observationLite
        ? {
            required: lite?.add_required_hint ?? true,
            type: lite?.add_type_hint ?? false,
            enum: lite?.add_enum_hint ?? true,
            hideOptional: lite?.hide_optional ?? false,
            ...(lite?.instruction === null || lite?.instruction === undefined
              ? {}
              : { note: lite.instruction }),
          }
        : false,
      errorHints: toolFeedback
        ? { maxToolNames: feedback?.max_tool_names ?? 12, protocol }
        : false,
      guidelines: diagnostic
        ? {
            ...(diagnosticConfig?.prevalence_threshold == null
              ? {}
              : { prevalenceThreshold: diagnosticConfig.prevalence_threshold }),
            ...(diagnosticConfig?.reward_threshold == null
              ? {}
              : { rewardThreshold: diagnosticConfig.reward_threshold }),
            ...(diagnosticConfig?.min_tag_count == null
              ? {}
              : { minTagCount: diagnosticConfig.min_tag_count }),
            ...(diagnosticConfig?.max_lines == null
              ? {}
              : { maxLines: diagnosticConfig.max_lines }),
          }
        : false,
    };
    overlay = evolveSealOverlay({
      tools: task.tools,
      statistics,
      settings,
    }).overlay;
  }

  // Parser switches: our parsers are strict, enforce availability and accept
  // `parameters` for `arguments`; other values cannot be honoured.
  const fixed: [keyof RawParams, boolean, string][] = [
    ['strict_tool_parser', true, 'the tool-call parser is always strict'],
    [
      'reject_tool_call_with_content',
      false,
      'text beside tool calls is always kept',
    ],
    [
      'flag_python_literals_in_tool_json',
      false,
      'JSON with Python literals is a parse error',
    ],
    [
      'accept_parameters_as_arguments',
      true,
      "'parameters' is always accepted for 'arguments'",
    ],
  ];
  for (const [key, supported, details] of fixed) {
    const value = raw[key];
    if (value !== null && value !== undefined && value !== supported) {
      warnings.push({ type: 'unsupported', setting: `params.${key}`, details });
    }
  }
  for (const key of ['data_path', 'answer_path'] as const) {
    if (raw[key]) {
      warnings.push({
        type: 'unsupported',
        setting: `params.${key}`,
        details: 'the server reads the data directory it was started with',
      });
    }
  }
  return {
    mode,
    protocol,
    promptMode: raw.prompt_mode ?? 'full',
    overlay,
    observationLite,
    limits: {
      ...(raw.max_model_calls == null
        ? {}
        : { maxModelCalls: raw.max_model_calls }),
      ...(raw.max_steps_per_turn == null
        ? {}
        : { maxStepsPerTurn: raw.max_steps_per_turn }),
      ...(raw.max_observation_tokens == null
        ? {}
        : { maxObservationTokens: raw.max_observation_tokens }),
    },
    enforceAvailableTools: raw.enforce_available_tools ?? true,
    terminateOnParseError: raw.terminate_on_parse_error ?? false,
    isOpenQuery: raw.is_open_query ?? false,
    modelName: raw.model_name ?? 'env_handler',
    warnings,
  };
}

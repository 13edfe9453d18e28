import * as z from 'zod';
import { episodeDiagnosisSchema } from '../../diagnose/v1/episode-diagnosis';
import { sealWarningSchema } from '../../shared/seal-warning';

/** The envelope of every success answer: `{success, data}` (SEAL §7.2). */
export const envServiceResponseSchema = z.object({
  /** True, except for `/release` of an instance that did not exist. */
  success: z.boolean(),
  /** The endpoint's result. */
  data: z.unknown(),
});

/** See {@link envServiceResponseSchema}. */
export type EnvServiceResponse = z.infer<typeof envServiceResponseSchema>;

/*
 * The answers below are SEAL's shapes (§7.2) with this service's additions
 * marked "ours" and optional, so that a client reading them with these
 * schemas works against SEAL's own Python service too. Objects keep fields
 * they do not list.
 */

/**
 * A message as SEAL's service returns it: `{role, content, tool_calls}`,
 * plus `tool_call_id` and `name` for a tool result.
 */
export const envServiceMessageSchema = z.looseObject({
  role: z.string(),
  content: z.string(),
  /** OpenAI-style tool calls (`{id, type, function: {name, arguments}}`); empty for text. */
  tool_calls: z.array(z.unknown()),
  tool_call_id: z.string().optional(),
  name: z.string().optional(),
});

/** See {@link envServiceMessageSchema}. */
export type EnvServiceMessage = z.infer<typeof envServiceMessageSchema>;

/** `/create`'s `data`: SEAL's `{state: [system, user], info}`. */
export const envServiceCreateDataSchema = z.looseObject({
  /** Exactly the system message and the first user message. */
  state: z.tuple([envServiceMessageSchema, envServiceMessageSchema]),
  info: z.looseObject({
    instance_id: z.string(),
    task_id: z.string(),
    test_id: z.string(),
    tools_count: z.number().int().nonnegative(),
    questions_count: z.number().int().nonnegative(),
    observation_lite: z.boolean(),
    /** Ours: the protocol of the episode. */
    protocol: z.string().optional(),
    /** Ours: `train` (overlay allowed) or `eval` (the untouched interface). */
    mode: z.enum(['train', 'eval']).optional(),
    /** Ours: the content hash of the episode's overlay. */
    overlay_hash: z.string().optional(),
    /** Ours: OpenAI tool definitions, for the `openai-tools` protocol (tools travel out of band). */
    tools: z.array(z.unknown()).optional(),
    /** Ours: params that were ignored or refused. */
    warnings: z.array(sealWarningSchema).optional(),
  }),
});

/** See {@link envServiceCreateDataSchema}. */
export type EnvServiceCreateData = z.infer<typeof envServiceCreateDataSchema>;

/** `/step`'s `data`: SEAL's `{state, reward, is_terminated, info}`. */
export const envServiceStepDataSchema = z.looseObject({
  /** The observation: tool results, the next user turn, or `[CONVERSATION_COMPLETED]`. */
  state: z.array(envServiceMessageSchema),
  /** The binary official accuracy at termination, else 0. */
  reward: z.number(),
  is_terminated: z.boolean(),
  /** The turn, error classes (`bfcl_error_type`, ...), the end reason, warnings. */
  info: z.record(z.string(), z.unknown()),
});

/** See {@link envServiceStepDataSchema}. */
export type EnvServiceStepData = z.infer<typeof envServiceStepDataSchema>;

/**
 * `/evaluate`'s non-sparse `data`, field for field as SEAL's
 * `env_handler.evaluate` returns it (§7.2), plus `bfcl_error_type` and
 * `bfcl_error_message` (BFCL's verdict details, ours).
 */
export const envServiceEvaluationSchema = z.looseObject({
  /** The evaluation ran (not the verdict: see `accuracy`). */
  valid: z.boolean(),
  /** BFCL's official multi-turn accuracy: 1 or 0. */
  accuracy: z.number(),
  total_count: z.number(),
  correct_count: z.number(),
  test_category: z.string(),
  test_id: z.string(),
  model_name: z.string(),
  /** Sum of `params.usage.prompt_tokens` sent with `/step` (SEAL never filled it: 0). */
  input_tokens: z.number(),
  /** Sum of `params.usage.completion_tokens` sent with `/step`. */
  output_tokens: z.number(),
  /** SEAL's turn counter: user-turn advances so far (turns reached − 1). */
  turn_count: z.number(),
  /** The conversation reached `[CONVERSATION_COMPLETED]`. */
  completed: z.boolean(),
  bfcl_progress: z.number(),
  bfcl_progress_with_irrelevance: z.number(),
  bfcl_progress_info: z.looseObject({
    /** Per ground-truth turn: pass/fail, `null` for empty ground-truth turns. */
    per_turn_valid: z.array(z.boolean().nullable()),
    /** Per ground-truth turn: 1/0 for empty ground-truth turns, else `null`. */
    irrelevance_per_turn: z.array(z.number().nullable()),
    /** SEAL's per-turn tags, one per ground-truth turn. */
    failure_tags: z.array(z.string()),
    passed_turns: z.number(),
    scorable_turns: z.number(),
    passed_irrelevance_turns: z.number(),
    irrelevance_turns: z.number(),
    terminated_early: z.boolean(),
    error: z.string().nullable(),
  }),
  trajectory_clean: z.boolean(),
  trajectory_has_invalid_tool_call: z.boolean(),
  trajectory_has_tool_error: z.boolean(),
  trajectory_error_count: z.number(),
  trajectory_num_user_turns: z.number(),
  trajectory_num_turns_with_tool_call: z.number(),
  trajectory_num_tool_calls_attempted: z.number(),
  trajectory_num_tool_calls_accepted: z.number(),
  trajectory_num_tool_executions_no_error: z.number(),
  trajectory_turn_coverage_rate: z.number(),
  trajectory_tool_call_accept_rate: z.number(),
  trajectory_tool_exec_success_rate: z.number(),
  /** Ours: BFCL's error type when the verdict failed, else `null`. */
  bfcl_error_type: z.string().nullable().optional(),
  /** Ours: BFCL's error message when the verdict failed, else `null`. */
  bfcl_error_message: z.string().nullable().optional(),
});

/** See {@link envServiceEvaluationSchema}. */
export type EnvServiceEvaluation = z.infer<typeof envServiceEvaluationSchema>;

/** `/diagnose`'s `data` (ours). */
export const envServiceDiagnoseDataSchema = z.object({
  /** SEAL's per-turn tags. */
  failure_tags: z.array(z.string()),
  /** Per ground-truth turn, the finer tags from the event stream. */
  fine_tags: z.array(z.array(z.string())),
  dominant_tag: z.string(),
  reward: z.number(),
  success: z.boolean(),
  /** The full diagnosis record (camelCase). */
  diagnosis: episodeDiagnosisSchema,
});

/** See {@link envServiceDiagnoseDataSchema}. */
export type EnvServiceDiagnoseData = z.infer<
  typeof envServiceDiagnoseDataSchema
>;

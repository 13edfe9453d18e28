import * as z from 'zod';

/**
 * The body of every POST to SEAL's environment service (SEAL §7.2):
 * `{env_type, task_id?, instance_id?, messages, params}`. Fields a client
 * leaves out or sends as `null` are absent; unknown top-level fields are
 * ignored, as SEAL's pydantic model ignores them.
 */
export const envServiceRequestSchema = z.object({
  /** Only `bfcl`; absent means `bfcl` (SEAL's default). */
  env_type: z.string().nullish(),
  /** The task of `/create` (`multi_turn_base_0`, ...). */
  task_id: z.string().min(1, 'must not be empty').max(256).nullish(),
  /** Client-generated (SEAL sends a UUID); printable, at most 256 characters. */
  instance_id: z
    .string()
    .min(1, 'must not be empty')
    .max(256, 'must be at most 256 characters')
    .regex(/^[\x21-\x7e]+$/, 'must be printable ASCII without spaces')
    .nullish(),
  /** Endpoint-specific (`/step`: the assistant message). */
  messages: z.unknown().optional(),
  /** Endpoint-specific parameters. */
  params: z.record(z.string(), z.unknown()).nullish(),
});

/** A parsed request body (see {@link envServiceRequestSchema}). */
export type EnvServiceRequest = z.infer<typeof envServiceRequestSchema>;

/** A request body as a client writes it (see {@link envServiceRequestSchema}). */
export type EnvServiceRequestInput = z.input<typeof envServiceRequestSchema>;

/** One OpenAI-style tool call of a `/step` message (`openai-tools` protocol). */
const stepToolCallSchema = z.object({
  id: z.string().nullish(),
  type: z.string().nullish(),
  function: z.object({
    name: z.string(),
    /** A JSON string (OpenAI, vLLM) or an object. */
    arguments: z
      .union([z.string(), z.record(z.string(), z.unknown())])
      .nullish(),
  }),
});

/**
 * `/step`'s `messages`: `{role: 'assistant', content: <raw model text>}`.
 * `content` is required (a string, or `null` beside `tool_calls`); `role`
 * may be left out; `tool_calls` is read by the `openai-tools` protocol only.
 */
export const envServiceStepMessageSchema = z
  .object({
    role: z.literal('assistant', { error: "must be 'assistant'" }).nullish(),
    content: z.string({ error: 'is required (the raw model text)' }).nullable(),
    tool_calls: z.array(stepToolCallSchema).nullish(),
  })
  .refine(
    (message) =>
      message.content !== null || (message.tool_calls?.length ?? 0) > 0,
    {
      message: 'must be a string unless tool_calls are given',
      path: ['content'],
    },
  );

/** See {@link envServiceStepMessageSchema}. */
export type EnvServiceStepMessage = z.infer<typeof envServiceStepMessageSchema>;

/** `/step`'s own params (ours): token usage of the model call, for `/evaluate`'s token fields. */
export const envServiceStepParamsSchema = z.object({
  usage: z
    .object({
      prompt_tokens: z.number().int().nonnegative().nullish(),
      completion_tokens: z.number().int().nonnegative().nullish(),
    })
    .nullish(),
});

/** See {@link envServiceStepParamsSchema}. */
export type EnvServiceStepParams = z.infer<typeof envServiceStepParamsSchema>;

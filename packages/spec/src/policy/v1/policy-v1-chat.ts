import * as z from 'zod';

/**
 * One chat message handed to a chat template. The fields are the ones Hugging
 * Face chat templates read; extra keys are kept and passed to the template
 * unchanged (for example `tool_calls` or `name`).
 */
export const policyV1ChatMessageSchema = z.looseObject({
  /** Who speaks: `system`, `user`, `assistant` or `tool` (templates may accept more). */
  role: z.string(),
  /** The message text. */
  content: z.string(),
});

/** One chat message handed to a chat template. */
export type PolicyV1ChatMessage = z.infer<typeof policyV1ChatMessageSchema>;

/**
 * A tool description handed to the chat template as-is (usually the OpenAI
 * function-calling JSON shape `{ type: 'function', function: { name, ... } }`).
 */
export const policyV1ToolDefinitionSchema = z.record(z.string(), z.unknown());

/** A tool description handed to the chat template as-is. */
export type PolicyV1ToolDefinition = z.infer<
  typeof policyV1ToolDefinitionSchema
>;

/** Options of {@link PolicyV1Tokenizer.renderChat}. */
export type PolicyV1RenderChatOptions = {
  /** The conversation so far. */
  messages: readonly PolicyV1ChatMessage[];
  /** Tools offered to the model, rendered by the template (when it supports tools). */
  tools?: readonly PolicyV1ToolDefinition[];
  /**
   * Append the header that opens an assistant turn (for ChatML,
   * `<|im_start|>assistant\n`), so generation continues as the assistant.
   * Default false.
   */
  addGenerationPrompt?: boolean;
};

/** Options of {@link PolicyV1Tokenizer.renderChatDelta}. */
export type PolicyV1RenderChatDeltaOptions = PolicyV1RenderChatOptions & {
  /**
   * How many leading messages of `messages` the caller's token context
   * already holds. The last of them is normally the assistant message whose
   * tokens came from `generate` and end with a stop token.
   */
  previousMessageCount: number;
};

/** A rendered chat: the template's text and its token ids. */
export type PolicyV1RenderedChat = {
  /** The text the chat template produced (or the delta of it). */
  text: string;
  /** `text` encoded with the policy's tokenizer (special tokens recognised). */
  tokenIds: number[];
};

/**
 * Tokenization and chat templating behind a policy. The ids it produces are
 * the ids `generate`, `score` and `train` consume.
 *
 * Multi-turn RL keeps a token-level context instead of re-rendering the whole
 * conversation each turn, so what was sampled is exactly what is trained on:
 * `context = renderChat(first messages, addGenerationPrompt).tokenIds`, then
 * per turn `context += generated tokenIds` (ending with a stop token; append
 * `stopTokenIds[0]` yourself when a generation ended by `length`), then
 * `context += renderChatDelta({ messages: all, previousMessageCount,
 * addGenerationPrompt: true }).tokenIds` for the observation messages.
 */
export type PolicyV1Tokenizer = {
  /** Number of token ids the tokenizer can produce (base vocabulary plus added tokens). */
  readonly vocabSize: number;
  /** The end-of-sequence token id, when the tokenizer defines one. */
  readonly eosTokenId: number | undefined;
  /**
   * Token ids that end an assistant turn by default (for ChatML,
   * `<|im_end|>` and `<|endoftext|>`). `generate` stops on them unless the call
   * passes its own `stopTokenIds`.
   */
  readonly stopTokenIds: readonly number[];
  /** Encodes text to ids; special-token strings in the text become their ids. */
  encode(text: string): number[];
  /** Decodes ids to text. `skipSpecialTokens` defaults to false. */
  decode(
    tokenIds: readonly number[],
    options?: { skipSpecialTokens?: boolean },
  ): string;
  /** Renders a chat with the chat template and encodes it. */
  renderChat(options: PolicyV1RenderChatOptions): PolicyV1RenderedChat;
  /**
   * Renders only what `messages.slice(previousMessageCount)` adds to the
   * conversation, aligned to the caller's token context: the delta starts
   * right after the last stop token (for example `<|im_end|>`) of the
   * rendering of the first `previousMessageCount` messages, so text the
   * template puts after a stop token (ChatML's `\n`) belongs to the delta.
   * Throws `INVALID_STATE` when the template does not render the previous
   * messages as a prefix of the full rendering.
   */
  renderChatDelta(
    options: PolicyV1RenderChatDeltaOptions,
  ): PolicyV1RenderedChat;
};

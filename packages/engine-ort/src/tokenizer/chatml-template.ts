/**
 * The chat template of the project's own tokenizers: ChatML (as Qwen2 uses)
 * with a compact tools section. Tools are rendered one per line as JSON in a
 * system block; assistant tool calls are part of the assistant text (the
 * environment's tool-call protocol decides their syntax).
 */
export const chatmlTemplate = [
  '{%- if tools %}',
  '{{- "<|im_start|>system\\n" }}',
  '{%- if messages[0]["role"] == "system" %}{{- messages[0]["content"] + "\\n\\n" }}{%- endif %}',
  '{{- "# Tools\\n" }}',
  '{%- for tool in tools %}{{- tool | tojson + "\\n" }}{%- endfor %}',
  '{{- "<|im_end|>\\n" }}',
  '{%- elif messages[0]["role"] == "system" %}',
  '{{- "<|im_start|>system\\n" + messages[0]["content"] + "<|im_end|>\\n" }}',
  '{%- endif %}',
  '{%- for message in messages %}',
  '{%- if not (message["role"] == "system" and loop.first) %}',
  '{{- "<|im_start|>" + message["role"] + "\\n" + message["content"] + "<|im_end|>\\n" }}',
  '{%- endif %}',
  '{%- endfor %}',
  '{%- if add_generation_prompt %}{{- "<|im_start|>assistant\\n" }}{%- endif %}',
].join('');

/** The special tokens of the ChatML template. */
export const chatmlSpecialTokens = [
  '<|endoftext|>',
  '<|im_start|>',
  '<|im_end|>',
] as const;

/**
 * What {@link chatmlTemplate} renders for a chat without tools, without the
 * Jinja interpreter: an optional first system message, every other message as
 * `<|im_start|>role\ncontent<|im_end|>\n`, then the generation prompt.
 */
export function renderChatml({
  messages,
  addGenerationPrompt,
}: {
  messages: ReadonlyArray<{ role: string; content: string }>;
  addGenerationPrompt: boolean;
}): string {
  // The template's leading system block and its loop that skips the first
  // system message come to the same thing: every message in order.
  let text = '';
  for (const message of messages)
    text += `<|im_start|>${message.role}\n${message.content}<|im_end|>\n`;
  return addGenerationPrompt ? `${text}<|im_start|>assistant\n` : text;
}

import { SealError } from '@seal/spec';

/**
 * The error a chat model throws when a prompt plus `maxTokens` does not fit
 * its context: `CONTEXT_LENGTH_EXCEEDED`, with the counts in `details` when
 * they are known (an endpoint's 400 does not always say them).
 */
export function contextLengthExceededError({
  promptTokens,
  maxTokens,
  contextLength,
}: {
  promptTokens?: number;
  maxTokens?: number;
  contextLength?: number;
}): SealError {
  const known =
    promptTokens !== undefined &&
    maxTokens !== undefined &&
    contextLength !== undefined;
  return new SealError({
    code: 'CONTEXT_LENGTH_EXCEEDED',
    message: known
      ? `the prompt (${promptTokens} tokens) plus max_tokens (${maxTokens}) exceeds the model's context of ${contextLength} tokens`
      : "the prompt exceeds the model's context length",
    details: {
      ...(promptTokens === undefined ? {} : { promptTokens }),
      ...(maxTokens === undefined ? {} : { maxTokens }),
      ...(contextLength === undefined ? {} : { contextLength }),
    },
  });
}

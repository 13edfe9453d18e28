import { SealError, type PolicyV1 } from '@seal/spec';
import type {
  OpenAiCompletionRequest,
  OpenAiCompletionResponse,
} from './openai-completions-wire';

/** What `POST /v1/completions` needs of a policy. */
export type CompletionPolicy = Pick<
  PolicyV1,
  'generate' | 'tokenizer' | 'maxSequenceLength'
>;

/**
 * Answers one parsed completions request from a policy, vLLM's way: token-id
 * or text prompts, one choice per prompt (one `generate` for the batch), and
 * with `logprobs` set, each generated token's log-probability under the
 * distribution it was sampled from (after temperature, top-k and top-p:
 * vLLM's `--logprobs-mode processed_logprobs`; 0 for greedy). With
 * `return_token_ids` each choice carries `prompt_token_ids` and `token_ids`
 * (vLLM 0.10.2 and later). The tokenizer's stop tokens always end a sequence
 * and are kept in `token_ids`; `stop_token_ids` adds more. `top_logprobs`
 * holds only the sampled token. Seedless requests draw a seed at random.
 */
export async function completeTokens({
  policy,
  request,
  modelName,
  id,
  created,
  random = Math.random,
}: {
  policy: CompletionPolicy;
  request: OpenAiCompletionRequest;
  modelName: string;
  id: string;
  created: number;
  random?: () => number;
}): Promise<OpenAiCompletionResponse> {
  const { tokenizer } = policy;
  const raw = request.prompt;
  const list: (string | number[])[] =
    typeof raw === 'string'
      ? [raw]
      : raw.length > 0 && typeof raw[0] === 'number'
        ? [raw as number[]]
        : (raw as (string | number[])[]);
  const prompts = list.map((prompt) =>
    typeof prompt === 'string' ? tokenizer.encode(prompt) : prompt,
  );
  const maxTokens = request.max_tokens ?? 16;
  prompts.forEach((prompt, index) => {
    const outside = prompt.find((token) => token >= tokenizer.vocabSize);
    if (outside !== undefined) {
      throw new SealError({
        code: 'INVALID_ARGUMENT',
        message: `prompt ${index}: token id ${outside} is outside the vocabulary (${tokenizer.vocabSize} tokens)`,
      });
    }
    if (prompt.length + maxTokens > policy.maxSequenceLength) {
      throw new SealError({
        code: 'CONTEXT_LENGTH_EXCEEDED',
        message: `prompt ${index}: ${prompt.length} prompt tokens plus max_tokens ${maxTokens} exceed the model's maximum context length of ${policy.maxSequenceLength}`,
      });
    }
  });
  const stop =
    request.stop === undefined || request.stop === null
      ? []
      : typeof request.stop === 'string'
        ? [request.stop]
        : request.stop;
  const topK = request.top_k ?? 0;
  const result = await policy.generate({
    prompts,
    maxTokens,
    temperature: request.temperature ?? 1,
    ...(request.top_p === undefined || request.top_p === null
      ? {}
      : { topP: request.top_p }),
    topK: topK > 0 ? topK : 0,
    stopTokenIds: [
      ...new Set([
        ...tokenizer.stopTokenIds,
        ...(request.stop_token_ids ?? []),
      ]),
    ],
    ...(stop.length > 0 ? { stopStrings: stop.filter((s) => s !== '') } : {}),
    seed: request.seed ?? Math.floor(random() * 0x7fffffff),
  });
  const skipSpecialTokens = request.skip_special_tokens ?? true;
  const withLogprobs =
    request.logprobs !== undefined && request.logprobs !== null;
  return {
    id,
    object: 'text_completion',
    created,
    model: modelName,
    choices: result.generations.map((generation, index) => {
      const pieces = generation.tokenIds.map((token) =>
        tokenizer.decode([token]),
      );
      const offsets: number[] = [];
      let offset = 0;
      for (const piece of pieces) {
        offsets.push(offset);
        offset += piece.length;
      }
      return {
        index,
        text: tokenizer.decode(generation.tokenIds, { skipSpecialTokens }),
        finish_reason: generation.finishReason,
        logprobs: withLogprobs
          ? {
              tokens: pieces,
              token_logprobs: [...generation.logprobs],
              top_logprobs:
                (request.logprobs ?? 0) > 0
                  ? pieces.map((piece, t) => ({
                      [piece]: generation.logprobs[t]!,
                    }))
                  : null,
              text_offset: offsets,
            }
          : null,
        ...(request.return_token_ids
          ? {
              prompt_token_ids: [...generation.promptTokenIds],
              token_ids: [...generation.tokenIds],
            }
          : {}),
      };
    }),
    usage: {
      prompt_tokens: result.usage.promptTokens,
      completion_tokens: result.usage.completionTokens,
      total_tokens: result.usage.promptTokens + result.usage.completionTokens,
    },
  };
}

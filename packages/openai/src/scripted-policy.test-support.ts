import type {
  PolicyV1,
  PolicyV1GenerateOptions,
  PolicyV1GenerateResult,
  PolicyV1RenderChatOptions,
  PolicyV1Tokenizer,
} from '@seal/spec';

/**
 * Test support for the OpenAI tests (not part of the package's exports): a
 * byte-level ChatML tokenizer and a policy whose replies are scripted.
 */

/** ChatML over UTF-8 bytes: 256 = `<|im_start|>`, 257 = `<|im_end|>` (the stop token). */
export class ByteTokenizer implements PolicyV1Tokenizer {
  readonly vocabSize = 258;
  readonly eosTokenId = 257;
  readonly stopTokenIds = [257];
  encode(text: string): number[] {
    return text
      .split(/(<\|im_start\|>|<\|im_end\|>)/)
      .flatMap((part) =>
        part === '<|im_start|>'
          ? [256]
          : part === '<|im_end|>'
            ? [257]
            : [...new TextEncoder().encode(part)],
      );
  }
  decode(ids: readonly number[]): string {
    let text = '';
    let bytes: number[] = [];
    const flush = () => {
      text += new TextDecoder().decode(Uint8Array.from(bytes));
      bytes = [];
    };
    for (const id of ids) {
      if (id < 256) bytes.push(id);
      else {
        flush();
        text += id === 256 ? '<|im_start|>' : '<|im_end|>';
      }
    }
    flush();
    return text;
  }
  renderChat({ messages, addGenerationPrompt }: PolicyV1RenderChatOptions) {
    const body = messages
      .map((m) => `<|im_start|>${m.role}\n${m.content}<|im_end|>\n`)
      .join('');
    const text =
      addGenerationPrompt === true ? `${body}<|im_start|>assistant\n` : body;
    return { text, tokenIds: this.encode(text) };
  }
  renderChatDelta(): never {
    throw new Error('not used');
  }
}

/** A policy whose reply to a prompt is `answer(prompt text)`; records every generate call. */
export function scriptedPolicy({
  answer,
  maxSequenceLength = 4096,
  delayMs = 0,
}: {
  answer: (prompt: string, options: PolicyV1GenerateOptions) => string;
  maxSequenceLength?: number;
  delayMs?: number;
}): PolicyV1 & { calls: PolicyV1GenerateOptions[] } {
  const tokenizer = new ByteTokenizer();
  const calls: PolicyV1GenerateOptions[] = [];
  return {
    specificationVersion: 'v1',
    policyId: 'scripted',
    tokenizer,
    maxSequenceLength,
    trainable: false,
    calls,
    async generate(options): Promise<PolicyV1GenerateResult> {
      calls.push(options);
      if (delayMs > 0)
        await new Promise((resolve) => setTimeout(resolve, delayMs));
      const generations = (options.prompts ?? []).map((prompt) => {
        const text = answer(tokenizer.decode(prompt), options);
        const ids = tokenizer.encode(text);
        const stop = ids.length < options.maxTokens;
        const tokenIds = stop ? [...ids, 257] : ids.slice(0, options.maxTokens);
        return {
          tokenIds,
          text: tokenizer.decode(tokenIds),
          logprobs: tokenIds.map(() => 0),
          modelLogprobs: tokenIds.map(() => 0),
          finishReason: stop ? ('stop' as const) : ('length' as const),
          promptTokenIds: prompt,
        };
      });
      return { generations, usage: { promptTokens: 0, completionTokens: 0 } };
    },
    score: () => Promise.reject(new Error('not used')),
    train: () => Promise.reject(new Error('not used')),
    save: () => Promise.resolve(),
    load: () => Promise.resolve(),
    close: () => Promise.resolve(),
  };
}

import {
  SealError,
  type PolicyV1,
  type PolicyV1GenerateOptions,
  type PolicyV1GenerateResult,
  type PolicyV1RenderChatDeltaOptions,
  type PolicyV1RenderChatOptions,
  type PolicyV1RenderedChat,
  type PolicyV1ScoreOptions,
  type PolicyV1ScoreResult,
  type PolicyV1Tokenizer,
  type PolicyV1TrainOptions,
  type PolicyV1TrainResult,
} from '@seal/spec';

/** A handler: a function of the call options, one result, or results returned in order. */
export type MockHandler<TOptions, TResult> =
  ((options: TOptions) => TResult | PromiseLike<TResult>) | TResult | TResult[];

/**
 * A byte-level test tokenizer: ids are UTF-8 bytes, plus `<|im_start|>` (256)
 * and `<|im_end|>` (257, the stop token); chats render as ChatML.
 */
export class MockPolicyV1Tokenizer implements PolicyV1Tokenizer {
  readonly vocabSize = 258;
  readonly eosTokenId = 257;
  readonly stopTokenIds = [257];

  encode(text: string): number[] {
    const ids: number[] = [];
    for (const part of text.split(/(<\|im_start\|>|<\|im_end\|>)/)) {
      if (part === '<|im_start|>') ids.push(256);
      else if (part === '<|im_end|>') ids.push(257);
      else ids.push(...new TextEncoder().encode(part));
    }
    return ids;
  }

  decode(
    tokenIds: readonly number[],
    options: { skipSpecialTokens?: boolean } = {},
  ): string {
    let text = '';
    let bytes: number[] = [];
    const flush = (): void => {
      text += new TextDecoder().decode(Uint8Array.from(bytes));
      bytes = [];
    };
    for (const id of tokenIds) {
      if (id < 256) bytes.push(id);
      else {
        flush();
        if (options.skipSpecialTokens !== true)
          text += id === 256 ? '<|im_start|>' : '<|im_end|>';
      }
    }
    flush();
    return text;
  }

  private render({
    messages,
    addGenerationPrompt,
  }: PolicyV1RenderChatOptions): string {
    const body = messages
      .map((m) => `<|im_start|>${m.role}\n${m.content}<|im_end|>\n`)
      .join('');
    return addGenerationPrompt === true
      ? `${body}<|im_start|>assistant\n`
      : body;
  }

  renderChat(options: PolicyV1RenderChatOptions): PolicyV1RenderedChat {
    const text = this.render(options);
    return { text, tokenIds: this.encode(text) };
  }

  renderChatDelta(
    options: PolicyV1RenderChatDeltaOptions,
  ): PolicyV1RenderedChat {
    const previous = this.render({
      messages: options.messages.slice(0, options.previousMessageCount),
    });
    const cut = previous.length === 0 ? 0 : previous.length - 1; // keep the "\n" after <|im_end|>
    const text = this.render(options).slice(cut);
    return { text, tokenIds: this.encode(text) };
  }
}

/**
 * A {@link PolicyV1} test double. Each method answers with its configured
 * handler (a function, a result, or a list of results returned in order);
 * calls are recorded in `calls`; an unconfigured method throws `INVALID_STATE`.
 */
export class MockPolicyV1 implements PolicyV1 {
  readonly specificationVersion = 'v1' as const;
  readonly policyId: string;
  readonly tokenizer: PolicyV1Tokenizer;
  readonly maxSequenceLength: number;
  readonly trainable: boolean;
  /** Recorded calls, per method, in order. */
  readonly calls: {
    generate: PolicyV1GenerateOptions[];
    score: PolicyV1ScoreOptions[];
    train: PolicyV1TrainOptions[];
    save: Array<{ directory: string }>;
    load: Array<{ directory: string }>;
    resetCache: number;
  } = { generate: [], score: [], train: [], save: [], load: [], resetCache: 0 };
  private readonly handlers: {
    generate?: MockHandler<PolicyV1GenerateOptions, PolicyV1GenerateResult>;
    score?: MockHandler<PolicyV1ScoreOptions, PolicyV1ScoreResult>;
    train?: MockHandler<PolicyV1TrainOptions, PolicyV1TrainResult>;
  };
  private readonly onResetCache: (() => void) | undefined;
  private readonly counters = { generate: 0, score: 0, train: 0 };

  constructor(
    settings: {
      policyId?: string;
      tokenizer?: PolicyV1Tokenizer;
      maxSequenceLength?: number;
      trainable?: boolean;
      generate?: MockHandler<PolicyV1GenerateOptions, PolicyV1GenerateResult>;
      score?: MockHandler<PolicyV1ScoreOptions, PolicyV1ScoreResult>;
      train?: MockHandler<PolicyV1TrainOptions, PolicyV1TrainResult>;
      /** Called by `resetCache` (for a double whose output depends on what it cached). */
      onResetCache?: () => void;
    } = {},
  ) {
    this.policyId = settings.policyId ?? 'mock-policy';
    this.tokenizer = settings.tokenizer ?? new MockPolicyV1Tokenizer();
    this.maxSequenceLength = settings.maxSequenceLength ?? 4096;
    this.trainable = settings.trainable ?? true;
    this.onResetCache = settings.onResetCache;
    this.handlers = {
      ...(settings.generate === undefined
        ? {}
        : { generate: settings.generate }),
      ...(settings.score === undefined ? {} : { score: settings.score }),
      ...(settings.train === undefined ? {} : { train: settings.train }),
    };
  }

  private async answer<TOptions, TResult>(
    method: 'generate' | 'score' | 'train',
    options: TOptions,
  ): Promise<TResult> {
    const handler = this.handlers[method] as
      MockHandler<TOptions, TResult> | undefined;
    if (handler === undefined) {
      throw new SealError({
        code: 'INVALID_STATE',
        message: `MockPolicyV1.${method} is not configured`,
      });
    }
    const index = this.counters[method]++;
    if (typeof handler === 'function')
      return (handler as (options: TOptions) => TResult | PromiseLike<TResult>)(
        options,
      );
    if (Array.isArray(handler)) {
      const result = handler[index];
      if (result === undefined) {
        throw new SealError({
          code: 'INVALID_STATE',
          message: `MockPolicyV1.${method} has no result for call ${index + 1}`,
        });
      }
      return result;
    }
    return handler;
  }

  generate(options: PolicyV1GenerateOptions): Promise<PolicyV1GenerateResult> {
    this.calls.generate.push(options);
    return this.answer('generate', options);
  }

  score(options: PolicyV1ScoreOptions): Promise<PolicyV1ScoreResult> {
    this.calls.score.push(options);
    return this.answer('score', options);
  }

  train(options: PolicyV1TrainOptions): Promise<PolicyV1TrainResult> {
    this.calls.train.push(options);
    return this.answer('train', options);
  }

  async save(options: { directory: string }): Promise<void> {
    this.calls.save.push(options);
  }

  async load(options: { directory: string }): Promise<void> {
    this.calls.load.push(options);
  }

  async resetCache(): Promise<void> {
    this.calls.resetCache++;
    this.onResetCache?.();
  }

  async close(): Promise<void> {}
}

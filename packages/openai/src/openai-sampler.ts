import { mkdir, rm } from 'node:fs/promises';
import {
  SealError,
  safeParseWithSchema,
  type PolicyV1,
  type PolicyV1GenerateOptions,
  type PolicyV1GenerateResult,
  type PolicyV1Generation,
} from '@seal/spec';
import { apiRoot, listOpenAiModels } from './openai-chat-client';
import {
  openAiCompletionResponseSchema,
  type OpenAiCompletionRequest,
} from './openai-completions-wire';
import { postJsonWithRetries, type RetrySettings } from './openai-http';

/** Settings of {@link createOpenAiSampler}. */
export type OpenAiSamplerSettings = RetrySettings & {
  /** The server: `http://host:port` (then `/v1` is added) or its API root. */
  baseUrl: string;
  /** The `model` of every request. Default: the first model `/v1/models` lists. */
  model?: string;
  /** Sent as `Authorization: Bearer <apiKey>` when given. */
  apiKey?: string;
};

/** One sampled continuation, exactly as the server returned it. */
export type OpenAiSample = {
  /** The generated token ids (the stop token included when one ended it). */
  tokenIds: number[];
  /** The sampled tokens' log-probabilities, one per token. */
  logprobs: number[];
  /** `stop` (a stop token or string), else `length`. */
  finishReason: 'stop' | 'length';
};

/** A token-exact sampler over an OpenAI-compatible completions server. */
export type OpenAiSampler = {
  /** The server's API root (`…/v1`). */
  readonly url: string;
  /** The served model's name (resolved on the first call when not given). */
  model(): Promise<string>;
  /** Samples one continuation of a token-id prompt. */
  sample(options: {
    prompt: readonly number[];
    maxTokens: number;
    temperature: number;
    topP?: number;
    topK?: number;
    seed: number;
    stopTokenIds?: readonly number[];
    stopStrings?: readonly string[];
  }): Promise<OpenAiSample>;
  /**
   * Asks the server to load a checkpoint directory (SGLang's `POST
   * /update_weights_from_disk`, which `seal serve-policy --weight-updates`
   * also answers). The directory must be readable by the server.
   */
  updateWeights(directory: string): Promise<void>;
};

/**
 * A sampler over an OpenAI-compatible server that returns token ids and
 * per-token log-probabilities (vLLM 0.10.2+ with `return_token_ids`,
 * `seal serve-policy`): one `POST /v1/completions` per prompt, with the
 * prompt as token ids, so nothing is re-tokenised. Requests ask for
 * `logprobs`, `return_token_ids`, special tokens and stop strings kept.
 * An answer without `token_ids`, without per-token log-probabilities, with
 * a `prompt_token_ids` other than the prompt sent (token drift), or with
 * ids outside the vocabulary is one `INVALID_DATA` error naming the field.
 * Transient failures retry (see {@link postJsonWithRetries}).
 */
export function createOpenAiSampler(
  settings: OpenAiSamplerSettings,
): OpenAiSampler {
  const root = apiRoot(settings.baseUrl);
  const origin = new URL(root).origin;
  const headers: Record<string, string> =
    settings.apiKey === undefined
      ? {}
      : { authorization: `Bearer ${settings.apiKey}` };
  let model: Promise<string> | undefined;
  const resolveModel = (): Promise<string> =>
    (model ??=
      settings.model === undefined
        ? listOpenAiModels({
            baseUrl: settings.baseUrl,
            ...(settings.apiKey === undefined
              ? {}
              : { apiKey: settings.apiKey }),
            ...(settings.fetch === undefined ? {} : { fetch: settings.fetch }),
          }).then((models) => {
            const first = models[0];
            if (first === undefined) {
              throw new SealError({
                code: 'INVALID_DATA',
                message: `the sampler at ${root} lists no model (GET /v1/models)`,
              });
            }
            return first.id;
          })
        : Promise.resolve(settings.model));
  const refuse = (message: string, details: Record<string, unknown> = {}) =>
    new SealError({
      code: 'INVALID_DATA',
      message: `the sampler at ${root} ${message}`,
      details: { url: root, ...details },
    });

  return {
    url: root,
    model: resolveModel,
    async sample(options) {
      const topK = options.topK ?? 0;
      const request: OpenAiCompletionRequest = {
        model: await resolveModel(),
        prompt: [...options.prompt],
        max_tokens: options.maxTokens,
        temperature: options.temperature,
        ...(options.topP === undefined ? {} : { top_p: options.topP }),
        top_k: topK > 0 ? topK : -1,
        seed: options.seed,
        ...(options.stopTokenIds === undefined
          ? {}
          : { stop_token_ids: [...options.stopTokenIds] }),
        ...(options.stopStrings === undefined ||
        options.stopStrings.length === 0
          ? {}
          : { stop: [...options.stopStrings] }),
        logprobs: 1,
        return_token_ids: true,
        skip_special_tokens: false,
        include_stop_str_in_output: true,
        n: 1,
      };
      const url = `${root}/completions`;
      const parsed = safeParseWithSchema({
        schema: openAiCompletionResponseSchema,
        value: await postJsonWithRetries({
          url,
          body: request,
          headers,
          settings,
        }),
        source: `response of ${url}`,
      });
      if (!parsed.success) throw parsed.error;
      const choice = parsed.value.choices[0];
      if (choice === undefined) throw refuse('returned no choice');
      const tokenIds = choice.token_ids;
      if (tokenIds === undefined || tokenIds === null) {
        throw refuse(
          'returned no token ids (choices[0].token_ids): token-exact rollouts need a server that honours return_token_ids (vLLM 0.10.2 or later, seal serve-policy); re-tokenising the text would train on other tokens than were sampled',
          { field: 'choices[0].token_ids' },
        );
      }
      const logprobs = choice.logprobs?.token_logprobs;
      if (
        logprobs === undefined ||
        logprobs === null ||
        logprobs.length !== tokenIds.length ||
        logprobs.some((value) => value === null || !Number.isFinite(value))
      ) {
        throw refuse(
          `returned no per-token log-probabilities for its ${tokenIds.length} tokens (choices[0].logprobs.token_logprobs${logprobs ? `: ${logprobs.length} entries` : ' missing'}): truncated importance sampling needs the sampler's probability of each sampled token`,
          { field: 'choices[0].logprobs.token_logprobs' },
        );
      }
      const echoed = choice.prompt_token_ids;
      if (
        echoed !== undefined &&
        echoed !== null &&
        (echoed.length !== options.prompt.length ||
          echoed.some((token, t) => token !== options.prompt[t]))
      ) {
        throw refuse(
          `tokenised the prompt differently (choices[0].prompt_token_ids has ${echoed.length} tokens, ${options.prompt.length} were sent)`,
          { field: 'choices[0].prompt_token_ids' },
        );
      }
      return {
        tokenIds: [...tokenIds],
        logprobs: logprobs as number[],
        finishReason: choice.finish_reason === 'length' ? 'length' : 'stop',
      };
    },
    async updateWeights(directory) {
      const answer = (await postJsonWithRetries({
        url: `${origin}/update_weights_from_disk`,
        body: { model_path: directory },
        headers,
        settings,
      })) as { success?: unknown; message?: unknown };
      if (answer.success !== true) {
        throw refuse(
          `did not load ${directory}: ${typeof answer.message === 'string' ? answer.message : 'no success in its answer'}`,
        );
      }
    },
  };
}

/** How the sampler gets the trainer's weights. */
export type SamplerWeightSync = 'disk' | 'none';

/** Settings of {@link createSampledPolicy}. */
export type SampledPolicySettings = {
  /** Trains, scores, saves and loads; its tokenizer is the sampler's. */
  trainer: PolicyV1;
  /** Generates every sequence. */
  sampler: OpenAiSampler;
  /**
   * `disk`: before a `generate` that follows a weight change (and before the
   * first), the trainer saves a checkpoint into `syncDirectory` and the
   * sampler loads it ({@link OpenAiSampler.updateWeights}), so rollouts come
   * from the trainer's weights (the directory must be readable by the
   * server). `none`: the server keeps whatever weights it has (sync them
   * yourself; importance sampling corrects only a small mismatch).
   */
  sync: SamplerWeightSync;
  /** Where `disk` writes the checkpoint (replaced each time). */
  syncDirectory?: string;
  /** Prompts sampled at once. Default 16. */
  concurrency?: number;
};

/** A trainer policy whose generations come from an OpenAI-compatible sampler. */
export type SampledPolicy = PolicyV1 & {
  /** The sampler's API root. */
  readonly samplerUrl: string;
  /** Weight loads the sampler was sent. */
  readonly weightSyncs: number;
};

/**
 * A {@link PolicyV1} that samples from an OpenAI-compatible server and
 * trains in `trainer`: `generate` sends prompt `i` as token ids with seed
 * `seed + i` (a seed per request: vLLM gives every prompt of a batch the
 * same seed, which would make a group's rollouts identical) and returns the
 * server's tokens and log-probabilities unchanged, so the loop trains on
 * exactly the sampled tokens; `score`, `train`, `save`, `load` and
 * `resetCache` are the trainer's. `logprobs` are the sampler's (the
 * behaviour policy); `modelLogprobs` repeat them (the server reports one
 * distribution). Chat prompts are rendered with the trainer's tokenizer.
 */
export function createSampledPolicy(
  settings: SampledPolicySettings,
): SampledPolicy {
  const { trainer, sampler } = settings;
  const concurrency = settings.concurrency ?? 16;
  if (settings.sync === 'disk' && settings.syncDirectory === undefined) {
    throw new SealError({
      code: 'INVALID_ARGUMENT',
      message: 'sampler weight sync disk needs a syncDirectory',
    });
  }
  let stale = true;
  let weightSyncs = 0;
  let tail: Promise<unknown> = Promise.resolve();
  // Calls run in call order, as PolicyV1 promises.
  const serial = <T>(run: () => Promise<T>): Promise<T> => {
    const next = tail.then(run, run);
    tail = next.catch(() => undefined);
    return next;
  };
  const syncWeights = async (): Promise<void> => {
    if (settings.sync !== 'disk' || !stale) return;
    const directory = settings.syncDirectory!;
    await rm(directory, { recursive: true, force: true });
    await mkdir(directory, { recursive: true });
    await trainer.save({ directory });
    await sampler.updateWeights(directory);
    weightSyncs++;
    stale = false;
  };
  const generate = async (
    options: PolicyV1GenerateOptions,
  ): Promise<PolicyV1GenerateResult> => {
    await syncWeights();
    const tokenizer = trainer.tokenizer;
    const prompts =
      options.prompts ??
      (options.chats ?? []).map(
        (chat) =>
          tokenizer.renderChat({
            messages: chat.messages,
            addGenerationPrompt: true,
            ...(chat.tools ? { tools: chat.tools } : {}),
          }).tokenIds,
      );
    const seed = options.seed ?? 0;
    const generations: PolicyV1Generation[] = new Array(prompts.length);
    let next = 0;
    const worker = async (): Promise<void> => {
      while (next < prompts.length) {
        const index = next++;
        const prompt = prompts[index]!;
        const sample = await sampler.sample({
          prompt,
          maxTokens: options.maxTokens,
          temperature: options.temperature ?? 1,
          ...(options.topP === undefined ? {} : { topP: options.topP }),
          ...(options.topK === undefined ? {} : { topK: options.topK }),
          seed: seed + index,
          stopTokenIds: options.stopTokenIds ?? tokenizer.stopTokenIds,
          ...(options.stopStrings === undefined
            ? {}
            : { stopStrings: options.stopStrings }),
        });
        const outside = sample.tokenIds.find(
          (token) => token >= tokenizer.vocabSize,
        );
        if (outside !== undefined) {
          throw new SealError({
            code: 'INVALID_DATA',
            message: `the sampler at ${sampler.url} returned token id ${outside}, outside the trainer's vocabulary (${tokenizer.vocabSize} tokens): it serves another model`,
          });
        }
        generations[index] = {
          tokenIds: sample.tokenIds,
          text: tokenizer.decode(sample.tokenIds),
          logprobs: sample.logprobs,
          modelLogprobs: [...sample.logprobs],
          finishReason: sample.finishReason,
          promptTokenIds: [...prompt],
        };
      }
    };
    await Promise.all(
      Array.from({ length: Math.min(concurrency, prompts.length) }, worker),
    );
    return {
      generations,
      usage: {
        promptTokens: prompts.reduce((sum, prompt) => sum + prompt.length, 0),
        completionTokens: generations.reduce(
          (sum, generation) => sum + generation.tokenIds.length,
          0,
        ),
      },
    };
  };
  return {
    specificationVersion: 'v1',
    policyId: `sampler:${sampler.url}+${trainer.policyId}`,
    tokenizer: trainer.tokenizer,
    maxSequenceLength: trainer.maxSequenceLength,
    trainable: trainer.trainable,
    samplerUrl: sampler.url,
    get weightSyncs() {
      return weightSyncs;
    },
    generate: (options) => serial(() => generate(options)),
    score: (options) => serial(async () => trainer.score(options)),
    train: (options) =>
      serial(async () => {
        const result = await trainer.train(options);
        if (!result.skipped) stale = true;
        return result;
      }),
    save: (options) => serial(async () => trainer.save(options)),
    load: (options) =>
      serial(async () => {
        await trainer.load(options);
        stale = true;
      }),
    resetCache: () => serial(async () => trainer.resetCache?.()),
    close: () => serial(async () => trainer.close()),
  };
}

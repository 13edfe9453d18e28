import { SealError } from '@seal/spec';
import type { EngineContext } from './engine-context';
import {
  generateChunk,
  type EngineGenerateOptions,
  type EngineGeneration,
  type GenerationRuntime,
} from './generate-chunk';
import { checkTokens } from './input-checks';
import { prefixMaxNewTokens, prefixMinTokens } from './prefix-cache';

/**
 * Batched generation: a left-padded prefill, then one decode step per
 * token against a static KV cache. A prompt that extends a sequence this
 * engine generated before with the same weights (the next call of a
 * multi-turn episode) skips the prefill: its cached keys and values are
 * copied in and only its new tokens run, in one extend step. Prompts are
 * decoded in chunks of at most `maxGenerateBatch` ({@link generateChunk}).
 */
export async function generate(
  context: EngineContext,
  options: EngineGenerateOptions,
): Promise<EngineGeneration[]> {
  checkPrompts(context, options);
  const { prefixCache, settings } = context;
  // Prompts that extend a cached sequence run only their new tokens (one
  // extend step against the cached keys and values); the others are
  // prefilled. The two kinds are decoded in separate batches.
  const hits = options.prompts.map((prompt) => {
    const hit = prefixCache.match(prompt, prefixMinTokens);
    return hit !== undefined && prompt.length - hit.length <= prefixMaxNewTokens
      ? hit
      : undefined;
  });
  const results = new Array<EngineGeneration>(options.prompts.length);
  const chunk = settings.maxGenerateBatch;
  for (const cached of [false, true]) {
    const indices = options.prompts
      .map((_, i) => i)
      .filter((i) => (hits[i] !== undefined) === cached);
    for (let start = 0; start < indices.length; start += chunk) {
      const part = indices.slice(start, start + chunk);
      const generations = await generateChunk({
        runtime: generationRuntime(context),
        options,
        indices: part,
        past: cached ? part.map((i) => hits[i]!) : undefined,
      });
      part.forEach((index, k) => (results[index] = generations[k]!));
    }
  }
  return results;
}

/** Throws `INVALID_ARGUMENT` for an empty prompt, an unknown token or a prompt plus `maxTokens` past the model's positions. */
function checkPrompts(
  { config }: EngineContext,
  options: EngineGenerateOptions,
): void {
  options.prompts.forEach((prompt, i) => {
    if (prompt.length === 0) {
      throw new SealError({
        code: 'INVALID_ARGUMENT',
        message: `prompts[${i}] is empty`,
      });
    }
    checkTokens(config, prompt, `prompts[${i}]`);
    if (prompt.length + options.maxTokens > config.maxPositionEmbeddings) {
      throw new SealError({
        code: 'INVALID_ARGUMENT',
        message: `prompts[${i}]: ${prompt.length} prompt tokens plus maxTokens ${options.maxTokens} exceed the model's ${config.maxPositionEmbeddings} positions`,
      });
    }
  });
}

/** What generation needs of the engine (see {@link generateChunk}). */
function generationRuntime({
  config,
  prefixCache,
  settings,
  matmulPrecision,
  residency,
  sessions,
}: EngineContext): GenerationRuntime {
  return {
    config,
    prefixCache,
    threads: settings.threads,
    decodeThreads: settings.decodeThreads,
    matmulPrecision,
    residentCache: settings.resident,
    decodeAttention: settings.decodeAttention,
    modelWeightFeeds: () => residency.modelWeightFeeds(),
    session: (key, build, threads, options) =>
      sessions.get(key, build, threads, options),
  };
}

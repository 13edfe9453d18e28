import { SealError } from '@seal/spec';
import type { SeededRandom } from '../io/seeded-random';

/** Sampling settings of one generate call. */
export type SamplingSettings = {
  /** 0 = greedy. */
  temperature: number;
  /** 1 = off. */
  topP: number;
  /** 0 = off. */
  topK: number;
};

/** A sampled token with its log-probabilities. */
export type SampledToken = {
  /** The token id. */
  tokenId: number;
  /** Log-probability under the distribution sampled from (0 for greedy). */
  logprob: number;
  /** Log-probability under the raw model distribution. */
  modelLogprob: number;
};

/**
 * Samples one token from a row of logits with temperature, top-k and top-p
 * (nucleus) truncation, in fp64. Ties in greedy decoding go to the lowest id.
 * `suppress` holds ids that are never drawn; they stay in every normaliser,
 * so the log-probabilities reported are those of the unconstrained model.
 */
export function sampleToken({
  logits,
  settings,
  random,
  suppress,
}: {
  logits: ArrayLike<number>;
  settings: SamplingSettings;
  random: SeededRandom;
  suppress?: ReadonlySet<number>;
}): SampledToken {
  const vocab = logits.length;
  let max = -Infinity;
  for (let i = 0; i < vocab; i++) if (logits[i]! > max) max = logits[i]!;
  const banned = suppress === undefined || suppress.size === 0 ? undefined : suppress;
  let argmax = -1;
  for (let i = 0; i < vocab; i++) {
    if (banned?.has(i)) continue;
    if (argmax < 0 || logits[i]! > logits[argmax]!) argmax = i;
  }
  if (argmax < 0) throw new SealError({ code: 'INVALID_ARGUMENT', message: 'sampling: every token is suppressed' });
  let total = 0;
  for (let i = 0; i < vocab; i++) total += Math.exp(logits[i]! - max);
  const logNormaliser = max + Math.log(total);
  const modelLogprob = (id: number): number => logits[id]! - logNormaliser;
  if (settings.temperature === 0) {
    return { tokenId: argmax, logprob: 0, modelLogprob: modelLogprob(argmax) };
  }
  const inverseTemperature = 1 / settings.temperature;
  let candidates: number[] | undefined;
  if (settings.topK > 0 && settings.topK < vocab) {
    candidates = sortedIndices(logits).slice(0, settings.topK);
  }
  // Weights proportional to exp((logit - max) / T) over the candidates.
  const weightOf = (id: number): number => Math.exp((logits[id]! - max) * inverseTemperature);
  if (settings.topP < 1) {
    const ordered = candidates ?? sortedIndices(logits);
    let mass = 0;
    for (const id of ordered) mass += weightOf(id);
    const kept: number[] = [];
    let cumulative = 0;
    for (const id of ordered) {
      kept.push(id);
      cumulative += weightOf(id) / mass;
      if (cumulative >= settings.topP) break;
    }
    candidates = kept;
  }
  let sum = 0;
  if (candidates === undefined) for (let i = 0; i < vocab; i++) sum += weightOf(i);
  else for (const id of candidates) sum += weightOf(id);
  // The draw runs over the candidates that are not suppressed.
  const ids = candidates ?? null;
  const count = ids === null ? vocab : ids.length;
  let drawable = sum;
  let chosen = -1;
  if (banned) {
    for (const id of banned) if (id < vocab && (ids === null || ids.includes(id))) drawable -= weightOf(id);
  }
  for (let k = count - 1; k >= 0 && chosen < 0; k--) {
    const id = ids === null ? k : ids[k]!;
    if (!banned?.has(id)) chosen = id;
  }
  if (chosen < 0 || !(drawable > 0)) chosen = argmax;
  let threshold = random.nextFloat() * drawable;
  for (let k = 0; k < count; k++) {
    const id = ids === null ? k : ids[k]!;
    if (banned?.has(id)) continue;
    threshold -= weightOf(id);
    if (threshold < 0) {
      chosen = id;
      break;
    }
  }
  return { tokenId: chosen, logprob: Math.log(weightOf(chosen) / sum), modelLogprob: modelLogprob(chosen) };
}

function sortedIndices(logits: ArrayLike<number>): number[] {
  const ids = Array.from({ length: logits.length }, (_, i) => i);
  return ids.sort((a, b) => logits[b]! - logits[a]! || a - b);
}

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
  const banned =
    suppress === undefined || suppress.size === 0 ? undefined : suppress;
  const bannedMask = banned === undefined ? undefined : maskOf(banned, vocab);
  let max = -Infinity;
  let argmax = -1;
  for (let i = 0; i < vocab; i++) {
    const logit = logits[i]!;
    if (logit > max) max = logit;
    if (bannedMask?.[i] === 1) continue;
    if (argmax < 0 || logit > logits[argmax]!) argmax = i;
  }
  if (argmax < 0)
    throw new SealError({
      code: 'INVALID_ARGUMENT',
      message: 'sampling: every token is suppressed',
    });
  // exp(logit - max) once per id: the model's normaliser, and at T = 1 the
  // sampling weights too ((x - max) · 1 is exactly x - max).
  const exps = scratch(vocab);
  let total = 0;
  for (let i = 0; i < vocab; i++) {
    const e = Math.exp(logits[i]! - max);
    exps[i] = e;
    total += e;
  }
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
  const weightOf =
    inverseTemperature === 1
      ? (id: number): number => exps[id]!
      : (id: number): number =>
          Math.exp((logits[id]! - max) * inverseTemperature);
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
  // Untruncated sampling at T ≠ 1 computes each weight once, into the scratch.
  if (candidates === undefined && inverseTemperature !== 1) {
    for (let i = 0; i < vocab; i++)
      exps[i] = Math.exp((logits[i]! - max) * inverseTemperature);
  }
  const weight =
    candidates === undefined ? (id: number): number => exps[id]! : weightOf;
  let sum = 0;
  if (candidates === undefined) for (let i = 0; i < vocab; i++) sum += exps[i]!;
  else for (const id of candidates) sum += weightOf(id);
  // The draw runs over the candidates that are not suppressed.
  const ids = candidates ?? null;
  const count = ids === null ? vocab : ids.length;
  let drawable = sum;
  let chosen = -1;
  if (banned) {
    for (const id of banned)
      if (id < vocab && (ids === null || ids.includes(id)))
        drawable -= weight(id);
  }
  for (let k = count - 1; k >= 0 && chosen < 0; k--) {
    const id = ids === null ? k : ids[k]!;
    if (bannedMask?.[id] !== 1) chosen = id;
  }
  if (chosen < 0 || !(drawable > 0)) chosen = argmax;
  let threshold = random.nextFloat() * drawable;
  for (let k = 0; k < count; k++) {
    const id = ids === null ? k : ids[k]!;
    if (bannedMask?.[id] === 1) continue;
    threshold -= weight(id);
    if (threshold < 0) {
      chosen = id;
      break;
    }
  }
  return {
    tokenId: chosen,
    logprob: Math.log(weight(chosen) / sum),
    modelLogprob: modelLogprob(chosen),
  };
}

let scratchBuffer = new Float64Array(0);

/** A reusable buffer of at least `length` doubles (sampling runs on one thread at a time). */
function scratch(length: number): Float64Array {
  if (scratchBuffer.length < length) scratchBuffer = new Float64Array(length);
  return scratchBuffer;
}

const masks = new WeakMap<ReadonlySet<number>, Uint8Array>();

/** A 0/1 mask over the vocabulary of the ids in `ids` (cached per set). */
function maskOf(ids: ReadonlySet<number>, vocab: number): Uint8Array {
  let mask = masks.get(ids);
  if (mask === undefined || mask.length !== vocab) {
    mask = new Uint8Array(vocab);
    for (const id of ids)
      if (Number.isInteger(id) && id >= 0 && id < vocab) mask[id] = 1;
    masks.set(ids, mask);
  }
  return mask;
}

function sortedIndices(logits: ArrayLike<number>): number[] {
  const ids = Array.from({ length: logits.length }, (_, i) => i);
  return ids.sort((a, b) => logits[b]! - logits[a]! || a - b);
}

import type { PromptFormat } from '@seal/cod';
import { codEmbeddedSampling, codLiteralSampling } from './cod-embedded-model';

/**
 * Per-preset sizes of `seal train --method cod`. `smoke` is a plumbing check
 * that must finish in well under 3 minutes on 2 loaded cores, warm start
 * included: 2 steps of one pack run twice, and 2 evaluation packs of 8
 * before and after, with short update responses.
 */
export const codPresets = {
  smoke: {
    steps: 2,
    packsPerStep: 1,
    groupSize: 2,
    evalPacks: 2,
    maxTokens: 16,
    updateMaxTokens: 48,
    learningRate: 1e-5,
    format: 'paper',
  },
  default: {
    steps: 12,
    packsPerStep: 4,
    groupSize: 8,
    evalPacks: 16,
    maxTokens: 16,
    updateMaxTokens: 128,
    learningRate: 1e-5,
    format: 'paper',
  },
  extended: {
    steps: 24,
    packsPerStep: 4,
    groupSize: 8,
    evalPacks: 32,
    maxTokens: 16,
    updateMaxTokens: 128,
    learningRate: 1e-5,
    format: 'paper',
  },
  study: {
    steps: 24,
    packsPerStep: 4,
    groupSize: 8,
    evalPacks: 32,
    maxTokens: 16,
    updateMaxTokens: 128,
    learningRate: 1e-5,
    format: 'paper',
  },
  // FrozenLake-Obscure with the embedded CoD model (cod-embedded-model.ts) and compact prompts, whose replies reason first.
  embedded: {
    steps: 10,
    packsPerStep: 2,
    groupSize: 8,
    evalPacks: 24,
    ...codEmbeddedSampling,
    learningRate: 2e-4,
    format: 'compact',
  },
  // FrozenLake-Obscure with literal observations (`--env frozen-lake-literal`, decision 0041): the embedded model's
  // shape warm-started on that setting; updates write the hint block alone.
  literal: {
    steps: 10,
    packsPerStep: 2,
    groupSize: 8,
    evalPacks: 24,
    ...codLiteralSampling,
    learningRate: 2e-4,
    format: 'compact',
  },
} as const satisfies Record<
  string,
  { format: PromptFormat } & Record<string, unknown>
>;

/** A preset name of {@link codPresets}. */
export type CodPresetName = keyof typeof codPresets;

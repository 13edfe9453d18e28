import { SealError } from '@seal/spec';
import type { ModelConfig } from '../model/model-config';

/** Throws `INVALID_ARGUMENT` unless every id is in the vocabulary and the sequence fits the model's positions. */
export function checkTokens(
  config: ModelConfig,
  sequence: readonly number[],
  where: string,
): void {
  for (const id of sequence) {
    if (!Number.isInteger(id) || id < 0 || id >= config.vocabSize) {
      throw new SealError({
        code: 'INVALID_ARGUMENT',
        message: `${where}: token id ${id} is outside the model vocabulary [0, ${config.vocabSize})`,
      });
    }
  }
  if (sequence.length > config.maxPositionEmbeddings) {
    throw new SealError({
      code: 'INVALID_ARGUMENT',
      message: `${where}: ${sequence.length} tokens exceed the model's ${config.maxPositionEmbeddings} positions`,
    });
  }
}

/** Throws `INVALID_ARGUMENT` unless the temperature is a positive number. */
export function checkTemperature(temperature: number, where: string): void {
  if (!(Number.isFinite(temperature) && temperature > 0)) {
    throw new SealError({
      code: 'INVALID_ARGUMENT',
      message: `${where}: temperature must be a positive number, got ${temperature}`,
    });
  }
}

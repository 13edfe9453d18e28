import { buildScoreGraph } from '../model/graph-families';
import type { EngineContext } from './engine-context';
import { checkTemperature, checkTokens } from './input-checks';
import { microBatches } from './micro-batches';
import {
  inverseTemperatureTensor,
  sequenceFeedTensors,
} from './sequence-tensors';

/**
 * Per-token log-probabilities aligned with each sequence (`[0] = 0`), under
 * `softmax(logits / temperature)`, in micro-batches of the score graph.
 */
export async function scoreSequences(
  context: EngineContext,
  sequences: ReadonlyArray<readonly number[]>,
  temperature: number,
): Promise<number[][]> {
  const { config, settings, sessions, residency, matmulPrecision } = context;
  checkTemperature(temperature, 'score');
  sequences.forEach((sequence, i) =>
    checkTokens(config, sequence, `sequences[${i}]`),
  );
  const inverseTemperature = inverseTemperatureTensor(temperature);
  const results: number[][] = sequences.map((sequence) =>
    new Array<number>(sequence.length).fill(0),
  );
  for (const { bucket, indices } of microBatches(
    sequences.map((s) => s.length),
    settings.microBatchTokens,
  )) {
    const session = await sessions.get(
      `score:${bucket.batch}:${bucket.length}`,
      () => buildScoreGraph({ config, bucket, matmulPrecision }),
      settings.threads,
    );
    const rows = indices.map((i) => sequences[i]!);
    const feeds = sequenceFeedTensors({ config, bucket, rows });
    const output = await session.run({
      ...(await residency.modelWeightFeeds()),
      ...feeds,
      inverse_temperature: inverseTemperature,
    });
    const logprobs = output.logprobs!.data as Float32Array;
    indices.forEach((index, row) => {
      const out = results[index]!;
      for (let t = 1; t < out.length; t++)
        out[t] = logprobs[row * bucket.length + t - 1]!;
    });
  }
  return results;
}

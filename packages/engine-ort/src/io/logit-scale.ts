import { existsSync, readFileSync } from 'node:fs';
import { decodeSafetensors } from './safetensors';

/** The mean of the final norm's gain (`model.norm.weight`) in a safetensors file; undefined when absent. */
function finalNormGain(file: string): number | undefined {
  if (!existsSync(file)) return undefined;
  const tensor = decodeSafetensors({
    bytes: readFileSync(file),
    source: file,
  }).tensors.get('model.norm.weight');
  if (!tensor || tensor.data.length === 0) return undefined;
  return tensor.data.reduce((sum, x) => sum + x, 0) / tensor.data.length;
}

/**
 * The logits' scale a model learned over its base: the mean of the final
 * norm's gain (`model.norm.weight`) in `modelFile` over that in
 * `baseModelFile` (both `model.safetensors`). Multiplying that gain by s is
 * sampling the base at temperature 1/s. Undefined when either file is
 * missing, unreadable or has no such gain, or the base's mean is 0.
 */
export function learnedLogitScale({
  baseModelFile,
  modelFile,
}: {
  baseModelFile: string;
  modelFile: string;
}): number | undefined {
  try {
    const before = finalNormGain(baseModelFile);
    const after = finalNormGain(modelFile);
    if (before === undefined || after === undefined || before === 0)
      return undefined;
    return after / before;
  } catch {
    return undefined;
  }
}

import { SealError } from '@seal/spec';
import { existsSync } from 'node:fs';
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import {
  parseModelConfig,
  toHuggingFaceConfig,
  type ModelConfig,
} from '../model/model-config';
import {
  FlatTensors,
  listWeightSpecs,
  weightsFromTensors,
} from '../model/model-weights';
import { decodeSafetensors, encodeSafetensors } from './safetensors';

/** Optimizer state of a checkpoint: Adam moments, step and (fp16 training) the loss scaler's state. */
export type CheckpointOptimizerState = {
  m: FlatTensors;
  v: FlatTensors;
  step: number;
  /** The dynamic loss scale and its count of good steps (metadata `loss_scale`, `loss_scale_good_steps`). */
  lossScale?: { scale: number; goodSteps: number } | undefined;
};

/** Weights, config and (optionally) optimizer state of a checkpoint directory. */
export type ModelDirectoryContents = {
  /** The model description from `config.json`. */
  config: ModelConfig;
  /** The weights from `model.safetensors`. */
  weights: FlatTensors;
  /** Adam moments, step and loss scale from `optimizer.safetensors`, when present. */
  optimizer: CheckpointOptimizerState | undefined;
};

/** File names inside a checkpoint directory. */
export const modelFiles = {
  config: 'config.json',
  weights: 'model.safetensors',
  optimizer: 'optimizer.safetensors',
  tokenizer: 'tokenizer.json',
  tokenizerConfig: 'tokenizer_config.json',
} as const;

async function readRequired(path: string): Promise<Buffer> {
  try {
    return await readFile(path);
  } catch (cause) {
    throw new SealError({
      code: 'FILE_NOT_FOUND',
      message: `cannot read ${path}`,
      cause,
      details: { path },
    });
  }
}

/** Reads the model config of a directory (`FILE_NOT_FOUND`, `INVALID_DATA`). */
export async function readModelConfig(directory: string): Promise<ModelConfig> {
  const path = join(directory, modelFiles.config);
  return parseModelConfig({
    text: (await readRequired(path)).toString('utf8'),
    source: path,
  });
}

/**
 * Reads `config.json`, `model.safetensors` and, when present,
 * `optimizer.safetensors`. A `config` argument, when given, is the model the
 * weights must fit (its shapes win over the directory's config).
 */
export async function readModelDirectory({
  directory,
  config,
}: {
  directory: string;
  config?: ModelConfig;
}): Promise<ModelDirectoryContents> {
  const modelConfig = config ?? (await readModelConfig(directory));
  const weightsPath = join(directory, modelFiles.weights);
  const { tensors } = decodeSafetensors({
    bytes: await readRequired(weightsPath),
    source: weightsPath,
  });
  const weights = weightsFromTensors({
    config: modelConfig,
    tensors,
    source: weightsPath,
  });
  const optimizerPath = join(directory, modelFiles.optimizer);
  let optimizer: ModelDirectoryContents['optimizer'];
  if (existsSync(optimizerPath)) {
    const contents = decodeSafetensors({
      bytes: await readRequired(optimizerPath),
      source: optimizerPath,
    });
    const pick = (
      prefix: string,
    ): Map<string, { shape: number[]; data: Float32Array }> =>
      new Map(
        [...contents.tensors]
          .filter(([name]) => name.startsWith(prefix))
          .map(([name, tensor]) => [name.slice(prefix.length), tensor]),
      );
    const step = Number(contents.metadata.step ?? '0');
    if (!Number.isInteger(step) || step < 0) {
      throw new SealError({
        code: 'INVALID_DATA',
        message: `${optimizerPath}: bad step '${contents.metadata.step}'`,
      });
    }
    const lossScale = readLossScale(contents.metadata, optimizerPath);
    optimizer = {
      m: weightsFromTensors({
        config: modelConfig,
        tensors: pick('m.'),
        source: optimizerPath,
      }),
      v: weightsFromTensors({
        config: modelConfig,
        tensors: pick('v.'),
        source: optimizerPath,
      }),
      step,
      ...(lossScale === undefined ? {} : { lossScale }),
    };
  }
  return { config: modelConfig, weights, optimizer };
}

function readLossScale(
  metadata: Record<string, string>,
  source: string,
): CheckpointOptimizerState['lossScale'] {
  const scaleText = metadata['loss_scale'];
  if (scaleText === undefined) return undefined;
  const scale = Number(scaleText);
  const goodSteps = Number(metadata['loss_scale_good_steps'] ?? '0');
  if (
    !(Number.isFinite(scale) && scale > 0) ||
    !Number.isInteger(goodSteps) ||
    goodSteps < 0
  ) {
    throw new SealError({
      code: 'INVALID_DATA',
      message: `${source}: bad loss scale '${scaleText}' / good steps '${metadata['loss_scale_good_steps']}'`,
    });
  }
  return { scale, goodSteps };
}

/** Writes a file atomically (temp file, then rename). */
export async function writeFileAtomic(
  path: string,
  data: Uint8Array | string,
): Promise<void> {
  const temporary = `${path}.tmp-${process.pid}-${Date.now()}`;
  await writeFile(temporary, data);
  await rename(temporary, path);
}

/** Writes `config.json`, `model.safetensors` and (when given) `optimizer.safetensors`. */
export async function writeModelDirectory({
  directory,
  config,
  weights,
  optimizer,
}: {
  directory: string;
  config: ModelConfig;
  weights: FlatTensors;
  optimizer?: CheckpointOptimizerState;
}): Promise<void> {
  await mkdir(directory, { recursive: true });
  await writeFileAtomic(
    join(directory, modelFiles.config),
    `${JSON.stringify(toHuggingFaceConfig(config), null, 2)}\n`,
  );
  await writeFileAtomic(
    join(directory, modelFiles.weights),
    encodeSafetensors({
      tensors: weights.entries(),
      metadata: { format: 'pt' },
    }),
  );
  if (optimizer !== undefined) {
    const tensors = [
      ...optimizer.m
        .entries()
        .map(([name, tensor]): [string, typeof tensor] => [
          `m.${name}`,
          tensor,
        ]),
      ...optimizer.v
        .entries()
        .map(([name, tensor]): [string, typeof tensor] => [
          `v.${name}`,
          tensor,
        ]),
    ];
    await writeFileAtomic(
      join(directory, modelFiles.optimizer),
      encodeSafetensors({
        tensors,
        metadata: {
          step: String(optimizer.step),
          ...(optimizer.lossScale === undefined
            ? {}
            : {
                loss_scale: String(optimizer.lossScale.scale),
                loss_scale_good_steps: String(optimizer.lossScale.goodSteps),
              }),
        },
      }),
    );
  }
}

/** Fresh zero optimizer state for a config. */
export function emptyOptimizerState(config: ModelConfig): {
  m: FlatTensors;
  v: FlatTensors;
  step: number;
} {
  const specs = listWeightSpecs(config);
  return { m: new FlatTensors(specs), v: new FlatTensors(specs), step: 0 };
}

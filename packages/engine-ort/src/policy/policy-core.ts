import { SealError } from '@seal/spec';
import { join } from 'node:path';
import {
  OrtEngine,
  type EngineGeneration,
  type EngineTrainResult,
  type OrtEngineSettings,
} from '../engine/ort-engine';
import type { SamplingSettings } from '../engine/sampler';
import {
  modelFiles,
  readModelConfig,
  readModelDirectory,
  writeFileAtomic,
  writeModelDirectory,
} from '../io/model-directory';
import type { TrainObjective } from '../model/graph-families';
import { validateModelConfig, type ModelConfig } from '../model/model-config';
import { initializeWeights } from '../model/model-weights';
import {
  HuggingFaceTokenizer,
  readTokenizerFiles,
  type TokenizerFiles,
} from '../tokenizer/hf-tokenizer';
import type {
  EngineTrainSequence,
  EngineTrainSettings,
} from '../engine/ort-engine';

/** Where a policy's model comes from. */
export type PolicyModelSource =
  | {
      /** A checkpoint or Hugging Face model directory (config.json + model.safetensors). */
      directory: string;
    }
  | {
      /** A from-scratch model description. */
      config: ModelConfig;
      /** Seed of the random initialisation. */
      seed: number;
    };

/** Everything needed to start a policy core; structured-cloneable (it crosses to the worker). */
export type PolicyCoreInit = {
  /** The model. */
  model: PolicyModelSource;
  /** Tokenizer files; default: the ones in `model.directory`. */
  tokenizerFiles?: TokenizerFiles | undefined;
  /** Engine settings (execution provider, threads, batching). */
  engine?: OrtEngineSettings | undefined;
};

/** A token-level generate request. */
export type CoreGenerateRequest = {
  prompts: number[][];
  maxTokens: number;
  sampling: SamplingSettings;
  stopTokenIds: number[];
  stopStrings: string[];
  /** Token ids never sampled (the tokenizer's control tokens). */
  suppressTokenIds?: number[];
  seed: number;
};

/** A score request with defaults applied. */
export type CoreScoreRequest = { sequences: number[][]; temperature: number };

/** A training request with defaults applied. */
export type CoreTrainRequest = {
  objective: TrainObjective;
  sequences: EngineTrainSequence[];
  settings: EngineTrainSettings;
};

/** Static facts about a started core. */
export type PolicyCoreInfo = {
  config: ModelConfig;
  tokenizerFiles: TokenizerFiles;
};

/**
 * The engine side of a policy: model, tokenizer (for stop strings and for
 * saving), and the ORT engine. It runs in the worker thread (or in process
 * with `worker: false`); every method takes and returns plain data.
 */
export class PolicyCore {
  private readonly engine: OrtEngine;
  private readonly tokenizer: HuggingFaceTokenizer;
  /** Model and tokenizer facts. */
  readonly info: PolicyCoreInfo;

  private constructor({
    engine,
    tokenizer,
  }: {
    engine: OrtEngine;
    tokenizer: HuggingFaceTokenizer;
  }) {
    this.engine = engine;
    this.tokenizer = tokenizer;
    this.info = { config: engine.config, tokenizerFiles: tokenizer.files };
  }

  /**
   * Loads or initialises the model and the tokenizer, and checks that every
   * tokenizer id fits the model's vocabulary (`VOCAB_MISMATCH` otherwise).
   */
  static async create(init: PolicyCoreInit): Promise<PolicyCore> {
    let engine: OrtEngine;
    if ('directory' in init.model) {
      const contents = await readModelDirectory({
        directory: init.model.directory,
      });
      engine = new OrtEngine({
        config: contents.config,
        weights: contents.weights,
        settings: init.engine ?? {},
      });
      if (contents.optimizer !== undefined) {
        engine.setOptimizerState({
          m: contents.optimizer.m.buffer,
          v: contents.optimizer.v.buffer,
          step: contents.optimizer.step,
        });
        engine.setLossScaleState(contents.optimizer.lossScale);
      }
    } else {
      validateModelConfig(init.model.config);
      const weights = initializeWeights({
        config: init.model.config,
        seed: init.model.seed,
      });
      engine = new OrtEngine({
        config: init.model.config,
        weights,
        settings: init.engine ?? {},
      });
    }
    let files = init.tokenizerFiles;
    if (files === undefined) {
      if (!('directory' in init.model)) {
        throw new SealError({
          code: 'INVALID_ARGUMENT',
          message:
            'a from-scratch policy needs tokenizer files (build them with buildBpeTokenizer)',
        });
      }
      files = await readTokenizerFiles(init.model.directory);
    }
    const tokenizer = new HuggingFaceTokenizer(files);
    assertVocabularyFits({
      tokenizerVocabSize: tokenizer.vocabSize,
      config: engine.config,
    });
    return new PolicyCore({ engine, tokenizer });
  }

  /** Batched generation on token ids. */
  generate(request: CoreGenerateRequest): Promise<EngineGeneration[]> {
    const { stopStrings } = request;
    return this.engine.generate({
      prompts: request.prompts,
      maxTokens: request.maxTokens,
      sampling: request.sampling,
      stopTokenIds: request.stopTokenIds,
      ...(request.suppressTokenIds === undefined
        ? {}
        : { suppressTokenIds: request.suppressTokenIds }),
      seed: request.seed,
      ...(stopStrings.length === 0
        ? {}
        : {
            shouldStop: (ids: readonly number[]) => {
              const text = this.tokenizer.decode(ids);
              return stopStrings.some((stop) => text.includes(stop));
            },
          }),
    });
  }

  /** Per-token log-probabilities. */
  score({ sequences, temperature }: CoreScoreRequest): Promise<number[][]> {
    return this.engine.score(sequences, { temperature });
  }

  /** One optimizer step. */
  train(request: CoreTrainRequest): Promise<EngineTrainResult> {
    return this.engine.train({
      objective: request.objective,
      sequences: request.sequences,
      settings: request.settings,
    });
  }

  /** Writes config, weights, optimizer state and tokenizer files. */
  async save(directory: string): Promise<void> {
    // Resident weights and moments are read back through a host-located output first.
    await this.engine.syncToHost();
    const state = this.engine.optimizerState;
    await writeModelDirectory({
      directory,
      config: this.engine.config,
      weights: this.engine.currentWeights,
      optimizer: {
        m: state.m,
        v: state.v,
        step: state.step,
        lossScale: this.engine.lossScaleState,
      },
    });
    const { tokenizerJson, tokenizerConfig } = this.tokenizer.files;
    await writeFileAtomic(
      join(directory, modelFiles.tokenizer),
      JSON.stringify(tokenizerJson),
    );
    await writeFileAtomic(
      join(directory, modelFiles.tokenizerConfig),
      `${JSON.stringify(tokenizerConfig, null, 2)}\n`,
    );
  }

  /**
   * Replaces weights (and optimizer state; zeros and step 0 when the
   * directory has none) from a directory of the same architecture.
   */
  async load(directory: string): Promise<void> {
    const directoryConfig = await readModelConfig(directory);
    const contents = await readModelDirectory({
      directory,
      config: this.engine.config,
    });
    if (directoryConfig.vocabSize !== this.engine.config.vocabSize) {
      throw new SealError({
        code: 'SHAPE_MISMATCH',
        message: `${directory}: vocabulary of ${directoryConfig.vocabSize} does not match the policy's ${this.engine.config.vocabSize}`,
      });
    }
    await this.engine.syncToHost();
    this.engine.setWeights(contents.weights);
    const optimizer = contents.optimizer;
    const total = contents.weights.buffer.length;
    this.engine.setOptimizerState(
      optimizer === undefined
        ? { m: new Float32Array(total), v: new Float32Array(total), step: 0 }
        : {
            m: optimizer.m.buffer,
            v: optimizer.v.buffer,
            step: optimizer.step,
          },
    );
    this.engine.setLossScaleState(optimizer?.lossScale);
  }

  /** Empties the engine's prefix cache. */
  resetCache(): void {
    this.engine.clearPrefixCache();
  }

  /** Releases sessions. */
  close(): Promise<void> {
    return this.engine.close();
  }
}

/** Throws `VOCAB_MISMATCH` when the tokenizer can produce ids the model has no row for. */
export function assertVocabularyFits({
  tokenizerVocabSize,
  config,
}: {
  tokenizerVocabSize: number;
  config: ModelConfig;
}): void {
  if (tokenizerVocabSize > config.vocabSize) {
    throw new SealError({
      code: 'VOCAB_MISMATCH',
      message: `the tokenizer has ${tokenizerVocabSize} ids but the model's vocabulary has ${config.vocabSize} rows`,
      details: { tokenizerVocabSize, modelVocabSize: config.vocabSize },
    });
  }
}

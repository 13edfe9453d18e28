import {
  SealError,
  parseWithSchema,
  policyV1GenerateOptionsSchema,
  policyV1ScoreOptionsSchema,
  policyV1TrainOptionsSchema,
  type PolicyV1,
  type PolicyV1GenerateOptions,
  type PolicyV1GenerateResult,
  type PolicyV1ScoreOptions,
  type PolicyV1ScoreResult,
  type PolicyV1TrainOptions,
  type PolicyV1TrainResult,
} from '@seal/spec';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import type * as z from 'zod';
import {
  selectDevice,
  type DeviceRequest,
  type ExecutionProvider,
} from '../engine/device';
import { checkPrecision, type Precision } from '../engine/precision';
import type { EngineGeneration, EngineTrainResult } from '../engine/ort-engine';
import type { ModelConfig } from '../model/model-config';
import {
  HuggingFaceTokenizer,
  readTokenizerFiles,
  type TokenizerFiles,
} from '../tokenizer/hf-tokenizer';
import {
  PolicyCore,
  type CoreGenerateRequest,
  type CoreScoreRequest,
  type CoreTrainRequest,
  type PolicyCoreInfo,
  type PolicyCoreInit,
  type PolicyModelSource,
} from './policy-core';
import { SerialQueue, webgpuQueue } from './serial-queue';

/** Settings of {@link createOrtPolicy}. */
export type CreateOrtPolicySettings = {
  /** A model directory, or a from-scratch config with a seed. */
  model: PolicyModelSource;
  /**
   * The tokenizer: files (for example from `buildBpeTokenizer`) or a
   * directory. Default: the model directory's tokenizer files.
   */
  tokenizer?: TokenizerFiles | { directory: string };
  /**
   * Where the engine runs: `cpu`, `webgpu`, `cuda`, or `auto` (the best that
   * works here). A device that does not work rejects with
   * `BACKEND_UNAVAILABLE` naming what is missing; nothing falls back to the
   * CPU. Default: `executionProvider`, else `cpu`.
   */
  device?: DeviceRequest;
  /** Execution provider, taken as is (no probe): `cpu` (default), `webgpu` or `cuda`. Prefer `device`. */
  executionProvider?: ExecutionProvider;
  /** Intra-op threads for training, scoring and prefill. Default: all cores. */
  threads?: number;
  /**
   * Precision of the matrix products: `fp32` (default), `fp16` (with dynamic
   * loss scaling) or `bf16`; weights, Adam moments and the update stay fp32.
   * A device that cannot run it rejects with `BACKEND_UNAVAILABLE`. On the
   * CPU the reduced products are emulated: their rounding, no speed-up.
   */
  precision?: Precision;
  /** Token budget of one training/scoring micro-batch. Default 2048. */
  microBatchTokens?: number;
  /** Train rows that continue the same prompt with its forward and backward computed once (default false; see `OrtEngineSettings.sharePrefixes`). */
  sharePrefixes?: boolean;
  /** Compute the LM head of a training pass at the weighted token slots only (default false; see `OrtEngineSettings.weightedSlotsOnly`). */
  weightedSlotsOnly?: boolean;
  /** Most prompts decoded in one batch. Default 64. */
  maxGenerateBatch?: number;
  /**
   * Byte budget of the prefix cache, which lets the next model call of a
   * multi-turn episode run only its new tokens. 0 disables it. Default 256 MiB.
   */
  prefixCacheBytes?: number;
  /**
   * Run the engine in a worker thread (default true): ORT's `run` blocks its
   * thread, so the caller's event loop stays free for rollouts and tools.
   */
  worker?: boolean;
  /** The policy id. Default `ort:<architecture>-<params>`. */
  policyId?: string;
};

/** The engine-side operations, in process or behind a worker. */
type PolicyBackend = {
  info: PolicyCoreInfo;
  generate(request: CoreGenerateRequest): Promise<EngineGeneration[]>;
  score(request: CoreScoreRequest): Promise<number[][]>;
  train(request: CoreTrainRequest): Promise<EngineTrainResult>;
  save(directory: string): Promise<void>;
  load(directory: string): Promise<void>;
  resetCache(): Promise<void>;
  close(): Promise<void>;
};

/**
 * Creates a {@link PolicyV1} backed by ONNX Runtime: Qwen2/Llama graphs
 * generated in TypeScript, KV-cache generation, and PPO / cross-entropy
 * training with AdamW. Loads a model directory or initialises a model from a
 * config and a seed.
 */
export async function createOrtPolicy(
  settings: CreateOrtPolicySettings,
): Promise<PolicyV1> {
  const tokenizerFiles =
    settings.tokenizer === undefined
      ? undefined
      : 'directory' in settings.tokenizer
        ? await readTokenizerFiles(settings.tokenizer.directory)
        : settings.tokenizer;
  // The device is probed here, before any worker or weights, so that an
  // unavailable one fails at once with what is missing.
  const executionProvider =
    settings.device === undefined
      ? settings.executionProvider
      : (await selectDevice(settings.device)).device;
  if (settings.precision !== undefined)
    await checkPrecision({
      device: executionProvider ?? 'cpu',
      precision: settings.precision,
    });
  const init: PolicyCoreInit = {
    model: settings.model,
    tokenizerFiles,
    engine: {
      ...(executionProvider === undefined ? {} : { executionProvider }),
      ...(settings.threads === undefined ? {} : { threads: settings.threads }),
      ...(settings.precision === undefined
        ? {}
        : { precision: settings.precision }),
      ...(settings.microBatchTokens === undefined
        ? {}
        : { microBatchTokens: settings.microBatchTokens }),
      ...(settings.sharePrefixes === undefined
        ? {}
        : { sharePrefixes: settings.sharePrefixes }),
      ...(settings.weightedSlotsOnly === undefined
        ? {}
        : { weightedSlotsOnly: settings.weightedSlotsOnly }),
      ...(settings.maxGenerateBatch === undefined
        ? {}
        : { maxGenerateBatch: settings.maxGenerateBatch }),
      ...(settings.prefixCacheBytes === undefined
        ? {}
        : { prefixCacheBytes: settings.prefixCacheBytes }),
    },
  };
  const start = (): Promise<PolicyBackend> =>
    settings.worker === false ? inProcessBackend(init) : workerBackend(init);
  const backend =
    executionProvider === 'webgpu'
      ? takingTurns(await webgpuQueue.run(start), webgpuQueue)
      : await start();
  const tokenizer = new HuggingFaceTokenizer(backend.info.tokenizerFiles);
  return new OrtPolicy({
    backend,
    tokenizer,
    policyId: settings.policyId ?? defaultPolicyId(backend.info.config),
  });
}

function defaultPolicyId(config: ModelConfig): string {
  return `ort:${config.architecture}-${config.numLayers}x${config.hiddenSize}`;
}

/** The backend with each of its operations run through `queue` (see {@link webgpuQueue}). */
function takingTurns(
  backend: PolicyBackend,
  queue: SerialQueue,
): PolicyBackend {
  return {
    info: backend.info,
    generate: (request) => queue.run(() => backend.generate(request)),
    score: (request) => queue.run(() => backend.score(request)),
    train: (request) => queue.run(() => backend.train(request)),
    save: (directory) => queue.run(() => backend.save(directory)),
    load: (directory) => queue.run(() => backend.load(directory)),
    resetCache: () => queue.run(() => backend.resetCache()),
    close: () => queue.run(() => backend.close()),
  };
}

async function inProcessBackend(init: PolicyCoreInit): Promise<PolicyBackend> {
  const core = await PolicyCore.create(init);
  return {
    info: core.info,
    generate: (request) => core.generate(request),
    score: (request) => core.score(request),
    train: (request) => core.train(request),
    save: (directory) => core.save(directory),
    load: (directory) => core.load(directory),
    resetCache: async () => core.resetCache(),
    close: () => core.close(),
  };
}

/** Messages to and from the policy worker. */
export type WorkerRequest = { id: number; method: string; argument: unknown };
/** A worker's answer. */
export type WorkerResponse =
  | { id: number; ok: true; value: unknown }
  | {
      id: number;
      ok: false;
      error: {
        code: string;
        message: string;
        details?: Record<string, unknown>;
      };
    };

async function workerBackend(init: PolicyCoreInit): Promise<PolicyBackend> {
  const fromSource = import.meta.url.endsWith('.ts');
  // Built code sits next to the worker entry with the same extension (.js or .mjs).
  const extension = /\.(m?js)$/.exec(import.meta.url)?.[1] ?? 'js';
  const url = new URL(
    fromSource ? '../policy-worker.ts' : `./policy-worker.${extension}`,
    import.meta.url,
  );
  let worker: Worker;
  if (fromSource) {
    // Running from sources (tests, `--conditions=@seal/source`): the worker
    // registers the tsx loader before importing the TypeScript entry, because
    // `--import` hooks do not reach a worker's entry module in Node 20.
    const tsxApi = resolveTsxEsmApi();
    const execArgv = process.execArgv.some((arg) =>
      arg.includes('@seal/source'),
    )
      ? process.execArgv
      : [...process.execArgv, '--conditions=@seal/source'];
    const bootstrap = `import(${JSON.stringify(tsxApi)}).then((api) => { api.register(); return import(${JSON.stringify(url.href)}); });`;
    worker = new Worker(bootstrap, { eval: true, execArgv });
  } else {
    worker = new Worker(url);
  }
  worker.unref();
  let nextId = 0;
  const pending = new Map<
    number,
    { resolve: (value: unknown) => void; reject: (error: unknown) => void }
  >();
  let exitError: SealError | undefined;
  worker.on('message', (message: WorkerResponse) => {
    const entry = pending.get(message.id);
    if (entry === undefined) return;
    pending.delete(message.id);
    if (message.ok) entry.resolve(message.value);
    else {
      entry.reject(
        new SealError({
          code: message.error.code as SealError['code'],
          message: message.error.message,
          ...(message.error.details === undefined
            ? {}
            : { details: message.error.details }),
        }),
      );
    }
  });
  const failAll = (error: SealError): void => {
    exitError = error;
    for (const entry of pending.values()) entry.reject(error);
    pending.clear();
  };
  worker.on('error', (cause) =>
    failAll(
      new SealError({
        code: 'INTERNAL',
        message: `policy worker failed: ${String(cause)}`,
        cause,
      }),
    ),
  );
  worker.on('exit', (code) => {
    if (pending.size > 0)
      failAll(
        new SealError({
          code: 'INTERNAL',
          message: `policy worker exited with code ${code}`,
        }),
      );
  });
  const call = <T>(method: string, argument: unknown): Promise<T> => {
    if (exitError !== undefined) return Promise.reject(exitError);
    const id = nextId++;
    return new Promise<T>((resolve, reject) => {
      pending.set(id, { resolve: resolve as (value: unknown) => void, reject });
      worker.ref();
      worker.postMessage({ id, method, argument } satisfies WorkerRequest);
    }).finally(() => {
      if (pending.size === 0) worker.unref();
    });
  };
  const info = await call<PolicyCoreInfo>('init', init);
  return {
    info,
    generate: (request) => call('generate', request),
    score: (request) => call('score', request),
    train: (request) => call('train', request),
    save: (directory) => call('save', directory),
    load: (directory) => call('load', directory),
    resetCache: () => call('resetCache', null),
    close: async () => {
      await call('close', null);
      await worker.terminate();
    },
  };
}

/** The ESM entry of tsx's register API (its CommonJS build cannot register ESM hooks). */
function resolveTsxEsmApi(): string {
  try {
    return import.meta.resolve('tsx/esm/api');
  } catch {
    const require = createRequire(import.meta.url);
    const root = dirname(require.resolve('tsx/package.json'));
    return pathToFileURL(join(root, 'dist', 'esm', 'api', 'index.mjs')).href;
  }
}

/** Validates a call's options; a bad one is the caller's INVALID_ARGUMENT naming `what.path`. */
function parseOptions<T>(
  schema: z.ZodType<T>,
  value: unknown,
  what: string,
): T {
  return parseWithSchema({
    schema,
    value,
    path: [what],
    code: 'INVALID_ARGUMENT',
  });
}

const generateOptionsWithoutPrompts = policyV1GenerateOptionsSchema.omit({
  prompts: true,
});

/**
 * The check `z.array(z.array(z.number().int().nonnegative()))` makes, as a
 * loop: the same verdicts and `INVALID_ARGUMENT` messages in the style of
 * {@link parseOptions}, at a fraction of the cost for long token arrays.
 */
function checkTokenArrays(value: unknown, what: string): number[][] {
  if (!Array.isArray(value))
    throw new SealError({
      code: 'INVALID_ARGUMENT',
      message: `${what}: expected an array of token id arrays`,
    });
  value.forEach((row: unknown, i) => {
    if (!Array.isArray(row))
      throw new SealError({
        code: 'INVALID_ARGUMENT',
        message: `${what}.${i}: expected an array of token ids`,
      });
    for (let t = 0; t < row.length; t++) {
      const id: unknown = row[t];
      if (typeof id !== 'number' || !Number.isSafeInteger(id) || id < 0) {
        throw new SealError({
          code: 'INVALID_ARGUMENT',
          message: `${what}.${i}.${t}: expected a non-negative integer, got ${String(id)}`,
        });
      }
    }
  });
  return value as number[][];
}

/** The {@link PolicyV1} facade: validation, chat rendering and text decoding, in call order. */
class OrtPolicy implements PolicyV1 {
  readonly specificationVersion = 'v1' as const;
  readonly policyId: string;
  readonly tokenizer: HuggingFaceTokenizer;
  readonly maxSequenceLength: number;
  readonly trainable = true;
  private readonly backend: PolicyBackend;
  private readonly queue = new SerialQueue();
  private closed = false;

  constructor({
    backend,
    tokenizer,
    policyId,
  }: {
    backend: PolicyBackend;
    tokenizer: HuggingFaceTokenizer;
    policyId: string;
  }) {
    this.backend = backend;
    this.tokenizer = tokenizer;
    this.policyId = policyId;
    this.maxSequenceLength = backend.info.config.maxPositionEmbeddings;
  }

  /** Runs calls one after another, in call order. */
  private serial<T>(task: () => Promise<T>): Promise<T> {
    if (this.closed) {
      return Promise.reject(
        new SealError({
          code: 'INVALID_STATE',
          message: `policy ${this.policyId} is closed`,
        }),
      );
    }
    return this.queue.run(task);
  }

  async generate(
    options: PolicyV1GenerateOptions,
  ): Promise<PolicyV1GenerateResult> {
    // Token prompts (tens of thousands of ids per rollout round) are checked
    // with a loop; the schema checks the rest.
    const { prompts: tokenPrompts, ...rest } = (options ??
      {}) as PolicyV1GenerateOptions;
    const parsed = {
      ...parseOptions(generateOptionsWithoutPrompts, rest, 'generate'),
      ...(tokenPrompts === undefined
        ? {}
        : { prompts: checkTokenArrays(tokenPrompts, 'generate.prompts') }),
    };
    if ((parsed.prompts === undefined) === (parsed.chats === undefined)) {
      throw new SealError({
        code: 'INVALID_ARGUMENT',
        message: 'generate: pass exactly one of prompts and chats',
      });
    }
    const prompts =
      parsed.prompts ??
      parsed.chats!.map(
        (chat) =>
          this.tokenizer.renderChat({
            messages: chat.messages,
            ...(chat.tools === undefined ? {} : { tools: chat.tools }),
            addGenerationPrompt: true,
          }).tokenIds,
      );
    const request: CoreGenerateRequest = {
      prompts,
      maxTokens: parsed.maxTokens,
      sampling: {
        temperature: parsed.temperature ?? 1,
        topP: parsed.topP ?? 1,
        topK: parsed.topK ?? 0,
      },
      stopTokenIds: parsed.stopTokenIds ?? [...this.tokenizer.stopTokenIds],
      stopStrings: parsed.stopStrings ?? [],
      suppressTokenIds: [...this.tokenizer.controlTokenIds],
      seed: parsed.seed ?? 0,
    };
    return this.serial(async () => {
      const generations = await this.backend.generate(request);
      return {
        generations: generations.map((generation, i) => ({
          ...generation,
          text: this.tokenizer.decode(generation.tokenIds),
          promptTokenIds: prompts[i]!,
        })),
        usage: {
          promptTokens: prompts.reduce((sum, prompt) => sum + prompt.length, 0),
          completionTokens: generations.reduce(
            (sum, generation) => sum + generation.tokenIds.length,
            0,
          ),
        },
      };
    });
  }

  async score(options: PolicyV1ScoreOptions): Promise<PolicyV1ScoreResult> {
    const parsed = parseOptions(policyV1ScoreOptionsSchema, options, 'score');
    return this.serial(async () => ({
      logprobs: await this.backend.score({
        sequences: parsed.sequences,
        temperature: parsed.temperature ?? 1,
      }),
    }));
  }

  async train(options: PolicyV1TrainOptions): Promise<PolicyV1TrainResult> {
    const parsed = parseOptions(policyV1TrainOptionsSchema, options, 'train');
    const o = parsed.options;
    const request: CoreTrainRequest = {
      objective: parsed.objective,
      sequences: parsed.sequences.map((sequence) => ({
        tokenIds: sequence.tokenIds,
        tokenWeights: sequence.tokenWeights,
        advantages: sequence.advantages,
        oldLogprobs: sequence.oldLogprobs,
        refLogprobs: sequence.refLogprobs,
      })),
      settings: {
        learningRate: o.learningRate,
        clipLow: o.clipLow ?? 0.2,
        clipHigh: o.clipHigh ?? 0.2,
        dualClipC: o.dualClipC ?? 10,
        klCoef: o.klCoef ?? 0,
        maxGradNorm: o.maxGradNorm ?? 1,
        weightDecay: o.weightDecay ?? 0.01,
        embeddingLearningRateScale: o.embeddingLearningRateScale ?? 1,
        outputNormLearningRateScale: o.outputNormLearningRateScale ?? 1,
        vectorLearningRateScale: o.vectorLearningRateScale ?? 1,
        matrixLearningRateScale: o.matrixLearningRateScale ?? 1,
        outputNormUniform: o.outputNormUniform ?? false,
        betas: o.betas ?? [0.9, 0.999],
        eps: o.eps ?? 1e-8,
        temperature: o.temperature ?? 1,
      },
    };
    return this.serial(() => this.backend.train(request));
  }

  save({ directory }: { directory: string }): Promise<void> {
    return this.serial(() => this.backend.save(directory));
  }

  load({ directory }: { directory: string }): Promise<void> {
    return this.serial(() => this.backend.load(directory));
  }

  resetCache(): Promise<void> {
    return this.serial(() => this.backend.resetCache());
  }

  close(): Promise<void> {
    const done = this.serial(() => this.backend.close());
    this.closed = true;
    return done;
  }
}

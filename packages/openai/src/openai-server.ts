import { randomBytes } from 'node:crypto';
import {
  createServer,
  type IncomingMessage,
  type Server,
  type ServerResponse,
} from 'node:http';
import { HttpError, listen, readBody, sendJson } from '@seal/http';
import { SealError, parseJsonText, toSealError } from '@seal/spec';
import * as z from 'zod';
import { completeTokens, type CompletionPolicy } from './openai-completions';
import { openAiCompletionRequestSchema } from './openai-completions-wire';
import {
  fromOpenAiRequest,
  openAiChatRequestSchema,
  toOpenAiResponse,
} from './openai-wire';
import type { PolicyChatModel } from './policy-chat-model';

/** What the server needs of a model (a {@link PolicyChatModel} has it all). */
export type ServedChatModel = Pick<
  PolicyChatModel,
  'modelId' | 'protocolName' | 'promptMode' | 'maxSequenceLength' | 'complete'
>;

/** Options of {@link startOpenAiServer}. */
export type OpenAiServerOptions = {
  model: ServedChatModel;
  /** The name clients put in `model` (and `/v1/models` lists). Default the model id. */
  modelName?: string;
  /** Interface to bind. Default `127.0.0.1`. */
  host?: string;
  /** Port; `0` picks a free one. Default 8000 (vLLM's). */
  port?: number;
  /** Largest request body in bytes; larger ones get 413. Default 4 MiB. */
  maxBodyBytes?: number;
  /**
   * Defaults a client should evaluate this model with (reply length, call
   * budget, task suite), listed in `/v1/models` as `seal.evalDefaults`.
   */
  evalDefaults?: Record<string, unknown>;
  /**
   * Serves `POST /v1/completions` (token-id prompts, vLLM's
   * `return_token_ids` and per-token `logprobs`) from this policy: the
   * rollout path of `seal train --sampler-url`. Absent: 404.
   */
  completionPolicy?: CompletionPolicy;
  /**
   * Serves SGLang's `POST /update_weights_from_disk` (`{model_path}` →
   * `{success, message}`): loads a checkpoint directory written by the
   * trainer, so the sampler samples from the trainer's weights. Absent: 404
   * (the endpoint reads a path the client names; `seal serve-policy` turns it
   * on only with `--weight-updates`).
   */
  updateWeights?: (directory: string) => Promise<void>;
  /** Receives every internal error with the reference its 500 body names. */
  onInternalError?: (info: { error: unknown; reference: string }) => void;
  /** Receives one line per finished request (method, path, status, milliseconds). */
  onRequest?: (info: {
    method: string;
    path: string;
    status: number;
    ms: number;
  }) => void;
};

/** A running OpenAI-compatible server (see {@link startOpenAiServer}). */
export type OpenAiServer = {
  /** `http://host:port`. */
  readonly url: string;
  readonly host: string;
  readonly port: number;
  readonly modelName: string;
  /** Stops accepting connections; requests in flight finish. Idempotent. */
  close(): Promise<void>;
  [Symbol.asyncDispose](): Promise<void>;
};

/** An OpenAI error body (`{error: {message, type, param, code}}`). */
export type OpenAiErrorBody = {
  error: {
    message: string;
    type: string;
    param: string | null;
    code: string | null;
  };
};

/** An HTTP error with the fields of OpenAI's error body. */
class OpenAiHttpError extends HttpError {
  readonly type: string;
  readonly code: string | null;
  readonly param: string | null;
  constructor({
    status,
    message,
    type = status >= 500 ? 'server_error' : 'invalid_request_error',
    code = null,
    param = null,
    headers = {},
    closeConnection = false,
  }: {
    status: number;
    message: string;
    type?: string;
    code?: string | null;
    param?: string | null;
    headers?: Record<string, string>;
    closeConnection?: boolean;
  }) {
    super({ status, message, headers, closeConnection });
    this.type = type;
    this.code = code;
    this.param = param;
  }
}

/** A SealError from the model as an HTTP error (4xx for the caller's mistakes). */
function fromModelError(error: unknown): OpenAiHttpError | undefined {
  if (!SealError.isInstance(error)) return undefined;
  switch (error.code) {
    case 'CONTEXT_LENGTH_EXCEEDED':
      return new OpenAiHttpError({
        status: 400,
        message: error.message,
        code: 'context_length_exceeded',
        param: 'messages',
      });
    case 'INVALID_ARGUMENT':
    case 'INVALID_DATA':
    case 'PARSE_ERROR':
      return new OpenAiHttpError({
        status: 400,
        message: error.message,
        code: 'invalid_value',
      });
    case 'BACKEND_UNAVAILABLE':
      return new OpenAiHttpError({
        status: 503,
        message: error.message,
        code: 'overloaded',
        headers: { 'retry-after': '1' },
      });
    default:
      return undefined;
  }
}

/**
 * Serves a chat model behind OpenAI's API over `node:http`: `POST
 * /v1/chat/completions` (messages, `tools` → `tool_calls`, `temperature`,
 * `top_p`, `max_tokens`/`max_completion_tokens`, `seed`, `stop`,
 * `tool_choice: none|auto`), `GET /v1/models` (with this project's `seal`
 * hints: protocol, prompt mode, context length), `GET /v1/models/<id>` and
 * `GET /health`. Errors use OpenAI's body (`{error: {message, type, param,
 * code}}`): 400 for malformed JSON, a body that fails validation (`param`
 * names the field), `stream: true`, `n > 1` or a prompt beyond the context
 * (`context_length_exceeded`); 404 for an unknown route or model; 405 for a
 * wrong method; 413 for a body over `maxBodyBytes`; 503 when the queue is
 * full; 500 otherwise (no internals, a reference for the log). Concurrent
 * requests are batched by the model. Resolves once listening.
 */
export async function startOpenAiServer(
  options: OpenAiServerOptions,
): Promise<OpenAiServer> {
  const { model } = options;
  const modelName = options.modelName ?? model.modelId;
  const host = options.host ?? '127.0.0.1';
  const maxBodyBytes = options.maxBodyBytes ?? 4 * 1024 * 1024;
  const created = Math.floor(Date.now() / 1000);
  const modelCard = {
    id: modelName,
    object: 'model',
    created,
    owned_by: 'seal',
    max_model_len: model.maxSequenceLength,
    seal: {
      protocol: model.protocolName,
      promptMode: model.promptMode,
      maxSequenceLength: model.maxSequenceLength,
      ...(options.evalDefaults === undefined
        ? {}
        : { evalDefaults: options.evalDefaults }),
    },
  };

  const readJson = async (request: IncomingMessage): Promise<unknown> => {
    const read = await readBody({
      request,
      limit: maxBodyBytes,
      drainLimit: Math.max(maxBodyBytes * 4, 16 * 1024 * 1024),
    });
    if ('tooLarge' in read) {
      throw new OpenAiHttpError({
        status: 413,
        message: `request body is larger than the server's limit of ${maxBodyBytes} bytes (seal serve-policy --max-body)`,
        code: 'request_too_large',
        headers: { connection: 'close' },
        closeConnection: read.cut,
      });
    }
    try {
      return parseJsonText({ text: read.text, source: 'request body' });
    } catch (error) {
      throw new OpenAiHttpError({
        status: 400,
        message: toSealError(error).message,
        code: 'invalid_json',
      });
    }
  };

  const parseRequest = <TOutput>(
    schema: z.ZodType<TOutput>,
    json: unknown,
  ): TOutput => {
    const parsed = schema.safeParse(json);
    if (parsed.success) return parsed.data;
    const issue = parsed.error.issues[0];
    const param = issue?.path.map(String).join('.') ?? '';
    throw new OpenAiHttpError({
      status: 400,
      message: `${param === '' ? 'body' : param}: ${issue?.message ?? 'invalid value'}`,
      code: 'invalid_value',
      param: param === '' ? null : param,
    });
  };

  const checkModel = (asked: string | null | undefined): void => {
    if (asked !== undefined && asked !== null && asked !== modelName) {
      throw new OpenAiHttpError({
        status: 404,
        message: `the model '${asked}' does not exist; this server serves '${modelName}'`,
        code: 'model_not_found',
        param: 'model',
      });
    }
  };

  const completions = async (request: IncomingMessage): Promise<unknown> => {
    const json = await readJson(request);
    const {
      request: chat,
      model: asked,
      toolChoice,
      unsupported,
    } = fromOpenAiRequest(parseRequest(openAiChatRequestSchema, json));
    if (unsupported.length > 0) {
      throw new OpenAiHttpError({
        status: 400,
        message: `unsupported: ${unsupported.join('; ')}`,
        code: 'unsupported_value',
      });
    }
    checkModel(asked);
    const result = await model.complete(chat, { toolChoice });
    return toOpenAiResponse({
      result,
      id: `chatcmpl-${randomBytes(12).toString('hex')}`,
      model: modelName,
      created: Math.floor(Date.now() / 1000),
      fingerprint: model.modelId,
    });
  };

  const textCompletions = async (
    request: IncomingMessage,
    policy: CompletionPolicy,
  ): Promise<unknown> => {
    const body = parseRequest(
      openAiCompletionRequestSchema,
      await readJson(request),
    );
    checkModel(body.model);
    const unsupported = [
      ...(body.stream ? ['stream: true'] : []),
      ...((body.n ?? 1) > 1 ? ['n > 1 (send one request per sample)'] : []),
      ...(body.echo ? ['echo: true'] : []),
    ];
    if (unsupported.length > 0) {
      throw new OpenAiHttpError({
        status: 400,
        message: `unsupported: ${unsupported.join('; ')}`,
        code: 'unsupported_value',
      });
    }
    return completeTokens({
      policy,
      request: body,
      modelName,
      id: `cmpl-${randomBytes(12).toString('hex')}`,
      created: Math.floor(Date.now() / 1000),
    });
  };

  const weightUpdate = async (
    request: IncomingMessage,
    update: (directory: string) => Promise<void>,
  ): Promise<unknown> => {
    const { model_path: directory } = parseRequest(
      z.object({ model_path: z.string().min(1) }),
      await readJson(request),
    );
    try {
      await update(directory);
    } catch (error) {
      const sealError = toSealError(error);
      throw new OpenAiHttpError({
        status: 400,
        message: `cannot load ${directory}: ${sealError.message}`,
        code: 'invalid_value',
        param: 'model_path',
      });
    }
    return { success: true, message: `loaded ${directory}` };
  };

  const routes = [
    'POST /v1/chat/completions',
    ...(options.completionPolicy ? ['POST /v1/completions'] : []),
    'GET /v1/models',
    'GET /health',
    ...(options.updateWeights ? ['POST /update_weights_from_disk'] : []),
  ].join(', ');

  const route = async (
    request: IncomingMessage,
    path: string,
    method: string,
  ): Promise<unknown> => {
    const get = method === 'GET' || method === 'HEAD';
    const allow = (allowed: string): never => {
      throw new OpenAiHttpError({
        status: 405,
        message: `${method} ${path}: use ${allowed}`,
        code: 'method_not_allowed',
        headers: { allow: allowed },
      });
    };
    if (path === '/health' || path === '/healthz')
      return get ? 'OK' : allow('GET');
    if (path === '/v1/models') {
      return get ? { object: 'list', data: [modelCard] } : allow('GET');
    }
    if (path.startsWith('/v1/models/')) {
      if (!get) allow('GET');
      const id = decodeURIComponent(path.slice('/v1/models/'.length));
      if (id === modelName) return modelCard;
      throw new OpenAiHttpError({
        status: 404,
        message: `the model '${id}' does not exist`,
        code: 'model_not_found',
      });
    }
    if (path === '/v1/chat/completions') {
      return method === 'POST' ? completions(request) : allow('POST');
    }
    if (path === '/v1/completions' && options.completionPolicy) {
      return method === 'POST'
        ? textCompletions(request, options.completionPolicy)
        : allow('POST');
    }
    if (path === '/update_weights_from_disk' && options.updateWeights) {
      return method === 'POST'
        ? weightUpdate(request, options.updateWeights)
        : allow('POST');
    }
    throw new OpenAiHttpError({
      status: 404,
      message: `unknown route ${method} ${path}; routes: ${routes}`,
      code: 'not_found',
    });
  };

  const handle = async (
    request: IncomingMessage,
    response: ServerResponse,
  ): Promise<number> => {
    const path =
      new URL(request.url ?? '/', 'http://server').pathname.replace(
        /\/+$/,
        '',
      ) || '/';
    const method = request.method ?? 'GET';
    try {
      const body = await route(request, path, method);
      if (body === 'OK') {
        response.writeHead(200, {
          'content-type': 'text/plain; charset=utf-8',
          'content-length': '2',
        });
        response.end(method === 'HEAD' ? undefined : 'OK');
      } else sendJson({ response, status: 200, body });
      return 200;
    } catch (thrown) {
      // Whatever the body was, it is not read any further.
      if (!request.readableEnded) request.resume();
      const error =
        thrown instanceof OpenAiHttpError ? thrown : fromModelError(thrown);
      if (error !== undefined) {
        const body: OpenAiErrorBody = {
          error: {
            message: error.message,
            type: error.type,
            param: error.param,
            code: error.code,
          },
        };
        if (error.closeConnection)
          response.once('finish', () => request.socket.destroy());
        sendJson({
          response,
          status: error.status,
          body,
          headers: error.headers,
        });
        return error.status;
      }
      const reference = randomBytes(4).toString('hex');
      options.onInternalError?.({ error: thrown, reference });
      const body: OpenAiErrorBody = {
        error: {
          message: `internal error (reference ${reference}); the server log has the details`,
          type: 'server_error',
          param: null,
          code: 'internal_error',
        },
      };
      sendJson({ response, status: 500, body });
      return 500;
    }
  };

  const server: Server = createServer((request, response) => {
    const started = performance.now();
    handle(request, response)
      .then((status) =>
        options.onRequest?.({
          method: request.method ?? 'GET',
          path: request.url ?? '/',
          status,
          ms: performance.now() - started,
        }),
      )
      .catch(() => response.destroy());
  });
  server.keepAliveTimeout = 30_000;

  const listening = await listen({
    server,
    host,
    port: options.port ?? 8000,
  });
  return {
    url: listening.url,
    host: listening.host,
    port: listening.port,
    modelName,
    close: listening.close,
    [Symbol.asyncDispose]: listening.close,
  };
}

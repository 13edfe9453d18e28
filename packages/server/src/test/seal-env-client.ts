import {
  envServiceCreateDataSchema,
  envServiceEvaluationSchema,
  envServiceResponseSchema,
  envServiceStepDataSchema,
  parseJsonText,
  parseWithSchema,
  type EnvServiceCreateData,
  type EnvServiceEvaluation,
  type EnvServiceRequestInput,
  type EnvServiceStepData,
} from '@seal/spec';
import * as z from 'zod';

/**
 * A client for SEAL's environment-service HTTP API, written from the
 * request and response shapes of SEAL's specification (§7.2) as
 * `@seal/spec` declares them (`env-service/v1`): it imports nothing from the
 * server, and it parses every answer with those schemas, so tests that drive
 * our server through it check the wire contract, not our own code. The
 * schemas mark this service's additions optional, so it works against SEAL's
 * Python service too.
 */

/** A raw response: status and parsed JSON body (or text for non-JSON). */
export type SealRawResponse = { status: number; body: unknown };

/** A non-2xx answer or a `success: false` envelope. */
export class SealEnvClientError extends Error {
  /** The HTTP status. */
  readonly status: number;
  /** The response body. */
  readonly body: unknown;

  constructor({
    endpoint,
    status,
    body,
  }: {
    endpoint: string;
    status: number;
    body: unknown;
  }) {
    const detail =
      typeof body === 'object' && body !== null && 'detail' in body
        ? String((body as { detail: unknown }).detail)
        : JSON.stringify(body);
    super(`${endpoint}: HTTP ${status}: ${detail}`);
    this.name = 'SealEnvClientError';
    this.status = status;
    this.body = body;
  }
}

/** A client of SEAL's environment service (see the module comment). */
export class SealEnvClient {
  /** The service's base URL. */
  readonly baseUrl: string;
  /** The `env_type` sent with every request. */
  readonly envType: string;

  constructor({
    baseUrl,
    envType = 'bfcl',
  }: {
    baseUrl: string;
    envType?: string;
  }) {
    this.baseUrl = baseUrl.replace(/\/+$/, '');
    this.envType = envType;
  }

  /** `GET /healthz`: the plain-text body. */
  async healthz(): Promise<string> {
    const response = await fetch(`${this.baseUrl}/healthz`);
    const text = await response.text();
    if (!response.ok)
      throw new SealEnvClientError({
        endpoint: 'healthz',
        status: response.status,
        body: text,
      });
    return text;
  }

  /** POSTs any body (a string is sent as is) and returns status and parsed body, without checking them. */
  async request(endpoint: string, body: unknown): Promise<SealRawResponse> {
    const response = await fetch(`${this.baseUrl}/${endpoint}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: typeof body === 'string' ? body : JSON.stringify(body),
    });
    const text = await response.text();
    let parsed: unknown = text;
    try {
      parsed = parseJsonText({ text });
    } catch {
      // Not JSON: keep the text.
    }
    return { status: response.status, body: parsed };
  }

  /**
   * POSTs SEAL's body shape and returns the envelope with `data` parsed by
   * `schema`; throws on a non-2xx status, and INVALID_DATA when the answer
   * does not have the declared shape.
   */
  async call<TData>(
    endpoint: string,
    {
      taskId,
      instanceId,
      messages = {},
      params = {},
      schema,
    }: {
      taskId?: string;
      instanceId?: string;
      messages?: Record<string, unknown>;
      params?: Record<string, unknown>;
      /** The shape of `data`. */
      schema: z.ZodType<TData>;
    },
  ): Promise<{ success: boolean; data: TData }> {
    const body: EnvServiceRequestInput = {
      env_type: this.envType,
      task_id: taskId ?? null,
      instance_id: instanceId ?? null,
      messages,
      params,
    };
    const { status, body: answer } = await this.request(endpoint, body);
    if (status < 200 || status >= 300)
      throw new SealEnvClientError({ endpoint, status, body: answer });
    const source = `${this.baseUrl}/${endpoint}`;
    const envelope = parseWithSchema({
      schema: envServiceResponseSchema,
      value: answer,
      source,
    });
    return {
      success: envelope.success,
      data: parseWithSchema({ schema, value: envelope.data, source }),
    };
  }

  /** `/get_env_profile`: the task ids of a split. */
  async getEnvProfile({ split = 'train' }: { split?: string } = {}): Promise<
    string[]
  > {
    return (
      await this.call('get_env_profile', {
        params: { split },
        schema: z.array(z.string()),
      })
    ).data;
  }

  /** `/create`. */
  async create({
    taskId,
    instanceId,
    params = {},
  }: {
    taskId: string;
    instanceId: string;
    params?: Record<string, unknown>;
  }): Promise<EnvServiceCreateData> {
    return (
      await this.call('create', {
        taskId,
        instanceId,
        params,
        schema: envServiceCreateDataSchema,
      })
    ).data;
  }

  /** `/step` with the raw assistant text. */
  async step({
    instanceId,
    content,
    params = {},
  }: {
    instanceId: string;
    content: string;
    params?: Record<string, unknown>;
  }): Promise<EnvServiceStepData> {
    return (
      await this.call('step', {
        instanceId,
        messages: { role: 'assistant', content },
        params,
        schema: envServiceStepDataSchema,
      })
    ).data;
  }

  /** `/evaluate` with `sparse: true`: the accuracy. */
  async evaluateSparse({
    instanceId,
  }: {
    instanceId: string;
  }): Promise<number> {
    return (
      await this.call('evaluate', {
        instanceId,
        params: { sparse: true },
        schema: z.number(),
      })
    ).data;
  }

  /** `/evaluate` with `sparse: false`: the full dict. */
  async evaluate({
    instanceId,
  }: {
    instanceId: string;
  }): Promise<EnvServiceEvaluation> {
    return (
      await this.call('evaluate', {
        instanceId,
        params: { sparse: false },
        schema: envServiceEvaluationSchema,
      })
    ).data;
  }

  /** `/get_info`: the tool-name listing. */
  async getInfo({ instanceId }: { instanceId: string }): Promise<string> {
    return (await this.call('get_info', { instanceId, schema: z.string() }))
      .data;
  }

  /** `/release`: whether the instance existed. */
  async release({ instanceId }: { instanceId: string }): Promise<boolean> {
    return (await this.call('release', { instanceId, schema: z.null() }))
      .success;
  }
}

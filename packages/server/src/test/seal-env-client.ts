/**
 * A client for SEAL's environment-service HTTP API, written from the
 * request and response shapes of SEAL's specification (§7.2) alone: it
 * imports nothing from the server, so tests that drive our server through it
 * check the wire contract, not our own types. It works against SEAL's Python
 * service too.
 */

/** A chat message in SEAL's wire shape. */
export type SealWireMessage = {
  role: string;
  content: string;
  tool_calls?: unknown[];
  [key: string]: unknown;
};

/** The body of every POST (§7.2). */
export type SealRequestBody = {
  env_type: string;
  task_id?: string | null;
  instance_id?: string | null;
  messages: Record<string, unknown>;
  params: Record<string, unknown>;
};

/** `/create`'s `data`. */
export type SealCreateData = {
  state: SealWireMessage[];
  info: {
    instance_id: string;
    task_id: string;
    test_id: string;
    tools_count: number;
    questions_count: number;
    observation_lite: boolean;
    [key: string]: unknown;
  };
};

/** `/step`'s `data`. */
export type SealStepData = {
  state: SealWireMessage[];
  reward: number;
  is_terminated: boolean;
  info: Record<string, unknown>;
};

/** `/evaluate`'s non-sparse `data` (the fields §7.2 lists). */
export type SealEvaluateData = {
  valid: boolean;
  accuracy: number;
  total_count: number;
  correct_count: number;
  test_category: string;
  test_id: string;
  model_name: string;
  input_tokens: number;
  output_tokens: number;
  turn_count: number;
  completed: boolean;
  bfcl_progress: number;
  bfcl_progress_with_irrelevance: number;
  bfcl_progress_info: {
    per_turn_valid: (boolean | null)[];
    irrelevance_per_turn: (number | null)[];
    failure_tags: string[];
    passed_turns: number;
    scorable_turns: number;
    passed_irrelevance_turns: number;
    irrelevance_turns: number;
    terminated_early: boolean;
    error: string | null;
  };
  trajectory_clean: boolean;
  trajectory_has_invalid_tool_call: boolean;
  trajectory_has_tool_error: boolean;
  trajectory_error_count: number;
  trajectory_num_user_turns: number;
  trajectory_num_turns_with_tool_call: number;
  trajectory_num_tool_calls_attempted: number;
  trajectory_num_tool_calls_accepted: number;
  trajectory_num_tool_executions_no_error: number;
  trajectory_turn_coverage_rate: number;
  trajectory_tool_call_accept_rate: number;
  trajectory_tool_exec_success_rate: number;
  [key: string]: unknown;
};

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
      parsed = JSON.parse(text);
    } catch {
      // Not JSON: keep the text.
    }
    return { status: response.status, body: parsed };
  }

  /** POSTs SEAL's body shape and returns `data`; throws on a non-2xx status. */
  async call<TData>(
    endpoint: string,
    {
      taskId,
      instanceId,
      messages = {},
      params = {},
    }: {
      taskId?: string;
      instanceId?: string;
      messages?: Record<string, unknown>;
      params?: Record<string, unknown>;
    },
  ): Promise<{ success: boolean; data: TData }> {
    const body: SealRequestBody = {
      env_type: this.envType,
      task_id: taskId ?? null,
      instance_id: instanceId ?? null,
      messages,
      params,
    };
    const { status, body: answer } = await this.request(endpoint, body);
    if (status < 200 || status >= 300)
      throw new SealEnvClientError({ endpoint, status, body: answer });
    return answer as { success: boolean; data: TData };
  }

  /** `/get_env_profile`: the task ids of a split. */
  async getEnvProfile({ split = 'train' }: { split?: string } = {}): Promise<
    string[]
  > {
    return (await this.call<string[]>('get_env_profile', { params: { split } }))
      .data;
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
  }): Promise<SealCreateData> {
    return (
      await this.call<SealCreateData>('create', { taskId, instanceId, params })
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
  }): Promise<SealStepData> {
    return (
      await this.call<SealStepData>('step', {
        instanceId,
        messages: { role: 'assistant', content },
        params,
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
      await this.call<number>('evaluate', {
        instanceId,
        params: { sparse: true },
      })
    ).data;
  }

  /** `/evaluate` with `sparse: false`: the full dict. */
  async evaluate({
    instanceId,
  }: {
    instanceId: string;
  }): Promise<SealEvaluateData> {
    return (
      await this.call<SealEvaluateData>('evaluate', {
        instanceId,
        params: { sparse: false },
      })
    ).data;
  }

  /** `/get_info`: the tool-name listing. */
  async getInfo({ instanceId }: { instanceId: string }): Promise<string> {
    return (await this.call<string>('get_info', { instanceId })).data;
  }

  /** `/release`: whether the instance existed. */
  async release({ instanceId }: { instanceId: string }): Promise<boolean> {
    return (await this.call<null>('release', { instanceId })).success;
  }
}

import {
  PyDict,
  formatCall,
  fromJsonValue,
  parseCallString,
  toJsonValue,
  type PyValue,
} from '@seal/python';
import {
  SealError,
  type EnvironmentV2,
  type EnvironmentV2Session,
  type GroundTruthCallV2,
  type JsonSchemaV2,
  type Task,
  type TaskV2,
  type ToolBackendV1,
  type ToolBackendV1Execution,
  type ToolBackendV1Session,
  type ToolCallV2,
  type ToolDoc,
  type ToolDocV2,
  type ToolOutcomeV2,
  type ToolParameter,
} from '@seal/spec';

/** Options for {@link fromToolBackendV1}. */
export type FromToolBackendV1Options = {
  /** The v1 backend (BFCL's `createBfclBackend`). */
  backend: ToolBackendV1;
  /** The v1 tasks the environment serves; sessions are opened by task id. */
  tasks: readonly Task[];
  /**
   * A JSON-comparable view of a v1 session's state, for the `state` check
   * (BFCL: `toJsonValue(session.comparableState())`). Without it, v2
   * sessions have no `snapshot`.
   */
  snapshot?: (session: ToolBackendV1Session) => unknown;
};

// BFCL's doc dialect names Python types; JSON Schema names JSON ones.
const jsonTypeOf: Record<string, string> = {
  dict: 'object',
  float: 'number',
  tuple: 'array',
  list: 'array',
  int: 'integer',
  str: 'string',
  bool: 'boolean',
};

function jsonSchemaOf(parameter: ToolParameter): JsonSchemaV2 {
  const { type, items, properties, default: _default, ...rest } = parameter;
  const schema: JsonSchemaV2 = { ...rest };
  if (type !== 'any') schema.type = jsonTypeOf[type] ?? type;
  if (items !== undefined) schema.items = jsonSchemaOf(items);
  if (properties !== undefined) {
    schema.properties = Object.fromEntries(
      Object.entries(properties).map(([key, value]) => [
        key,
        jsonSchemaOf(value),
      ]),
    );
  }
  // `default` stays informational in both dialects.
  if (_default !== undefined) schema.default = _default;
  return schema;
}

/**
 * A BFCL-dialect tool doc as an MCP-shaped v2 doc: `dict` → `object`,
 * `float` → `number`, `tuple` → `array`, `any` → no type; the rest unchanged.
 */
export function toolDocV2FromV1(doc: ToolDoc): ToolDocV2 {
  const { type: _type, properties, required, ...rest } = doc.parameters;
  return {
    name: doc.name,
    description: doc.description,
    inputSchema: {
      ...rest,
      type: 'object',
      properties: Object.fromEntries(
        Object.entries(properties).map(([key, value]) => [
          key,
          jsonSchemaOf(value),
        ]),
      ),
      ...(required === undefined ? {} : { required }),
    },
  };
}

function groundTruthCallOf({
  task,
  text,
}: {
  task: Task;
  text: string;
}): GroundTruthCallV2 {
  const parsed = parseCallString(text);
  if (!parsed.success) {
    throw new SealError({
      code: 'INVALID_DATA',
      message: `task ${task.id}: ground-truth call ${text} does not parse (${parsed.error.message})`,
      details: { taskId: task.id },
    });
  }
  const { name, kwargs } = parsed.value;
  return {
    name,
    arguments: toJsonValue(new PyDict(kwargs)) as Record<string, unknown>,
    // The Python text keeps BFCL's value semantics (5.0 vs 5) exactly.
    callText: text,
  };
}

/**
 * A v1 task as a v2 task: same id, turns, holdouts and category; ground truth
 * parsed from Python call text into `{ name, arguments, callText }`. BFCL's
 * own checks are state and results, not exact calls.
 */
export function taskV2FromV1(task: Task): TaskV2 {
  return {
    schemaVersion: 2,
    id: task.id,
    category: task.category,
    turns: task.turns.map((turn) =>
      turn.map((message) => ({
        role: message.role === 'tool' ? 'assistant' : message.role,
        content: message.content,
      })),
    ),
    holdouts: task.holdouts.map((holdout) => ({
      turn: holdout.turn,
      toolNames: [...holdout.toolNames],
    })),
    groundTruth: task.groundTruth.map((turn) =>
      turn.map((text) => groundTruthCallOf({ task, text })),
    ),
    checks: { calls: false, state: true, results: true },
    meta: { ...task.meta, source: task.source, v1Backend: task.backend.kind },
  };
}

function callTextOf(call: ToolCallV2): string {
  if (call.callText !== undefined) return call.callText;
  return formatCall({
    name: call.name,
    args: [],
    kwargs: Object.entries(call.arguments).map(
      ([key, value]) => [key, fromJsonValue(value)] as [string, PyValue],
    ),
  });
}

function outcomeOf(execution: ToolBackendV1Execution): ToolOutcomeV2 {
  const error = execution.error === undefined ? {} : { error: execution.error };
  if (execution.status === 'ok')
    return { kind: 'ok', ok: true, content: execution.result, ...error };
  // `rejected`: refused before running (bad arguments for the signature).
  const kind =
    execution.status === 'rejected' ? 'invalid_arguments' : 'tool_error';
  return { kind, ok: false, content: execution.result, ...error };
}

/**
 * BFCL (or any v1 backend) as one v2 environment: sessions wrap v1 sessions,
 * structured calls run as Python call text (`callText` when the call has it,
 * else rendered from the JSON arguments), and v1 statuses map to outcome
 * kinds (`ok`; `raised` → `tool_error`; `rejected` → `invalid_arguments`).
 * Result texts are exactly the v1 backend's.
 */
export function fromToolBackendV1({
  backend,
  tasks,
  snapshot,
}: FromToolBackendV1Options): EnvironmentV2 {
  const byId = new Map(tasks.map((task) => [task.id, task]));
  return {
    specificationVersion: 'v2',
    environmentId: backend.backendId,
    async openSession({ task }) {
      const v1Task = byId.get(task.id);
      if (v1Task === undefined) {
        throw new SealError({
          code: 'NOT_FOUND',
          message: `environment ${backend.backendId}: no v1 task with id ${task.id}`,
          details: { taskId: task.id },
        });
      }
      const v1Session = backend.createSession(v1Task);
      const tools = v1Task.tools.map(toolDocV2FromV1);
      let closed = false;
      const session: EnvironmentV2Session = {
        listTools: () => Promise.resolve(tools),
        call(call) {
          if (closed) {
            return Promise.reject(
              new SealError({
                code: 'INVALID_STATE',
                message: `environment ${backend.backendId}: call on a closed session`,
              }),
            );
          }
          return Promise.resolve(
            outcomeOf(v1Session.execute(callTextOf(call))),
          );
        },
        close() {
          closed = true;
          return Promise.resolve();
        },
      };
      if (snapshot !== undefined)
        session.snapshot = () => Promise.resolve(snapshot(v1Session));
      return session;
    },
  };
}

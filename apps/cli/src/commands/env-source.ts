import { readFile } from 'node:fs/promises';
import { isAbsolute, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import {
  SealError,
  parseJsonLineEntries,
  taskV2Schema,
  type EnvironmentV2,
  type TaskV2,
} from '@seal/spec';
import { fromMcp, parseMcpCommand } from '@seal/tools';

/** Options for {@link loadEnvironment}. */
export type LoadEnvironmentOptions = {
  /** `--env`: a module path, or `mcp:[NAME=value ...] command [args ...]`. */
  spec: string;
  /** For an MCP server: a tool called with `{}` as the state snapshot. */
  snapshotCall?: string;
  /** For an MCP server: the per-call deadline. */
  timeoutMs?: number;
  /** For an MCP server: its working directory (may name `{session_dir}`). */
  cwd?: string;
};

/**
 * {@link loadEnvironment} from the flags `seal env check` and `seal env eval`
 * share: `--env`, `--snapshot-call`, `--timeout-ms`, `--mcp-cwd`.
 */
export function loadEnvironmentFromFlags(flags: {
  env: string;
  'snapshot-call'?: string | undefined;
  'timeout-ms'?: number | undefined;
  'mcp-cwd'?: string | undefined;
}): Promise<EnvironmentV2> {
  return loadEnvironment({
    spec: flags.env,
    ...(flags['snapshot-call'] === undefined
      ? {}
      : { snapshotCall: flags['snapshot-call'] }),
    ...(flags['timeout-ms'] === undefined
      ? {}
      : { timeoutMs: flags['timeout-ms'] }),
    ...(flags['mcp-cwd'] === undefined ? {} : { cwd: flags['mcp-cwd'] }),
  });
}

function isEnvironment(value: unknown): value is EnvironmentV2 {
  return (
    typeof value === 'object' &&
    value !== null &&
    typeof (value as { openSession?: unknown }).openSession === 'function'
  );
}

/**
 * Resolves `--env`: `mcp:...` starts an MCP server per session (through
 * `fromMcp`); anything else is a module path (`.ts` loads through the tsx
 * loader the CLI runs under) whose `environment` export, or default
 * export, is an `EnvironmentV2` (or a function returning one).
 */
export async function loadEnvironment({
  spec,
  snapshotCall,
  timeoutMs,
  cwd,
}: LoadEnvironmentOptions): Promise<EnvironmentV2> {
  if (spec.startsWith('mcp:')) {
    return fromMcp({
      ...parseMcpCommand(spec),
      environmentId: spec,
      ...(snapshotCall === undefined
        ? {}
        : { snapshotCall: { name: snapshotCall, arguments: {} } }),
      ...(timeoutMs === undefined ? {} : { timeoutMs }),
      ...(cwd === undefined ? {} : { cwd }),
    });
  }
  const path = isAbsolute(spec) ? spec : resolve(process.cwd(), spec);
  let module: Record<string, unknown>;
  try {
    module = (await import(pathToFileURL(path).href)) as Record<
      string,
      unknown
    >;
  } catch (error) {
    const missing =
      (error as { code?: unknown }).code === 'ERR_MODULE_NOT_FOUND' &&
      String((error as Error).message).includes(path);
    throw new SealError({
      code: missing ? 'FILE_NOT_FOUND' : 'INVALID_ARGUMENT',
      message: missing
        ? `--env: no module at ${path}`
        : `--env: loading ${path} failed: ${(error as Error).message}`,
      cause: error,
    });
  }
  let candidate = module.environment ?? module.default;
  if (typeof candidate === 'function')
    candidate = await (candidate as () => unknown)();
  if (!isEnvironment(candidate)) {
    throw new SealError({
      code: 'INVALID_ARGUMENT',
      message: `--env: ${spec} exports no environment (expected \`export const environment = fromAiSdkTools(...)\` or a default export with openSession; found exports: ${Object.keys(module).join(', ') || 'none'})`,
    });
  }
  if (candidate.specificationVersion !== 'v2') {
    throw new SealError({
      code: 'UNSUPPORTED_SPEC_VERSION',
      message: `--env: ${spec}: specificationVersion ${String(candidate.specificationVersion)} is not supported (expected 'v2')`,
    });
  }
  return candidate;
}

/**
 * Reads a JSONL tasks file (one `TaskV2` a line; blank lines skipped), each
 * line validated with its line number in the error; ids must be unique.
 */
export async function readTasksV2(file: string): Promise<TaskV2[]> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    throw new SealError({
      code: 'FILE_NOT_FOUND',
      message: `--tasks: cannot read ${file} (${(error as Error).message})`,
      cause: error,
    });
  }
  const tasks: TaskV2[] = [];
  const lines = new Map<string, number>();
  for (const { value: task, lineNumber, source } of parseJsonLineEntries({
    text,
    source: file,
    schema: taskV2Schema,
  })) {
    const earlier = lines.get(task.id);
    if (earlier !== undefined) {
      throw new SealError({
        code: 'INVALID_DATA',
        message: `${source}: task id ${task.id} already used on line ${earlier}`,
        details: { source },
      });
    }
    lines.set(task.id, lineNumber);
    tasks.push(task);
  }
  if (tasks.length === 0) {
    throw new SealError({
      code: 'INVALID_DATA',
      message: `--tasks: ${file} holds no task`,
    });
  }
  return tasks;
}

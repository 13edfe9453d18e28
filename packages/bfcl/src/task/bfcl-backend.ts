import { PyDict, freezePyTree, parsePyJson } from '@seal/python';
import {
  SealError,
  type Task,
  type ToolBackendV1,
  type ToolBackendV1Session,
} from '@seal/spec';
import { isBfclClassName, type BfclClassName } from '../api/bfcl-class-names';
import { BfclRealm, type BfclRuntimeData } from '../api/bfcl-realm';
import { BfclSession } from '../session/bfcl-session';

/**
 * Parsed `initialConfig` texts, shared read-only ({@link freezePyTree}):
 * every episode and every verification of a task starts from the same text,
 * and sessions deep-copy what they load. Bounded: cleared when full.
 */
const parsedConfigs = new Map<string, PyDict>();
const maxParsedConfigs = 2048;

/**
 * Reads a task's backend into session options; throws INVALID_DATA when
 * malformed. The `initialConfig` is shared read-only data: copy it to change it.
 */
export function bfclSessionSpec(task: Task): {
  initialConfig: PyDict;
  involvedClasses: BfclClassName[];
  longContext: boolean;
} {
  const { backend } = task;
  const involvedClasses: BfclClassName[] = [];
  for (const name of backend.involvedClasses) {
    if (!isBfclClassName(name)) {
      throw new SealError({
        code: 'INVALID_DATA',
        message: `task ${task.id}: field 'backend.involvedClasses': unknown BFCL class ${name}`,
        details: { taskId: task.id, path: 'backend.involvedClasses' },
      });
    }
    involvedClasses.push(name);
  }
  const cached = parsedConfigs.get(backend.initialConfig);
  if (cached !== undefined)
    return {
      initialConfig: cached,
      involvedClasses,
      longContext: backend.longContext,
    };
  let initialConfig: unknown;
  try {
    initialConfig = parsePyJson(backend.initialConfig);
  } catch (error) {
    throw new SealError({
      code: 'INVALID_DATA',
      message: `task ${task.id}: field 'backend.initialConfig': invalid JSON (${(error as Error).message})`,
      cause: error,
      details: { taskId: task.id, path: 'backend.initialConfig' },
    });
  }
  if (!(initialConfig instanceof PyDict)) {
    throw new SealError({
      code: 'INVALID_DATA',
      message: `task ${task.id}: field 'backend.initialConfig': expected a JSON object`,
      details: { taskId: task.id, path: 'backend.initialConfig' },
    });
  }
  freezePyTree(initialConfig);
  if (parsedConfigs.size >= maxParsedConfigs) parsedConfigs.clear();
  parsedConfigs.set(backend.initialConfig, initialConfig);
  return { initialConfig, involvedClasses, longContext: backend.longContext };
}

/** A BFCL tool session: one realm and one set of instances per episode. */
export function createBfclToolSession({
  task,
  runtime,
  realm,
}: {
  task: Task;
  runtime: BfclRuntimeData;
  /** Share a realm (one Python process) with another session; default: a fresh one. */
  realm?: BfclRealm;
}): BfclSession & ToolBackendV1Session {
  return new BfclSession({
    realm: realm ?? new BfclRealm({ data: runtime }),
    ...bfclSessionSpec(task),
  });
}

/**
 * The {@link ToolBackendV1} of BFCL's eight API classes: every session gets
 * its own realm and instances, so concurrent episodes never share state.
 */
export function createBfclBackend({
  runtime,
}: {
  runtime: BfclRuntimeData;
}): ToolBackendV1 {
  return {
    specificationVersion: 'v1',
    backendId: 'bfcl-v3',
    createSession(task) {
      return createBfclToolSession({ task, runtime });
    },
  };
}

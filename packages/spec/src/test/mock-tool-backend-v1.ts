import type { Task } from '../task/v1/task';
import type {
  ToolBackendV1,
  ToolBackendV1Execution,
  ToolBackendV1Session,
} from '../backend/v1/tool-backend-v1';

type ExecuteSetting =
  | ((callText: string, task: Task) => ToolBackendV1Execution)
  | ToolBackendV1Execution
  | ToolBackendV1Execution[];

/**
 * A test double of {@link ToolBackendV1}. `execute` is a function, one result
 * for every call, or a list of results returned in order (then it throws when
 * exhausted). Every call is recorded in `calls`.
 */
export class MockToolBackendV1 implements ToolBackendV1 {
  readonly specificationVersion = 'v1' as const;
  readonly backendId = 'mock';
  /** Every executed call, in order, with the task it ran for. */
  readonly calls: { taskId: string; callText: string }[] = [];
  /** How many sessions were created. */
  sessions = 0;
  private readonly setting: ExecuteSetting | undefined;
  private index = 0;

  constructor({ execute }: { execute?: ExecuteSetting } = {}) {
    this.setting = execute;
  }

  createSession(task: Task): ToolBackendV1Session {
    this.sessions++;
    return {
      execute: (callText) => {
        this.calls.push({ taskId: task.id, callText });
        const setting = this.setting;
        if (setting === undefined)
          throw new Error('MockToolBackendV1: execute is not configured');
        if (typeof setting === 'function') return setting(callText, task);
        if (Array.isArray(setting)) {
          const next = setting[this.index++];
          if (next === undefined)
            throw new Error('MockToolBackendV1: no more results configured');
          return next;
        }
        return setting;
      },
    };
  }
}

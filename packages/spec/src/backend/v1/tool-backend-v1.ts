import type { Task } from '../../task/v1/task';

/** The outcome of one executed call. */
export type ToolBackendV1Execution = {
  /** The result string shown to the model (for BFCL: exactly BFCL's rendering). */
  result: string;
  /**
   * `ok`: the tool returned; `raised`: it failed (the result carries the
   * error text); `rejected`: refused without running anything.
   */
  status: 'ok' | 'raised' | 'rejected';
  /**
   * The error the result signals, if any: a raised exception's text, or a
   * soft error the tool returned (BFCL: an `error` field). Drives error
   * feedback and diagnosis.
   */
  error?: string;
};

/**
 * The executable state of one episode: its own tool instances. Sessions
 * never share mutable state with each other.
 */
export type ToolBackendV1Session = {
  /** Runs one call given as Python call text, e.g. `cd(folder='docs')`. */
  execute(callText: string): ToolBackendV1Execution;
};

/**
 * Creates tool sessions for tasks. `@seal/bfcl` implements it for BFCL's API
 * classes; anything else that executes `Task.backend` can be swapped in.
 */
export type ToolBackendV1 = {
  readonly specificationVersion: 'v1';
  /** Identifies the implementation (e.g. `bfcl-v3`). */
  readonly backendId: string;
  /** A fresh session for one episode of `task`. */
  createSession(task: Task): ToolBackendV1Session;
};

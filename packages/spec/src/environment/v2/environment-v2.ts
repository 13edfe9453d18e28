import type { EpisodeTraceV2 } from './episode-trace-v2';
import type { TaskV2 } from './task-v2';
import type { ToolCallV2, ToolOutcomeV2 } from './tool-call-v2';
import type { ToolDocV2 } from './tool-v2';
import type { CheckerVerdictV2 } from './verdict-v2';

/** Who a session is for: the policy's rollout or the ground-truth replay. */
export type EnvironmentV2SessionRole = 'policy' | 'ground-truth';

/** Options for {@link EnvironmentV2.openSession}. */
export type EnvironmentV2OpenSessionOptions = {
  /** The task of the episode. */
  task: TaskV2;
  /** The session's role; each role gets its own session. */
  role: EnvironmentV2SessionRole;
};

/**
 * The live tools of one episode. Sessions never share mutable state; the
 * caller closes every session it opens.
 */
export type EnvironmentV2Session = {
  /** The tool docs (all of them; holdouts are the caller's business). */
  listTools(): PromiseLike<ToolDocV2[]>;
  /**
   * Runs one call. Never rejects for a tool's own failure: validation
   * failures, thrown errors, unknown names and timeouts come back as outcomes.
   */
  call(call: ToolCallV2): PromiseLike<ToolOutcomeV2>;
  /**
   * A JSON-comparable view of the session's state, for the `state` check.
   * Absent where the environment cannot expose one.
   */
  snapshot?(): PromiseLike<unknown>;
  /** Releases the session (processes, directories). Idempotent. */
  close(): PromiseLike<void>;
};

/** Options for {@link TaskCheckerV2}. */
export type TaskCheckerV2Options = {
  task: TaskV2;
  /** What the policy did, per turn. */
  trace: EpisodeTraceV2;
  /** The policy's session, still open, for reading final state. */
  session: EnvironmentV2Session;
};

/**
 * Decides a task without ground truth: one verdict per turn. A checker that
 * throws tags every turn `checker_error`.
 */
export type TaskCheckerV2 = (
  options: TaskCheckerV2Options,
) => PromiseLike<CheckerVerdictV2>;

/**
 * An environment: a factory of per-episode tool sessions. BFCL, a record of
 * AI SDK tools, and an MCP server are each one environment.
 */
export type EnvironmentV2 = {
  readonly specificationVersion: 'v2';
  /** Identifies the environment (e.g. `bfcl-v3`, `mcp:server-memory`). */
  readonly environmentId: string;
  /** A fresh session for one episode of `task`. */
  openSession(
    options: EnvironmentV2OpenSessionOptions,
  ): PromiseLike<EnvironmentV2Session>;
  /** Decides tasks that carry no `groundTruth`. */
  readonly checker?: TaskCheckerV2;
  /** Releases what the environment holds beyond its sessions. */
  close?(): PromiseLike<void>;
};

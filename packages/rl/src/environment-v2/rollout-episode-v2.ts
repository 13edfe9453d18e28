import {
  createEpisodeCore,
  createProtocol,
  holdoutSentence,
  toToolCall,
  type EpisodeLimits,
  type PendingEpisodeStep,
  type PromptMode,
  type ProtocolName,
} from '@seal/env';
import type {
  ChatMessage,
  EnvironmentV2,
  EnvironmentV2Session,
  EpisodeStamps,
  EpisodeTraceV2,
  EpisodeV1StepResult,
  InterfaceOverlay,
  Task,
  TaskV2,
  ToolBackendV1Execution,
  ToolOutcomeV2,
  TurnTraceV2,
} from '@seal/spec';
import type { RolloutEpisode } from '../train/training-environment';

/** Options of {@link createRolloutEpisodeV2}. */
export type RolloutEpisodeV2Options = {
  environment: EnvironmentV2;
  /** The v2 task the episode runs. */
  task: TaskV2;
  /** The loop's view of it (`loopTaskOfV2`): its tool docs and category. */
  loopTask: Task;
  protocol: ProtocolName;
  promptMode: PromptMode;
  mode: 'train' | 'eval';
  overlay?: InterfaceOverlay;
  limits?: EpisodeLimits;
  episodeId: string;
  stamps: EpisodeStamps;
};

/** A running v2 episode: the rollout engine's side, and the trace and session for its verdict. */
export type RolloutEpisodeV2 = Omit<RolloutEpisode, 'step'> & {
  /**
   * One model response: text the protocol parses, or (function calling, the
   * `openai-tools` protocol) the assistant message with its `toolCalls`.
   */
  step(
    response: string | ChatMessage,
    usage?: { promptTokens?: number; completionTokens?: number },
  ): Promise<EpisodeV1StepResult>;
  /** Model calls made so far. */
  readonly modelCalls: number;
  /** The structured trace so far (`verifyEpisodeV2` reads it). */
  trace(): EpisodeTraceV2;
  /**
   * The policy session, open until {@link RolloutEpisodeV2.close} (a
   * checker reads it); undefined before `reset`.
   */
  readonly session: EnvironmentV2Session | undefined;
  /** Takes the last turn's snapshot if it is missing, for the verdict. */
  settle(): Promise<void>;
  close(): Promise<void>;
};

function errorText(thrown: unknown): string {
  return thrown instanceof Error ? thrown.message : String(thrown);
}

/**
 * One episode of a v2 task driven by the rollout engine, as `createEpisode`
 * drives a BFCL task and on the same bookkeeping (`createEpisodeCore`): the
 * system prompt from the tool docs (the session's `listTools`, with the
 * training overlay's cues in train mode) through the protocol and prompt
 * mode; each response parsed by the protocol into structured calls
 * `{ name, arguments }` that run on the episode's own v2 session
 * (`session.call`, async); results and errors as observations (the overlay's
 * error hints in train mode); a reply without calls ends the turn; holdout
 * turns reveal their tools; the model-call budget and the per-turn step
 * limit, observation clipping and the context limit. Positional arguments
 * name no parameter of a JSON Schema tool: such a call is an invalid step.
 * The record has `createEpisode`'s shape (so `seal report` and `seal view`
 * open it; its calls are the protocol's text); the trace carries the
 * structured calls, their outcomes and a snapshot after each turn. Bad model
 * output never throws; a tool that throws or hangs is the session's outcome
 * (`tool_error`, `timeout`).
 */
export function createRolloutEpisodeV2(
  options: RolloutEpisodeV2Options,
): RolloutEpisodeV2 {
  const { environment, task, loopTask, episodeId } = options;
  const protocol = createProtocol(options.protocol);
  let session: EnvironmentV2Session | undefined;
  let closed = false;
  const traceTurns: TurnTraceV2[] = [];
  const currentTrace = (): TurnTraceV2 => traceTurns[traceTurns.length - 1]!;
  // The turn the conversation moved past in this step: its snapshot is
  // taken once the step's bookkeeping is done (no call runs in between).
  let advancedPast: TurnTraceV2 | undefined;
  const core = createEpisodeCore({
    taskId: task.id,
    // The environment's own category (an open string; see loopTaskOfV2).
    category: loopTask.category,
    turns: task.turns,
    holdouts: task.holdouts ?? [],
    tools: loopTask.tools,
    protocol,
    promptMode: options.promptMode,
    mode: options.mode,
    ...(options.overlay ? { overlay: options.overlay } : {}),
    ...(options.limits ? { limits: options.limits } : {}),
    requireNamedArguments: true,
    // A v2 outcome says itself whether the call failed.
    softToolErrors: false,
    emptyTurnPrompt: holdoutSentence,
    episodeId,
    stamps: options.stamps,
    onTurnStart: () => traceTurns.push({ steps: [] }),
    onTurnEnd: ({ reason, by }) => {
      if (by === 'advance') advancedPast = currentTrace();
      else currentTrace().endReason ??= reason;
    },
  });

  const snapshotTurn = async (trace: TurnTraceV2): Promise<void> => {
    if (session?.snapshot === undefined || 'snapshot' in trace) return;
    try {
      trace.snapshot = await session.snapshot();
    } catch (thrown) {
      trace.endReason = `snapshot failed: ${errorText(thrown)}`;
    }
  };

  const call = async (
    name: string,
    args: Record<string, unknown>,
  ): Promise<ToolOutcomeV2> => {
    try {
      return await session!.call({ name, arguments: args });
    } catch (thrown) {
      // An adapter bug must not cross the episode boundary.
      const error = errorText(thrown);
      return {
        kind: 'tool_error',
        ok: false,
        content: `Error: ${error}`,
        error,
      };
    }
  };

  /** Records a step in the trace; runs its calls, in order. */
  const run = async (
    step: PendingEpisodeStep,
    trace: TurnTraceV2,
  ): Promise<ToolBackendV1Execution[]> => {
    if (step.type === 'parse-error') {
      trace.steps.push({
        type: 'invalid',
        text: step.text,
        error: step.message,
      });
    } else if (step.type === 'reply') {
      trace.reply = step.content;
    } else if (step.type === 'rejected') {
      // Nothing in this message runs; the trace keeps why.
      for (const { call: decoded, reason, message } of step.rejections) {
        const toolCall = toToolCall(decoded);
        trace.steps.push(
          reason === 'invalid-call'
            ? { type: 'invalid', text: toolCall.callText, error: message }
            : {
                type: 'call',
                call: { name: decoded.name, arguments: toolCall.arguments },
                outcome: {
                  kind: 'unknown_tool',
                  ok: false,
                  content: `Error: ${message}`,
                  error: message,
                },
              },
        );
      }
    } else {
      const executions: ToolBackendV1Execution[] = [];
      for (const toolCall of step.calls) {
        const outcome = await call(toolCall.name, toolCall.arguments);
        trace.steps.push({
          type: 'call',
          call: { name: toolCall.name, arguments: toolCall.arguments },
          outcome,
        });
        executions.push({
          result: outcome.content,
          status: outcome.ok ? 'ok' : 'raised',
          ...(outcome.ok ? {} : { error: outcome.error ?? outcome.kind }),
        });
      }
      return executions;
    }
    return [];
  };

  return {
    protocol,
    get done() {
      return core.done;
    },
    get session() {
      return session;
    },
    get modelCalls() {
      return core.modelCalls;
    },
    tools: core.tools,
    messages: core.messages,
    trace: () => ({
      taskId: task.id,
      turns: traceTurns.map((turn) => ({ ...turn, steps: [...turn.steps] })),
    }),

    async reset() {
      core.claim();
      session = await environment.openSession({ task, role: 'policy' });
      return core.start(() =>
        protocol.renderSystemPrompt({
          tools: core.tools(),
          mode: options.promptMode,
          notes: core.overlay.systemNotes.map((note) => note.text),
        }),
      );
    },

    async step(response, usage): Promise<EpisodeV1StepResult> {
      // The trace of the turn this response belongs to, before a reply
      // starts the next.
      const trace = currentTrace();
      advancedPast = undefined;
      const step = core.beginStep(response, usage);
      const result = step.end(await run(step, trace));
      if (advancedPast) await snapshotTurn(advancedPast);
      return result;
    },

    abort: core.abort,

    async settle() {
      const last = traceTurns[traceTurns.length - 1];
      if (last) await snapshotTurn(last);
    },

    async close() {
      if (closed) return;
      closed = true;
      await session?.close();
    },

    record: core.record,
  };
}

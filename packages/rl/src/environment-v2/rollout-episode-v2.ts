import {
  applyErrorFeedback,
  applyToolPatches,
  assertEvalOverlay,
  createProtocol,
  hashOverlay,
  holdoutSentence,
  overlayApplies,
  parseErrorHints,
  toToolCall,
  type CallResult,
  type EpisodeLimits,
  type PromptMode,
  type ProtocolName,
  type ProtocolParseResult,
} from '@seal/env';
import {
  SealError,
  emptyOverlay,
  type ChatMessage,
  type EnvironmentV2,
  type EnvironmentV2Session,
  type EpisodeEndReason,
  type EpisodeEvent,
  type EpisodeRecord,
  type EpisodeStamps,
  type EpisodeStep,
  type EpisodeTraceV2,
  type EpisodeTurn,
  type EpisodeV1StepResult,
  type InterfaceOverlay,
  type Task,
  type TaskV2,
  type ToolDoc,
  type ToolOutcomeV2,
  type TurnEndReason,
  type TurnTraceV2,
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

/** Clips an observation to `maxTokens` (as `createEpisode` does; default counter: a token per 4 characters). */
function clip(
  text: string,
  maxTokens: number | undefined,
  count: (text: string) => number,
): string {
  if (maxTokens === undefined || count(text) <= maxTokens) return text;
  let lo = 0;
  let hi = text.length;
  while (lo < hi) {
    const mid = Math.ceil((lo + hi) / 2);
    if (count(text.slice(0, mid)) <= maxTokens) lo = mid;
    else hi = mid - 1;
  }
  return `${text.slice(0, lo)}\n[... observation clipped ...]`;
}

function errorText(thrown: unknown): string {
  return thrown instanceof Error ? thrown.message : String(thrown);
}

/**
 * One episode of a v2 task driven by the rollout engine, as `createEpisode`
 * drives a BFCL task: the system prompt from the tool docs (the session's
 * `listTools`, with the training overlay's cues in train mode) through the
 * protocol and prompt mode; each response parsed by the protocol into
 * structured calls `{ name, arguments }` that run on the episode's own v2
 * session (`session.call`, async); results and errors as observations (the
 * overlay's error hints in train mode); a reply without calls ends the turn;
 * holdout turns reveal their tools; the model-call budget and the per-turn
 * step limit, observation clipping and the context limit. Positional arguments name no parameter of a JSON Schema tool:
 * such a call is an invalid step. The record has `createEpisode`'s shape (so
 * `seal report` and `seal view` open it; its calls are the protocol's text);
 * the trace carries the structured calls, their outcomes and a snapshot
 * after each turn. Bad model output never throws; a tool that throws or
 * hangs is the session's outcome (`tool_error`, `timeout`).
 */
export function createRolloutEpisodeV2(
  options: RolloutEpisodeV2Options,
): RolloutEpisodeV2 {
  const { environment, task, loopTask, episodeId } = options;
  if (options.mode === 'eval') assertEvalOverlay(options.overlay);
  const overlay =
    options.mode === 'train' &&
    options.overlay &&
    overlayApplies(options.overlay, loopTask.category)
      ? options.overlay
      : emptyOverlay;
  const protocol = createProtocol(options.protocol);
  const limits = options.limits ?? {};
  const maxModelCalls = limits.maxModelCalls ?? 20;
  const countTokens =
    limits.countTokens ?? ((text: string) => Math.ceil(text.length / 4));
  const overlayHash = hashOverlay(overlay);
  const allToolNames = new Set(loopTask.tools.map((doc) => doc.name));
  const available = new Set(
    [...allToolNames].filter(
      (name) =>
        !(task.holdouts ?? []).some((holdout) =>
          holdout.toolNames.includes(name),
        ),
    ),
  );

  let session: EnvironmentV2Session | undefined;
  let closed = false;
  const messages: ChatMessage[] = [];
  const events: EpisodeEvent[] = [];
  const turns: EpisodeTurn[] = [];
  const traceTurns: TurnTraceV2[] = [];
  let turnIndex = 0;
  let stepInTurn = 0;
  let executedSteps = 0;
  let modelCalls = 0;
  let started = false;
  let done = false;
  let endReason: EpisodeEndReason | undefined;

  const visibleTools = (): ToolDoc[] =>
    applyToolPatches(
      loopTask.tools.filter((doc) => available.has(doc.name)),
      overlay,
    );
  const availableNames = (): string[] =>
    loopTask.tools
      .filter((doc) => available.has(doc.name))
      .map((doc) => doc.name);
  const currentTurn = (): EpisodeTurn => turns[turns.length - 1]!;
  const currentTrace = (): TurnTraceV2 => traceTurns[traceTurns.length - 1]!;

  const snapshotTurn = async (trace: TurnTraceV2): Promise<void> => {
    if (session?.snapshot === undefined || 'snapshot' in trace) return;
    try {
      trace.snapshot = await session.snapshot();
    } catch (thrown) {
      trace.endReason = `snapshot failed: ${errorText(thrown)}`;
    }
  };

  const startTurn = (index: number): ChatMessage[] => {
    const holdout = (task.holdouts ?? []).find((h) => h.turn === index);
    const revealed: string[] = [];
    const out: ChatMessage[] = [];
    const questions = task.turns[index] ?? [];
    if (holdout) {
      for (const name of holdout.toolNames) {
        if (!available.has(name)) revealed.push(name);
        available.add(name);
      }
      const docs = loopTask.tools.filter((doc) =>
        holdout.toolNames.includes(doc.name),
      );
      const text = protocol.renderHoldout({
        tools: docs,
        mode: options.promptMode,
      });
      const first = questions[0];
      out.push({
        role: 'user',
        content: first ? `${text}\n${first.content}` : text,
      });
      out.push(...questions.slice(1));
    } else if (questions.length === 0) {
      out.push({ role: 'user', content: holdoutSentence });
    } else {
      out.push(...questions);
    }
    turns.push({ turn: index, steps: [] });
    traceTurns.push({ steps: [] });
    events.push({ type: 'turn-start', turn: index, revealedTools: revealed });
    stepInTurn = 0;
    executedSteps = 0;
    return out;
  };

  const finish = (reason: EpisodeEndReason, turnReason?: TurnEndReason) => {
    if (done) return;
    if (
      turnReason !== undefined &&
      turns.length > 0 &&
      currentTurn().endReason === undefined
    ) {
      currentTurn().endReason = turnReason;
      currentTrace().endReason ??= turnReason;
      events.push({ type: 'turn-end', turn: turnIndex, reason: turnReason });
    }
    done = true;
    endReason = reason;
    events.push({ type: 'episode-end', reason, modelCalls });
  };

  const advanceTurn = async (reason: TurnEndReason): Promise<ChatMessage[]> => {
    currentTurn().endReason = reason;
    events.push({ type: 'turn-end', turn: turnIndex, reason });
    await snapshotTurn(currentTrace());
    turnIndex++;
    if (turnIndex >= task.turns.length) {
      finish('completed');
      return [];
    }
    return startTurn(turnIndex);
  };

  const errorObservation = (message: string): ChatMessage[] =>
    protocol.renderError(
      [message, ...parseErrorHints(overlay, availableNames())].join('\n'),
    );

  const parseSafely = (response: string | ChatMessage): ProtocolParseResult => {
    try {
      return protocol.parse(response);
    } catch (thrown) {
      return {
        kind: 'error',
        message: `could not parse the response (${errorText(thrown)})`,
      };
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

  const episode: RolloutEpisodeV2 = {
    protocol,
    get done() {
      return done;
    },
    get session() {
      return session;
    },
    get modelCalls() {
      return modelCalls;
    },
    tools: visibleTools,
    messages: () => messages.map((message) => ({ ...message })),
    trace: () => ({
      taskId: task.id,
      turns: traceTurns.map((turn) => ({ ...turn, steps: [...turn.steps] })),
    }),

    async reset() {
      if (started)
        throw new SealError({
          code: 'INVALID_STATE',
          message: `episode ${episodeId} was already started`,
        });
      started = true;
      session = await environment.openSession({ task, role: 'policy' });
      events.push({
        type: 'episode-start',
        taskId: task.id,
        mode: options.mode,
        protocol: protocol.name,
        overlayHash,
      });
      const system = protocol.renderSystemPrompt({
        tools: visibleTools(),
        mode: options.promptMode,
        notes: overlay.systemNotes.map((note) => note.text),
      });
      if (system.length > 0) messages.push({ role: 'system', content: system });
      messages.push(...startTurn(0));
      return messages.map((message) => ({ ...message }));
    },

    async step(response, usage): Promise<EpisodeV1StepResult> {
      if (!started || done)
        throw new SealError({
          code: 'INVALID_STATE',
          message: done
            ? `episode ${episodeId} is over (${endReason})`
            : 'call reset() before step()',
        });
      const firstEvent = events.length;
      modelCalls++;
      stepInTurn++;
      const assistant: ChatMessage =
        typeof response === 'string'
          ? { role: 'assistant', content: response }
          : { ...response, role: 'assistant' };
      messages.push(assistant);
      events.push({
        type: 'model-response',
        turn: turnIndex,
        step: stepInTurn - 1,
        text: assistant.content,
        ...(usage?.completionTokens === undefined
          ? {}
          : { tokens: usage.completionTokens }),
      });
      const step: EpisodeStep = {
        text: assistant.content,
        calls: [],
        results: [],
        rejectedCalls: 0,
        ...(usage?.promptTokens === undefined
          ? {}
          : { promptTokens: usage.promptTokens }),
        ...(usage?.completionTokens === undefined
          ? {}
          : { completionTokens: usage.completionTokens }),
      };
      currentTurn().steps.push(step);
      const trace = currentTrace();
      const parsed = parseSafely(response);
      let observation: ChatMessage[];
      if (parsed.kind === 'error') {
        step.parseError = parsed.message;
        events.push({
          type: 'parse-error',
          turn: turnIndex,
          step: stepInTurn - 1,
          message: parsed.message,
        });
        trace.steps.push({
          type: 'invalid',
          text: assistant.content,
          error: parsed.message,
        });
        observation = errorObservation(parsed.message);
      } else if (parsed.kind === 'reply') {
        trace.reply = parsed.content;
        observation = await advanceTurn('reply');
      } else {
        const positional = parsed.calls.filter((c) => c.args.length > 0);
        const refused = parsed.calls.filter((c) => !available.has(c.name));
        if (positional.length > 0 || refused.length > 0) {
          // Nothing in this message runs; the trace keeps why.
          step.rejectedCalls = parsed.calls.length;
          for (const decoded of parsed.calls) {
            const unknown = !available.has(decoded.name);
            if (unknown) {
              const reason = allToolNames.has(decoded.name)
                ? 'unavailable-tool'
                : 'unknown-tool';
              const message = `tool '${decoded.name}' is not available`;
              events.push({
                type: 'call-rejected',
                turn: turnIndex,
                step: stepInTurn - 1,
                reason,
                name: decoded.name,
                message,
              });
              trace.steps.push({
                type: 'call',
                call: {
                  name: decoded.name,
                  arguments: toToolCall(decoded).arguments,
                },
                outcome: {
                  kind: 'unknown_tool',
                  ok: false,
                  content: `Error: ${message}`,
                  error: message,
                },
              });
            } else if (decoded.args.length > 0) {
              const message = `${decoded.name}: name every argument (positional arguments name no parameter)`;
              events.push({
                type: 'call-rejected',
                turn: turnIndex,
                step: stepInTurn - 1,
                reason: 'invalid-call',
                name: decoded.name,
                message,
              });
              trace.steps.push({
                type: 'invalid',
                text: toToolCall(decoded).callText,
                error: message,
              });
            }
          }
          const problems = [
            ...(refused.length > 0
              ? [
                  `${refused.length === 1 ? 'tool' : 'tools'} ${refused.map((c) => `'${c.name}'`).join(', ')} ${refused.length === 1 ? 'is' : 'are'} not available`,
                ]
              : []),
            ...(positional.length > 0
              ? [
                  `name every argument of ${positional.map((c) => `'${c.name}'`).join(', ')}`,
                ]
              : []),
          ];
          observation = errorObservation(
            `${problems.join('; ')}; no call in this message was executed`,
          );
        } else {
          const results: CallResult[] = [];
          for (const decoded of parsed.calls) {
            const toolCall = toToolCall(decoded);
            const outcome = await call(toolCall.name, toolCall.arguments);
            trace.steps.push({
              type: 'call',
              call: { name: toolCall.name, arguments: toolCall.arguments },
              outcome,
            });
            step.calls.push(toolCall.callText);
            step.results.push(outcome.content);
            events.push({
              type: 'call-executed',
              turn: turnIndex,
              step: stepInTurn - 1,
              call: toolCall,
              result: outcome.content,
              status: outcome.ok ? 'ok' : 'raised',
              ...(outcome.ok ? {} : { error: outcome.error ?? outcome.kind }),
            });
            const shown =
              overlay === emptyOverlay || outcome.ok
                ? outcome.content
                : applyErrorFeedback({
                    text: outcome.content,
                    overlay,
                    tools: availableNames(),
                    tool: toolCall.name,
                    call: toolCall.callText,
                  });
            results.push({
              call: toolCall,
              result: clip(shown, limits.maxObservationTokens, countTokens),
            });
          }
          observation = protocol.renderResults(results);
          executedSteps++;
          if (
            limits.maxStepsPerTurn !== undefined &&
            executedSteps > limits.maxStepsPerTurn
          )
            finish('step-limit', 'step-limit');
        }
      }
      if (
        !done &&
        parsed.kind !== 'reply' &&
        limits.maxAttemptsPerTurn !== undefined &&
        stepInTurn > limits.maxAttemptsPerTurn
      ) {
        observation = [...observation, ...(await advanceTurn('step-limit'))];
      }
      messages.push(...observation);
      if (!done && modelCalls >= maxModelCalls)
        finish('budget-exhausted', 'budget-exhausted');
      if (
        !done &&
        limits.maxContextTokens !== undefined &&
        countTokens(messages.map((message) => message.content).join('\n')) >
          limits.maxContextTokens
      )
        finish('context-limit', 'context-limit');
      return {
        observation: observation.map((message) => ({ ...message })),
        turn: turnIndex,
        done,
        events: events.slice(firstEvent),
      };
    },

    abort(reason = 'aborted') {
      if (!done)
        finish(
          reason,
          reason === 'context-limit' ? 'context-limit' : undefined,
        );
    },

    async settle() {
      const last = traceTurns[traceTurns.length - 1];
      if (last) await snapshotTurn(last);
    },

    async close() {
      if (closed) return;
      closed = true;
      await session?.close();
    },

    record(): EpisodeRecord {
      return {
        schemaVersion: 1,
        episodeId,
        taskId: task.id,
        // The environment's own category (an open string; see loopTaskOfV2).
        category: loopTask.category,
        mode: options.mode,
        protocol: protocol.name,
        overlayHash,
        messages: messages.map((message) => ({ ...message })),
        turns: turns.map((turn) => ({
          ...turn,
          steps: turn.steps.map((step) => ({ ...step })),
        })),
        events: [...events],
        endReason: endReason ?? 'aborted',
        modelCalls,
        stamps: options.stamps,
      };
    },
  };
  return episode;
}

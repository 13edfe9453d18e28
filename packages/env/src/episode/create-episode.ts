import {
  SealError,
  emptyOverlay,
  type ChatMessage,
  type EpisodeEndReason,
  type EpisodeEvent,
  type EpisodeRecord,
  type EpisodeStamps,
  type EpisodeStep,
  type EpisodeTurn,
  type EpisodeV1,
  type EpisodeV1StepResult,
  type InterfaceOverlay,
  type Task,
  type ToolBackendV1,
  type ToolBackendV1Execution,
  type ToolBackendV1Session,
  type ToolCall,
  type ToolDoc,
  type TurnEndReason,
} from '@seal/spec';
import {
  applyErrorFeedback,
  applyToolPatches,
  assertEvalOverlay,
  hashOverlay,
  overlayApplies,
  parseErrorHints,
  toolErrorText,
} from '../overlay/apply-overlay';
import { createProtocol, type ProtocolName } from '../protocols';
import {
  toToolCall,
  type CallResult,
  type PromptMode,
  type ProtocolParseResult,
  type ToolCallProtocol,
} from '../protocols/tool-call-protocol';

/** Limits of one episode. */
export type EpisodeLimits = {
  /** Model calls per episode, all turns together (SEAL: 20). Default 20. */
  maxModelCalls?: number;
  /**
   * BFCL's official per-turn step limit (20): a turn whose executed steps
   * exceed it force-quits the episode, as BFCL's runner does. Off by default.
   */
  maxStepsPerTurn?: number;
  /**
   * Environment Tuning's per-turn attempt cap (`max_step_limit` 5): the
   * model's actions in a turn other than its closing reply (tool steps,
   * refused calls, unparsable responses) count as attempts, and the action
   * past the cap force-advances the conversation to the next turn (the turn
   * ends with `step-limit`; the episode goes on). Off by default.
   */
  maxAttemptsPerTurn?: number;
  /** End the episode when the conversation exceeds this many tokens. */
  maxContextTokens?: number;
  /** Clip each observation to this many tokens (SEAL: 4096). */
  maxObservationTokens?: number;
  /** Token counter for the limits; default: one token per 4 characters. */
  countTokens?: (text: string) => number;
};

/** Options of {@link createEpisode}. */
export type CreateEpisodeOptions = {
  /** The task to run. */
  task: Task;
  /** Creates the episode's own tool instances. */
  backend: ToolBackendV1;
  /** Tool-call protocol (default `qwen-xml`, SEAL's `bfcl_qwen_fc`). */
  protocol?: ToolCallProtocol | ProtocolName;
  /** How tool docs are rendered (default `full`). */
  promptMode?: PromptMode;
  /** `train` applies the overlay; `eval` refuses any non-empty overlay. Default `eval`. */
  mode?: 'train' | 'eval';
  /** The training interface overlay (train mode only). */
  overlay?: InterfaceOverlay;
  limits?: EpisodeLimits;
  /** Text placed before the tool section of the system prompt. */
  preamble?: string;
  /**
   * Refuse calls to tools that are unknown or not yet revealed (SEAL's
   * `enforce_available_tools`, default true). With false, every call goes to
   * the backend as in BFCL's own runner, which never checks availability
   * (an unknown name then fails there with BFCL's NameError text).
   */
  enforceAvailableTools?: boolean;
  /** Unique id; default `<task id>:<sequence>`. */
  episodeId?: string;
  /** Provenance stamps copied into the record. */
  stamps?: EpisodeStamps;
};

let episodeSequence = 0;

/**
 * Rendered tool sections of system prompts, by task, overlay and protocol
 * name with prompt mode: every episode of a task under one overlay object
 * (an evaluation, a training step's group, a server's creates with the same
 * params) shows the same section, and rendering a task's docs costs more than
 * the rest of a reset. Keyed by identity: tasks and overlays are values, not
 * mutated after use (see `hashOverlay`). Only protocols named by string are
 * cached; a protocol object may render anything.
 */
const toolSections = new WeakMap<
  Task,
  WeakMap<InterfaceOverlay, Map<string, string>>
>();

function defaultCountTokens(text: string): number {
  return Math.ceil(text.length / 4);
}

function clip(
  text: string,
  maxTokens: number | undefined,
  count: (text: string) => number,
): string {
  if (maxTokens === undefined || count(text) <= maxTokens) return text;
  // Binary search the longest prefix within the budget.
  let lo = 0;
  let hi = text.length;
  while (lo < hi) {
    const mid = Math.ceil((lo + hi) / 2);
    if (count(text.slice(0, mid)) <= maxTokens) lo = mid;
    else hi = mid - 1;
  }
  return `${text.slice(0, lo)}\n[... observation clipped ...]`;
}

/** A running episode (see {@link createEpisode}). */
export type Episode = EpisodeV1 & {
  /** The tools the model may call now (overlay cues applied in train mode). */
  tools(): ToolDoc[];
  /** The conversation so far. */
  messages(): ChatMessage[];
  /** The current question-turn index. */
  readonly turn: number;
  /** Model calls made so far. */
  readonly modelCalls: number;
  /** The protocol in use. */
  readonly protocol: ToolCallProtocol;
  /**
   * Stops the episode; the record stays complete up to here. The reason
   * defaults to `aborted`; a caller that measures tokens itself ends an
   * episode whose next prompt would not fit with `context-limit`.
   */
  abort(reason?: 'aborted' | 'context-limit'): void;
};

/**
 * Starts an episode of `task` (SEAL §6.2, BFCL §3): the system prompt from the
 * tool docs through the protocol and prompt mode; per-step parsing; the
 * availability check (unknown and held-out tools are refused); execution on
 * the episode's own tool instances; observations; the turn ends on a reply
 * without calls; holdout turns reveal their tools with BFCL's message; a
 * model-call budget, BFCL's per-turn step limit and Environment Tuning's
 * per-turn attempt cap as options, and context limits. Bad model output
 * never throws: it becomes an observation and an event.
 */
export function createEpisode(options: CreateEpisodeOptions): Episode {
  const { task, backend } = options;
  const mode = options.mode ?? 'eval';
  if (mode === 'eval') assertEvalOverlay(options.overlay);
  const overlay =
    mode === 'train' &&
    options.overlay &&
    overlayApplies(options.overlay, task.category)
      ? options.overlay
      : emptyOverlay;
  const protocol =
    typeof options.protocol === 'object'
      ? options.protocol
      : createProtocol(options.protocol ?? 'qwen-xml');
  const promptMode = options.promptMode ?? 'full';
  const limits = options.limits ?? {};
  const maxModelCalls = limits.maxModelCalls ?? 20;
  const countTokens = limits.countTokens ?? defaultCountTokens;
  const episodeId = options.episodeId ?? `${task.id}:${episodeSequence++}`;
  const overlayHash = hashOverlay(overlay);

  const allToolNames = new Set(task.tools.map((doc) => doc.name));
  const heldOut = new Set(
    task.holdouts.flatMap((holdout) => holdout.toolNames),
  );
  const available = new Set(
    [...allToolNames].filter((name) => !heldOut.has(name)),
  );

  let session: ToolBackendV1Session | undefined;
  const messages: ChatMessage[] = [];
  const events: EpisodeEvent[] = [];
  const turns: EpisodeTurn[] = [];
  let turnIndex = 0;
  let stepInTurn = 0;
  let executedSteps = 0;
  let modelCalls = 0;
  let started = false;
  let done = false;
  let endReason: EpisodeEndReason | undefined;

  const visibleTools = (): ToolDoc[] =>
    applyToolPatches(
      task.tools.filter((doc) => available.has(doc.name)),
      overlay,
    );
  const renderToolSection = (): string => {
    const render = () =>
      protocol.renderSystemPrompt({
        tools: visibleTools(),
        mode: promptMode,
        notes: overlay.systemNotes.map((note) => note.text),
      });
    if (typeof options.protocol === 'object') return render();
    let byOverlay = toolSections.get(task);
    if (!byOverlay) toolSections.set(task, (byOverlay = new WeakMap()));
    let byKey = byOverlay.get(overlay);
    if (!byKey) byOverlay.set(overlay, (byKey = new Map()));
    const key = `${protocol.name}\u0000${promptMode}`;
    let section = byKey.get(key);
    if (section === undefined) byKey.set(key, (section = render()));
    return section;
  };
  const availableNames = (): string[] =>
    task.tools.filter((doc) => available.has(doc.name)).map((doc) => doc.name);
  const currentTurn = (): EpisodeTurn => turns[turns.length - 1]!;

  const startTurn = (index: number): ChatMessage[] => {
    const holdout = task.holdouts.find((h) => h.turn === index);
    const revealed: string[] = [];
    const out: ChatMessage[] = [];
    if (holdout) {
      for (const name of holdout.toolNames) {
        if (!available.has(name)) revealed.push(name);
        available.add(name);
      }
      // Revealed tools come as a user message, without overlay cues (SEAL §4.2).
      const docs = task.tools.filter((doc) =>
        holdout.toolNames.includes(doc.name),
      );
      const text = protocol.renderHoldout({ tools: docs, mode: promptMode });
      const questions = task.turns[index] ?? [];
      const first = questions[0];
      out.push({
        role: 'user',
        content: first ? `${text}\n${first.content}` : text,
      });
      out.push(...questions.slice(1));
    } else {
      out.push(...(task.turns[index] ?? []));
    }
    turns.push({ turn: index, steps: [] });
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
      events.push({ type: 'turn-end', turn: turnIndex, reason: turnReason });
    }
    done = true;
    endReason = reason;
    events.push({ type: 'episode-end', reason, modelCalls });
  };

  const advanceTurn = (reason: TurnEndReason): ChatMessage[] => {
    currentTurn().endReason = reason;
    events.push({ type: 'turn-end', turn: turnIndex, reason });
    turnIndex++;
    if (turnIndex >= task.turns.length) {
      finish('completed');
      return [];
    }
    return startTurn(turnIndex);
  };

  const errorObservation = (message: string): ChatMessage[] => {
    const hints = parseErrorHints(overlay, availableNames());
    return protocol.renderError([message, ...hints].join('\n'));
  };

  const parseSafely = (response: string | ChatMessage): ProtocolParseResult => {
    try {
      return protocol.parse(response);
    } catch (error) {
      return {
        kind: 'error',
        message: `could not parse the response (${(error as Error).message})`,
      };
    }
  };

  const execute = (call: ToolCall): ToolBackendV1Execution => {
    session ??= backend.createSession(task);
    try {
      return session.execute(call.callText);
    } catch (error) {
      // A backend bug must not cross the episode boundary.
      const message = (error as Error).message;
      return {
        result: `Error during execution: ${message}`,
        status: 'raised',
        error: message,
      };
    }
  };

  const episode: Episode = {
    specificationVersion: 'v1',
    taskId: task.id,
    protocol,
    get done() {
      return done;
    },
    get turn() {
      return turnIndex;
    },
    get modelCalls() {
      return modelCalls;
    },
    tools: visibleTools,
    messages: () => messages.map((message) => ({ ...message })),

    reset() {
      if (started) {
        throw new SealError({
          code: 'INVALID_STATE',
          message: `episode ${episodeId} was already started`,
        });
      }
      started = true;
      events.push({
        type: 'episode-start',
        taskId: task.id,
        mode,
        protocol: protocol.name,
        overlayHash,
      });
      const toolSection = renderToolSection();
      const system = [options.preamble, toolSection]
        .filter((part) => part && part.length > 0)
        .join('\n\n');
      if (system.length > 0) messages.push({ role: 'system', content: system });
      if (task.turns.length === 0) {
        finish('completed');
        return messages.map((message) => ({ ...message }));
      }
      messages.push(...startTurn(0));
      return messages.map((message) => ({ ...message }));
    },

    step(
      response,
      usage?: { promptTokens?: number; completionTokens?: number },
    ): EpisodeV1StepResult {
      if (!started)
        throw new SealError({
          code: 'INVALID_STATE',
          message: 'call reset() before step()',
        });
      if (done)
        throw new SealError({
          code: 'INVALID_STATE',
          message: `episode ${episodeId} is over (${endReason})`,
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
        observation = errorObservation(parsed.message);
      } else if (parsed.kind === 'reply') {
        observation = advanceTurn('reply');
      } else {
        const refused =
          options.enforceAvailableTools === false
            ? []
            : parsed.calls.filter((call) => !available.has(call.name));
        if (refused.length > 0) {
          step.rejectedCalls = parsed.calls.length;
          for (const call of refused) {
            events.push({
              type: 'call-rejected',
              turn: turnIndex,
              step: stepInTurn - 1,
              reason: allToolNames.has(call.name)
                ? 'unavailable-tool'
                : 'unknown-tool',
              name: call.name,
              message: `tool '${call.name}' is not available`,
            });
          }
          const names = refused.map((call) => `'${call.name}'`).join(', ');
          observation = errorObservation(
            `${refused.length === 1 ? 'tool' : 'tools'} ${names} ${refused.length === 1 ? 'is' : 'are'} not available; no call in this message was executed`,
          );
        } else {
          const results: CallResult[] = [];
          for (const decoded of parsed.calls) {
            const call = toToolCall(decoded);
            const { result, status, error } = execute(call);
            step.calls.push(call.callText);
            step.results.push(result);
            events.push({
              type: 'call-executed',
              turn: turnIndex,
              step: stepInTurn - 1,
              call,
              result,
              status,
              ...(error === undefined ? {} : { error }),
            });
            const isError =
              error !== undefined ||
              status !== 'ok' ||
              toolErrorText(result) !== undefined;
            const shown =
              overlay === emptyOverlay || !isError
                ? result
                : applyErrorFeedback({
                    text: result,
                    overlay,
                    tools: availableNames(),
                    tool: call.name,
                    call: call.callText,
                  });
            results.push({
              call,
              result: clip(shown, limits.maxObservationTokens, countTokens),
            });
          }
          observation = protocol.renderResults(results);
          executedSteps++;
          if (
            limits.maxStepsPerTurn !== undefined &&
            executedSteps > limits.maxStepsPerTurn
          ) {
            finish('step-limit', 'step-limit');
          }
        }
      }
      if (
        !done &&
        parsed.kind !== 'reply' &&
        limits.maxAttemptsPerTurn !== undefined &&
        stepInTurn > limits.maxAttemptsPerTurn
      ) {
        // The forced advance shows this attempt's feedback, then the next question.
        observation = [...observation, ...advanceTurn('step-limit')];
      }
      messages.push(...observation);
      if (!done && modelCalls >= maxModelCalls)
        finish('budget-exhausted', 'budget-exhausted');
      if (
        !done &&
        limits.maxContextTokens !== undefined &&
        countTokens(messages.map((message) => message.content).join('\n')) >
          limits.maxContextTokens
      ) {
        finish('context-limit', 'context-limit');
      }
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

    record(): EpisodeRecord {
      return {
        schemaVersion: 1,
        episodeId,
        taskId: task.id,
        category: task.category,
        mode,
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
        ...(options.stamps ? { stamps: options.stamps } : {}),
      };
    },
  };
  return episode;
}

import {
  SealError,
  emptyOverlay,
  type CallRejectionReason,
  type ChatMessage,
  type EpisodeEndReason,
  type EpisodeEvent,
  type EpisodeRecord,
  type EpisodeStamps,
  type EpisodeStep,
  type EpisodeTurn,
  type EpisodeV1StepResult,
  type InterfaceOverlay,
  type TaskCategory,
  type ToolBackendV1Execution,
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
import {
  toToolCall,
  type CallResult,
  type DecodedCall,
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

/** Options of {@link createEpisodeCore}. */
export type CreateEpisodeCoreOptions = {
  /** The task's id, for the events and the record. */
  taskId: string;
  /** The task's category: the overlay's scope and the record's category. */
  category: TaskCategory;
  /** The question turns; each a list of messages. */
  turns: readonly (readonly ChatMessage[])[];
  /** Tools withheld until a turn; that turn's user message reveals them. */
  holdouts: readonly { turn: number; toolNames: readonly string[] }[];
  /** Every tool doc, held-out ones included. */
  tools: readonly ToolDoc[];
  /** The protocol that parses responses and renders observations. */
  protocol: ToolCallProtocol;
  /** How holdout turns render the tools they reveal. */
  promptMode: PromptMode;
  /** `train` applies the overlay; `eval` refuses any non-empty overlay. */
  mode: 'train' | 'eval';
  /** The training interface overlay (train mode only). */
  overlay?: InterfaceOverlay;
  limits?: EpisodeLimits;
  /**
   * Refuse calls to tools that are unknown or not yet revealed (default
   * true). With false, availability is left to whoever executes the calls.
   */
  enforceAvailableTools?: boolean;
  /**
   * Refuse calls with positional arguments (default false): they name no
   * parameter of a JSON Schema tool, so such a call is an invalid step.
   */
  requireNamedArguments?: boolean;
  /**
   * Whether a call that returned a result reading as a tool error
   * (`toolErrorText`, BFCL's `{"error": …}`) gets the overlay's error
   * feedback (default true). Executors that report every failure in the
   * status turn it off.
   */
  softToolErrors?: boolean;
  /**
   * The user message of a turn with no messages and no holdout; by default
   * such a turn adds no message.
   */
  emptyTurnPrompt?: string;
  /** Unique id of the episode. */
  episodeId: string;
  /** Provenance stamps copied into the record. */
  stamps?: EpisodeStamps;
  /** Called as each turn starts, before its `turn-start` event. */
  onTurnStart?: (turn: number) => void;
  /**
   * Called as a turn ends: `advance` when the conversation moves past it (a
   * reply, or the attempt cap), `finish` when the episode ends inside it
   * (the budget, the step limit, the context limit).
   */
  onTurnEnd?: (end: {
    turn: number;
    reason: TurnEndReason;
    by: 'advance' | 'finish';
  }) => void;
};

/** A call refused before anything in its message ran. */
export type EpisodeCallRejection = {
  /** The call as the protocol decoded it. */
  call: DecodedCall;
  /** Why it was refused (the `call-rejected` event's reason). */
  reason: CallRejectionReason;
  /** The explanation recorded in the event. */
  message: string;
};

/**
 * What a response turned out to be (see {@link EpisodeCore.beginStep}):
 * malformed output, a reply that ended the turn, calls refused unexecuted,
 * or calls to execute.
 */
export type EpisodeStepStart =
  | { type: 'parse-error'; text: string; message: string }
  | { type: 'reply'; content: string }
  | { type: 'rejected'; rejections: EpisodeCallRejection[] }
  | { type: 'calls'; calls: ToolCall[] };

/** A step between its response and its observation. */
export type PendingEpisodeStep = EpisodeStepStart & {
  /**
   * Records the executions of `calls` in order (none for any other type),
   * renders the observation, applies the limits and returns the step's
   * result. Call it once.
   */
  end(executions: readonly ToolBackendV1Execution[]): EpisodeV1StepResult;
};

/**
 * The bookkeeping of one episode, whatever runs its tools (see
 * {@link createEpisodeCore}).
 */
export type EpisodeCore = {
  /** The overlay in force: the given one in train mode where it applies, else the empty one. */
  readonly overlay: InterfaceOverlay;
  /** Whether the episode is over. */
  readonly done: boolean;
  /** The current question-turn index. */
  readonly turn: number;
  /** Model calls made so far. */
  readonly modelCalls: number;
  /** The tools the model may call now (overlay cues applied in train mode). */
  tools(): ToolDoc[];
  /** The conversation so far. */
  messages(): ChatMessage[];
  /**
   * Marks the episode started, so a second start fails at once; for a
   * caller with work to do before {@link EpisodeCore.start} (opening a
   * session).
   */
  claim(): void;
  /**
   * Starts the episode (claiming it unless {@link EpisodeCore.claim} did):
   * the `episode-start` event, the system prompt `system` renders (left out
   * when empty) and the first turn. Returns the conversation.
   */
  start(system: () => string): ChatMessage[];
  /**
   * Takes one model response: records it, parses it, and handles a parse
   * error, a reply or refused calls. Calls to execute come back for the
   * caller to run, synchronously or not, before `end`.
   */
  beginStep(
    response: string | ChatMessage,
    usage?: { promptTokens?: number; completionTokens?: number },
  ): PendingEpisodeStep;
  /** Stops the episode (see `Episode.abort`). */
  abort(reason?: 'aborted' | 'context-limit'): void;
  /** The record so far (complete once `done`). */
  record(): EpisodeRecord;
};

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

function errorText(thrown: unknown): string {
  return thrown instanceof Error ? thrown.message : String(thrown);
}

/**
 * The step bookkeeping shared by `createEpisode` and the v2 rollout
 * episode (SEAL §6.2, BFCL §3), apart from running tools: the overlay gate;
 * per-step parsing; the availability check (unknown and held-out tools are
 * refused) and, as an option, the named-argument check; the executed calls'
 * events, error feedback and clipped observations; the turn ends on a reply
 * without calls; holdout turns reveal their tools; the model-call budget,
 * BFCL's per-turn step limit, Environment Tuning's per-turn attempt cap and
 * the context limit; the episode record. Bad model output never throws.
 */
export function createEpisodeCore(
  options: CreateEpisodeCoreOptions,
): EpisodeCore {
  const { protocol, promptMode, mode, episodeId } = options;
  if (mode === 'eval') assertEvalOverlay(options.overlay);
  const overlay =
    mode === 'train' &&
    options.overlay &&
    overlayApplies(options.overlay, options.category)
      ? options.overlay
      : emptyOverlay;
  const limits = options.limits ?? {};
  const maxModelCalls = limits.maxModelCalls ?? 20;
  const countTokens = limits.countTokens ?? defaultCountTokens;
  const overlayHash = hashOverlay(overlay);

  const allToolNames = new Set(options.tools.map((doc) => doc.name));
  const heldOut = new Set(
    options.holdouts.flatMap((holdout) => holdout.toolNames),
  );
  const available = new Set(
    [...allToolNames].filter((name) => !heldOut.has(name)),
  );

  const messages: ChatMessage[] = [];
  const events: EpisodeEvent[] = [];
  const turns: EpisodeTurn[] = [];
  let turnIndex = 0;
  let stepInTurn = 0;
  let executedSteps = 0;
  let modelCalls = 0;
  let claimed = false;
  let started = false;
  let done = false;
  let endReason: EpisodeEndReason | undefined;

  const visibleTools = (): ToolDoc[] =>
    applyToolPatches(
      options.tools.filter((doc) => available.has(doc.name)),
      overlay,
    );
  const availableNames = (): string[] =>
    options.tools
      .filter((doc) => available.has(doc.name))
      .map((doc) => doc.name);
  const currentTurn = (): EpisodeTurn => turns[turns.length - 1]!;
  const copyMessages = (): ChatMessage[] =>
    messages.map((message) => ({ ...message }));

  const startTurn = (index: number): ChatMessage[] => {
    const holdout = options.holdouts.find((h) => h.turn === index);
    const revealed: string[] = [];
    const out: ChatMessage[] = [];
    const questions = options.turns[index] ?? [];
    if (holdout) {
      for (const name of holdout.toolNames) {
        if (!available.has(name)) revealed.push(name);
        available.add(name);
      }
      // Revealed tools come as a user message, without overlay cues (SEAL §4.2).
      const docs = options.tools.filter((doc) =>
        holdout.toolNames.includes(doc.name),
      );
      const text = protocol.renderHoldout({ tools: docs, mode: promptMode });
      const first = questions[0];
      out.push({
        role: 'user',
        content: first ? `${text}\n${first.content}` : text,
      });
      out.push(...questions.slice(1));
    } else if (
      questions.length === 0 &&
      options.emptyTurnPrompt !== undefined
    ) {
      out.push({ role: 'user', content: options.emptyTurnPrompt });
    } else {
      out.push(...questions);
    }
    turns.push({ turn: index, steps: [] });
    options.onTurnStart?.(index);
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
      options.onTurnEnd?.({
        turn: turnIndex,
        reason: turnReason,
        by: 'finish',
      });
      events.push({ type: 'turn-end', turn: turnIndex, reason: turnReason });
    }
    done = true;
    endReason = reason;
    events.push({ type: 'episode-end', reason, modelCalls });
  };

  const advanceTurn = (reason: TurnEndReason): ChatMessage[] => {
    currentTurn().endReason = reason;
    options.onTurnEnd?.({ turn: turnIndex, reason, by: 'advance' });
    events.push({ type: 'turn-end', turn: turnIndex, reason });
    turnIndex++;
    if (turnIndex >= options.turns.length) {
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

  /** Refuses the whole message when any call is unavailable or positional. */
  const rejectCalls = (
    calls: readonly DecodedCall[],
  ): { rejections: EpisodeCallRejection[]; message: string } | undefined => {
    const refused =
      options.enforceAvailableTools === false
        ? []
        : calls.filter((call) => !available.has(call.name));
    const positional =
      options.requireNamedArguments === true
        ? calls.filter((call) => call.args.length > 0)
        : [];
    if (refused.length === 0 && positional.length === 0) return undefined;
    const rejections: EpisodeCallRejection[] = [];
    for (const call of calls) {
      if (refused.includes(call)) {
        rejections.push({
          call,
          reason: allToolNames.has(call.name)
            ? 'unavailable-tool'
            : 'unknown-tool',
          message: `tool '${call.name}' is not available`,
        });
      } else if (positional.includes(call)) {
        rejections.push({
          call,
          reason: 'invalid-call',
          message: `${call.name}: name every argument (positional arguments name no parameter)`,
        });
      }
    }
    const names = (list: readonly DecodedCall[]) =>
      list.map((call) => `'${call.name}'`).join(', ');
    const problems = [
      ...(refused.length > 0
        ? [
            `${refused.length === 1 ? 'tool' : 'tools'} ${names(refused)} ${refused.length === 1 ? 'is' : 'are'} not available`,
          ]
        : []),
      ...(positional.length > 0
        ? [`name every argument of ${names(positional)}`]
        : []),
    ];
    return {
      rejections,
      message: `${problems.join('; ')}; no call in this message was executed`,
    };
  };

  const claim = (): void => {
    if (claimed)
      throw new SealError({
        code: 'INVALID_STATE',
        message: `episode ${episodeId} was already started`,
      });
    claimed = true;
  };

  const beginStep: EpisodeCore['beginStep'] = (response, usage) => {
    if (!claimed)
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
    let start: EpisodeStepStart;
    // The observation of every start but `calls`, whose results make it.
    let observation: ChatMessage[] = [];
    if (parsed.kind === 'error') {
      step.parseError = parsed.message;
      events.push({
        type: 'parse-error',
        turn: turnIndex,
        step: stepInTurn - 1,
        message: parsed.message,
      });
      start = {
        type: 'parse-error',
        text: assistant.content,
        message: parsed.message,
      };
      observation = errorObservation(parsed.message);
    } else if (parsed.kind === 'reply') {
      start = { type: 'reply', content: parsed.content };
      observation = advanceTurn('reply');
    } else {
      const rejected = rejectCalls(parsed.calls);
      if (rejected) {
        step.rejectedCalls = parsed.calls.length;
        for (const rejection of rejected.rejections) {
          events.push({
            type: 'call-rejected',
            turn: turnIndex,
            step: stepInTurn - 1,
            reason: rejection.reason,
            name: rejection.call.name,
            message: rejection.message,
          });
        }
        start = { type: 'rejected', rejections: rejected.rejections };
        observation = errorObservation(rejected.message);
      } else {
        start = { type: 'calls', calls: parsed.calls.map(toToolCall) };
      }
    }

    let ended = false;
    const end = (
      executions: readonly ToolBackendV1Execution[],
    ): EpisodeV1StepResult => {
      if (ended)
        throw new SealError({
          code: 'INVALID_STATE',
          message: `step ${stepInTurn - 1} of episode ${episodeId} has ended`,
        });
      const calls = start.type === 'calls' ? start.calls : [];
      if (executions.length !== calls.length)
        throw new SealError({
          code: 'INVALID_ARGUMENT',
          message: `${executions.length} executions for ${calls.length} calls`,
        });
      ended = true;
      if (start.type === 'calls') {
        const results: CallResult[] = [];
        for (const [index, call] of calls.entries()) {
          const { result, status, error } = executions[index]!;
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
            (options.softToolErrors !== false &&
              toolErrorText(result) !== undefined);
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
      if (
        !done &&
        start.type !== 'reply' &&
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
    };
    return { ...start, end };
  };

  return {
    overlay,
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
    messages: copyMessages,

    claim,

    start(system) {
      if (started || !claimed) claim();
      started = true;
      events.push({
        type: 'episode-start',
        taskId: options.taskId,
        mode,
        protocol: protocol.name,
        overlayHash,
      });
      const text = system();
      if (text.length > 0) messages.push({ role: 'system', content: text });
      if (options.turns.length === 0) finish('completed');
      else messages.push(...startTurn(0));
      return copyMessages();
    },

    beginStep,

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
        taskId: options.taskId,
        category: options.category,
        mode,
        protocol: protocol.name,
        overlayHash,
        messages: copyMessages(),
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
}

import type {
  ChatMessage,
  EpisodeStamps,
  EpisodeV1,
  InterfaceOverlay,
  Task,
  ToolBackendV1,
  ToolBackendV1Execution,
  ToolBackendV1Session,
  ToolCall,
  ToolDoc,
} from '@seal/spec';
import { assertEvalOverlay } from '../overlay/apply-overlay';
import { createProtocol, type ProtocolName } from '../protocols';
import type {
  PromptMode,
  ToolCallProtocol,
} from '../protocols/tool-call-protocol';
import { createEpisodeCore, type EpisodeLimits } from './create-episode-core';

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
  // Gate before taking an episode id, so a refused overlay takes none (the
  // core checks it again).
  if (mode === 'eval') assertEvalOverlay(options.overlay);
  const protocol =
    typeof options.protocol === 'object'
      ? options.protocol
      : createProtocol(options.protocol ?? 'qwen-xml');
  const promptMode = options.promptMode ?? 'full';
  const core = createEpisodeCore({
    taskId: task.id,
    category: task.category,
    turns: task.turns,
    holdouts: task.holdouts,
    tools: task.tools,
    protocol,
    promptMode,
    mode,
    ...(options.overlay ? { overlay: options.overlay } : {}),
    ...(options.limits ? { limits: options.limits } : {}),
    ...(options.enforceAvailableTools === undefined
      ? {}
      : { enforceAvailableTools: options.enforceAvailableTools }),
    episodeId: options.episodeId ?? `${task.id}:${episodeSequence++}`,
    ...(options.stamps ? { stamps: options.stamps } : {}),
  });
  const { overlay } = core;

  let session: ToolBackendV1Session | undefined;

  const renderToolSection = (): string => {
    const render = () =>
      protocol.renderSystemPrompt({
        tools: core.tools(),
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

  return {
    specificationVersion: 'v1',
    taskId: task.id,
    protocol,
    get done() {
      return core.done;
    },
    get turn() {
      return core.turn;
    },
    get modelCalls() {
      return core.modelCalls;
    },
    tools: core.tools,
    messages: core.messages,

    reset() {
      return core.start(() =>
        [options.preamble, renderToolSection()]
          .filter((part) => part && part.length > 0)
          .join('\n\n'),
      );
    },

    step(response, usage) {
      const step = core.beginStep(response, usage);
      return step.end(step.type === 'calls' ? step.calls.map(execute) : []);
    },

    abort: core.abort,
    record: core.record,
  };
}

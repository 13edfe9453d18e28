import { diagnoseEpisode } from '@seal/diagnose';
import {
  assertEvalOverlay,
  createEpisode,
  toOpenAiTool,
  type Episode,
  type EpisodeLimits,
  type PromptMode,
  type ProtocolName,
} from '@seal/env';
import {
  SealError,
  type ChatModelV1,
  type ChatModelV1Request,
  type EpisodeDiagnosis,
  type InterfaceOverlay,
  type SyncVerifierV1,
  type Task,
  type ToolBackendV1,
} from '@seal/spec';
import { deriveSeed } from '../rollout/run-rollouts';
import type { EvaluatedEpisode } from './evaluate-policy';

/**
 * How tools reach the model. `prompting`: the tool docs are in the system
 * prompt and calls are parsed from the reply text with the episode's
 * protocol (BFCL's prompting models). `fc`: the tools travel in the
 * request's `tools` and calls come back as structured `tool_calls` (BFCL's
 * function-calling models; the episode uses the `openai-tools` protocol).
 */
export type ChatEvalMode = 'prompting' | 'fc';

/** One evaluated episode of {@link evaluateChatModel}. */
export type ChatEvaluatedEpisode = EvaluatedEpisode & {
  /** SEAL's per-turn tags with the finer tags of the event stream. */
  diagnosis: EpisodeDiagnosis;
  /** Wall time of the episode, model calls and verification included. */
  durationMs: number;
};

/** Options of {@link evaluateChatModel}. */
export type EvaluateChatModelOptions = {
  model: ChatModelV1;
  tasks: readonly Task[];
  backend: ToolBackendV1;
  verifier: SyncVerifierV1;
  /** Default `prompting`. */
  mode?: ChatEvalMode;
  /** The episode's protocol in prompting mode (default `bfcl-python`). */
  protocol?: ProtocolName;
  /** How tool docs are rendered into the system prompt (default `full`, BFCL's prompt). */
  promptMode?: PromptMode;
  /** Tokens per model reply. Default 512. */
  maxTokens?: number;
  /** Default 0 (greedy), as BFCL evaluates. */
  temperature?: number;
  topP?: number;
  /** Base seed; each request's seed derives from it, the task id and the call index. */
  seed?: number;
  limits?: EpisodeLimits;
  /**
   * The interface overlay. Evaluation runs on the untouched interface: any
   * non-empty overlay is refused with `EVAL_GATE_VIOLATION` before anything runs.
   */
  overlay?: InterfaceOverlay;
  /** Episodes run at once. Default 8. */
  concurrency?: number;
  /** Prefix of episode ids (`<prefix>:<task id>`). Default `eval`. */
  episodeIdPrefix?: string;
  /**
   * Receives each episode as it finishes, verified and diagnosed; awaited
   * before the next task starts on that worker (write the record here).
   */
  onEpisode?: (episode: ChatEvaluatedEpisode) => void | Promise<void>;
  /** Aborts the evaluation: running model calls are cancelled, unfinished episodes dropped. */
  signal?: AbortSignal;
};

/** FNV-1a over a string: a stable per-task seed part that survives resumption. */
function hashId(id: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < id.length; i++) {
    h ^= id.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h;
}

function abortError(signal: AbortSignal): SealError {
  return new SealError({
    code: 'INVALID_STATE',
    message: 'the evaluation was aborted',
    cause: signal.reason,
    details: { reason: 'aborted' },
  });
}

/**
 * Evaluates a chat model (an OpenAI-compatible endpoint or a local policy
 * behind `createPolicyChatModel`) on tasks, BFCL's way: one episode per task
 * on the untouched interface (eval mode, empty overlay), the whole
 * conversation sent as messages at every model call, greedy by default,
 * verified with BFCL's official rules and diagnosed per turn. Tasks run
 * `concurrency` at a time; each finished episode goes to `onEpisode` at
 * once, so a caller can persist it. The first error (after the model's own
 * retries) stops new tasks; running ones finish, then the error is thrown.
 * A prompt that no longer fits the model's context ends its episode with
 * `context-limit`, as the in-process rollouts do. Results come back in task
 * order.
 */
export async function evaluateChatModel(
  options: EvaluateChatModelOptions,
): Promise<ChatEvaluatedEpisode[]> {
  const {
    model,
    tasks,
    backend,
    verifier,
    mode = 'prompting',
    protocol = 'bfcl-python',
    promptMode = 'full',
    maxTokens = 512,
    temperature = 0,
    topP,
    seed = 0,
    limits,
    overlay,
    episodeIdPrefix = 'eval',
    signal,
  } = options;
  // The train/eval gate, before any task runs.
  assertEvalOverlay(overlay);
  const concurrency = Math.max(1, Math.floor(options.concurrency ?? 8));
  const results = new Array<ChatEvaluatedEpisode | undefined>(tasks.length);
  let next = 0;
  let failure: { error: unknown } | undefined;

  const runEpisode = async (task: Task): Promise<ChatEvaluatedEpisode> => {
    const started = performance.now();
    const episode: Episode = createEpisode({
      task,
      backend,
      protocol: mode === 'fc' ? 'openai-tools' : protocol,
      promptMode,
      mode: 'eval',
      ...(overlay === undefined ? {} : { overlay }),
      ...(limits === undefined ? {} : { limits }),
      episodeId: `${episodeIdPrefix}:${task.id}`,
      stamps: { verifierVersion: verifier.verifierId, seed },
    });
    episode.reset();
    const taskSeed = hashId(task.id);
    while (!episode.done) {
      if (signal?.aborted) throw abortError(signal);
      const request: ChatModelV1Request = {
        messages: episode.messages(),
        ...(mode === 'fc' ? { tools: episode.tools().map(toOpenAiTool) } : {}),
        maxTokens,
        temperature,
        ...(topP === undefined ? {} : { topP }),
        seed: deriveSeed(seed, taskSeed, episode.modelCalls),
      };
      let reply;
      try {
        reply = await model.complete(request, signal ? { signal } : {});
      } catch (error) {
        if (signal?.aborted) throw abortError(signal);
        if (
          SealError.isInstance(error) &&
          error.code === 'CONTEXT_LENGTH_EXCEEDED'
        ) {
          episode.abort('context-limit');
          break;
        }
        throw error;
      }
      const usage = {
        promptTokens: reply.usage.promptTokens,
        completionTokens: reply.usage.completionTokens,
      };
      episode.step(
        mode === 'fc'
          ? { ...reply.message, role: 'assistant' }
          : reply.message.content,
        usage,
      );
    }
    const record = episode.record();
    const result = verifier.verifySync({ task, record });
    const diagnosis = diagnoseEpisode({ record, verification: result });
    return {
      task,
      record,
      result,
      diagnosis,
      durationMs: performance.now() - started,
    };
  };

  const worker = async (): Promise<void> => {
    while (failure === undefined && next < tasks.length) {
      if (signal?.aborted) {
        failure ??= { error: abortError(signal) };
        return;
      }
      const index = next++;
      try {
        const evaluated = await runEpisode(tasks[index]!);
        results[index] = evaluated;
        await options.onEpisode?.(evaluated);
      } catch (error) {
        failure ??= { error };
        return;
      }
    }
  };
  await Promise.all(
    Array.from({ length: Math.min(concurrency, tasks.length) }, worker),
  );
  if (failure !== undefined) throw failure.error;
  return results.filter(
    (result): result is ChatEvaluatedEpisode => result !== undefined,
  );
}

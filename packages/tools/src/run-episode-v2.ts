import {
  SealError,
  parseJsonText,
  type ChatMessage,
  type ChatModelV1,
  type ChatModelV1ToolDefinition,
  type EnvironmentV2,
  type EnvironmentV2Session,
  type EpisodeTraceV2,
  type TaskV2,
  type ToolDocV2,
  type ToolOutcomeV2,
  type TurnTraceV2,
} from '@seal/spec';
import { errorText } from './call-with-timeout';

/** BFCL's sentence for a turn that only reveals withheld tools. */
export const holdoutTurnSentence =
  'I have updated some more functions you can choose from. What about now?';

/** Options for {@link runEpisodeV2}. */
export type RunEpisodeV2Options<TFinish> = {
  environment: EnvironmentV2;
  task: TaskV2;
  /** The policy, through the OpenAI tools protocol (JSON Schema passed through unchanged). */
  model: ChatModelV1;
  /** A system message before the first turn, if any. */
  system?: string;
  /** Model calls per user turn before the turn is cut (default 10). */
  maxStepsPerTurn?: number;
  /** Default 1024. */
  maxTokens?: number;
  /** Default 0. */
  temperature?: number;
  seed?: number;
  /**
   * Runs on the still-open policy session once the episode is over (e.g.
   * `verifyEpisodeV2`, whose checker reads the session); its value is
   * returned as `finished`.
   */
  finish?: (options: {
    trace: EpisodeTraceV2;
    session: EnvironmentV2Session;
  }) => PromiseLike<TFinish>;
};

/** The tools visible at `turn`: all but those withheld until a later turn. */
export function visibleToolsV2({
  task,
  tools,
  turn,
}: {
  task: TaskV2;
  tools: readonly ToolDocV2[];
  turn: number;
}): ToolDocV2[] {
  const withheld = new Set(
    (task.holdouts ?? [])
      .filter((holdout) => holdout.turn > turn)
      .flatMap((holdout) => holdout.toolNames),
  );
  return tools.filter((tool) => !withheld.has(tool.name));
}

function definitionOf(tool: ToolDocV2): ChatModelV1ToolDefinition {
  return {
    type: 'function',
    function: {
      name: tool.name,
      ...(tool.description === undefined
        ? {}
        : { description: tool.description }),
      parameters: tool.inputSchema,
    },
  };
}

/** The JSON object a call's arguments text holds, or an error message. */
function argumentsOf(call: {
  arguments: Record<string, unknown>;
  argumentsText?: string | undefined;
}): { value: Record<string, unknown> } | { error: string } {
  if (call.argumentsText === undefined || call.argumentsText.trim() === '')
    return { value: call.arguments };
  try {
    const parsed = parseJsonText({ text: call.argumentsText });
    if (typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed))
      return { value: parsed as Record<string, unknown> };
    return { error: 'the arguments are not a JSON object' };
  } catch (thrown) {
    return { error: `the arguments are not JSON (${errorText(thrown)})` };
  }
}

/**
 * Runs one episode of `task` with `model` on a fresh policy session: each
 * user turn's messages, then model steps until a reply without calls (or
 * `maxStepsPerTurn`). Tool docs travel as OpenAI function definitions whose
 * `parameters` are the tools' JSON Schemas unchanged; tools withheld by a
 * holdout are neither shown nor run before their turn (`unknown_tool`).
 * Arguments that are not a JSON object are `invalid` steps. The trace
 * carries the session's snapshot after each turn. A prompt past the model's
 * context ends the episode (`endReason: 'context-limit'`).
 */
export async function runEpisodeV2<TFinish = undefined>({
  environment,
  task,
  model,
  system,
  maxStepsPerTurn = 10,
  maxTokens = 1024,
  temperature = 0,
  seed,
  finish,
}: RunEpisodeV2Options<TFinish>): Promise<{
  trace: EpisodeTraceV2;
  finished: TFinish | undefined;
}> {
  const session = await environment.openSession({ task, role: 'policy' });
  try {
    const tools = await session.listTools();
    const messages: ChatMessage[] =
      system === undefined ? [] : [{ role: 'system', content: system }];
    const turns: TurnTraceV2[] = [];
    let ended = false;
    for (const [turn, userMessages] of task.turns.entries()) {
      if (ended) break;
      const trace: TurnTraceV2 = { steps: [] };
      turns.push(trace);
      messages.push(
        ...(userMessages.length === 0
          ? [{ role: 'user' as const, content: holdoutTurnSentence }]
          : userMessages),
      );
      const visible = visibleToolsV2({ task, tools, turn });
      const visibleNames = new Set(visible.map((tool) => tool.name));
      const definitions = visible.map(definitionOf);
      let replied = false;
      for (let step = 0; step < maxStepsPerTurn && !replied; step += 1) {
        let result;
        try {
          result = await model.complete({
            messages,
            ...(definitions.length === 0 ? {} : { tools: definitions }),
            maxTokens,
            temperature,
            ...(seed === undefined ? {} : { seed }),
          });
        } catch (thrown) {
          if (
            SealError.isInstance(thrown) &&
            thrown.code === 'CONTEXT_LENGTH_EXCEEDED'
          ) {
            trace.endReason = 'context-limit';
            ended = true;
            break;
          }
          throw thrown;
        }
        messages.push(result.message);
        const calls = result.message.toolCalls ?? [];
        if (calls.length === 0) {
          trace.reply = result.message.content;
          replied = true;
          break;
        }
        for (const call of calls) {
          const parsed = argumentsOf(call);
          let outcome: ToolOutcomeV2;
          if ('error' in parsed) {
            trace.steps.push({
              type: 'invalid',
              text: `${call.name}(${call.argumentsText ?? ''})`,
              error: parsed.error,
            });
            outcome = {
              kind: 'invalid_arguments',
              ok: false,
              content: `Error: ${parsed.error}`,
              error: parsed.error,
            };
          } else {
            const structured = {
              name: call.name,
              arguments: parsed.value,
              ...(call.id === undefined ? {} : { id: call.id }),
            };
            if (!visibleNames.has(call.name)) {
              const error = `unknown tool ${call.name}`;
              outcome = {
                kind: 'unknown_tool',
                ok: false,
                content: `Error: ${error}`,
                error,
              };
            } else {
              outcome = await session.call(structured);
            }
            trace.steps.push({ type: 'call', call: structured, outcome });
          }
          messages.push({
            role: 'tool',
            content: outcome.content,
            ...(call.id === undefined ? {} : { toolCallId: call.id }),
            name: call.name,
          });
        }
      }
      if (!replied && trace.endReason === undefined)
        trace.endReason = 'step-limit';
      if (session.snapshot !== undefined) {
        try {
          trace.snapshot = await session.snapshot();
        } catch (thrown) {
          trace.endReason = `snapshot failed: ${errorText(thrown)}`;
        }
      }
    }
    const episode: EpisodeTraceV2 = { taskId: task.id, turns };
    const finished =
      finish === undefined
        ? undefined
        : await finish({ trace: episode, session });
    return { trace: episode, finished };
  } finally {
    await session.close();
  }
}

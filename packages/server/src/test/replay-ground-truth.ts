import {
  PyDict,
  parseCallString,
  pyJsonDumps,
  type PyValue,
} from '@seal/python';
import type { EnvServiceMessage, EnvServiceStepData } from '@seal/spec';
import type { SealEnvClient } from './seal-env-client';

/**
 * Test support: plays a task's ground truth through a SEAL environment
 * service the way a Qwen model would, from the wire alone. Each ground-truth
 * call becomes one `<tool_call>` JSON message (positional arguments named
 * from the tool docs the service showed: the system prompt's `<tools>` lines
 * and the JSON lines of a holdout turn), then a plain reply ends the turn.
 * Not exported: it needs `@seal/python` to read the ground-truth strings.
 */

/** What a replay saw. */
export type GroundTruthReplay = {
  /** Every step's state contents, in order (what a leak would change). */
  transcript: string[];
  /** `/evaluate` with `sparse: true` after the end. */
  accuracy: number;
  /** The reward `/step` returned at termination. */
  reward: number;
  steps: number;
  terminated: boolean;
};

const replyText = 'The request has been handled.';

/** Reads tool parameter orders from lines holding OpenAI tool JSON. */
export function readToolParameters(
  text: string,
  into: Map<string, string[]>,
): void {
  for (const line of text.split('\n')) {
    const trimmed = line.trim();
    if (!trimmed.startsWith('{') || !trimmed.includes('"function"')) continue;
    try {
      const tool = JSON.parse(trimmed) as {
        function?: {
          name?: string;
          parameters?: { properties?: Record<string, unknown> };
        };
      };
      const name = tool.function?.name;
      if (name)
        into.set(
          name,
          Object.keys(tool.function?.parameters?.properties ?? {}),
        );
    } catch {
      // Not a tool line.
    }
  }
}

/** A ground-truth call string as Qwen `<tool_call>` JSON. */
export function toQwenToolCall(
  callText: string,
  parameters: ReadonlyMap<string, string[]>,
): string {
  const parsed = parseCallString(callText);
  if (!parsed.success)
    throw new Error(`cannot parse ground-truth call ${callText}`);
  const { name, args, kwargs } = parsed.value;
  const order = parameters.get(name) ?? [];
  if (args.length > order.length)
    throw new Error(
      `${callText}: more positional arguments than parameters of ${name}`,
    );
  const entries: [string, PyValue][] = [
    ...args.map((value, index): [string, PyValue] => [order[index]!, value]),
    ...kwargs,
  ];
  return `<tool_call>\n{"name": ${JSON.stringify(name)}, "arguments": ${pyJsonDumps(new PyDict(entries), { ensureAscii: false })}}\n</tool_call>`;
}

/**
 * Replays `groundTruth` on an instance the caller created (`initial` is the
 * `/create` state). `onStep` may inject extra steps before each call (an
 * adversarial step that must not change the outcome) and sees every result.
 */
export async function replayGroundTruth({
  client,
  instanceId,
  initial,
  groundTruth,
  before,
  allowRefused = false,
}: {
  client: SealEnvClient;
  instanceId: string;
  initial: EnvServiceMessage[];
  groundTruth: readonly (readonly string[])[];
  /** Called before each model message; may send extra steps of its own. */
  before?: (info: { turn: number; call: number }) => Promise<void>;
  /** Carry on when a ground-truth call is refused (a tool BFCL withholds until later); default: throw. */
  allowRefused?: boolean;
}): Promise<GroundTruthReplay> {
  const parameters = new Map<string, string[]>();
  for (const message of initial)
    readToolParameters(message.content, parameters);
  const transcript: string[] = [];
  let steps = 0;
  let last: EnvServiceStepData | undefined;
  const send = async (content: string): Promise<EnvServiceStepData> => {
    steps++;
    const result = await client.step({ instanceId, content });
    for (const message of result.state) transcript.push(message.content);
    return result;
  };
  for (let turn = 0; ; turn++) {
    const calls = groundTruth[turn] ?? [];
    for (const [index, call] of calls.entries()) {
      await before?.({ turn, call: index });
      last = await send(toQwenToolCall(call, parameters));
      if (last.is_terminated) break;
      const content = last.state[0]?.content ?? '';
      if (!content.startsWith('<tool_response>') && !allowRefused) {
        throw new Error(
          `turn ${turn}: ${call} was not executed: ${content.slice(0, 300)}`,
        );
      }
    }
    if (last?.is_terminated) break;
    await before?.({ turn, call: calls.length });
    last = await send(replyText);
    if (last.is_terminated) break;
    for (const message of last.state)
      readToolParameters(message.content, parameters);
    if (turn > 64) throw new Error('the conversation did not end');
  }
  const accuracy = await client.evaluateSparse({ instanceId });
  return {
    transcript,
    accuracy,
    reward: last?.reward ?? 0,
    steps,
    terminated: last?.is_terminated ?? false,
  };
}

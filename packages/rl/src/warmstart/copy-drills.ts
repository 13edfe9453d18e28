import { PyRandom } from '@seal/python';
import type { PolicyV1Tokenizer, Task } from '@seal/spec';
import { demonstrationResponses, type Demonstration } from './demonstrations';

/** The literal values of a call string: quoted strings and numbers, in order. */
export function callLiterals(call: string): string[] {
  return [...call.matchAll(/'([^']*)'|"([^"]*)"|(-?\d+(?:\.\d+)?)/g)].map(
    (match) => match[1] ?? match[2] ?? match[3] ?? '',
  );
}

/** The user messages of a turn, joined. */
function userText(messages: Task['turns'][number]): string {
  return messages
    .filter((message) => message.role === 'user')
    .map((message) => message.content)
    .join('\n');
}

/**
 * The turn drills of tasks: each turn's user message with the turn's first
 * ground-truth call, kept only when every literal of the call appears in the
 * message (the drill never asks for a value the message does not hold).
 */
export function turnDrillPairs(
  tasks: readonly Task[],
): { id: string; user: string; call: string }[] {
  const pairs: { id: string; user: string; call: string }[] = [];
  for (const task of tasks) {
    const responses = demonstrationResponses(task);
    task.turns.forEach((messages, turn) => {
      const user = userText(messages);
      const call = responses[turn]?.[0];
      if (user.length === 0 || call === undefined || !call.startsWith('['))
        return;
      if (callLiterals(call).every((literal) => user.includes(literal)))
        pairs.push({ id: `${task.id}#turn${turn}`, user, call });
    });
  }
  return pairs;
}

/**
 * Short supervised drills that teach a small model from scratch to copy
 * values out of its context, before it learns whole demonstrations.
 *
 * A model trained only on full conversations learns the call format and the
 * tool names quickly but copies ids, amounts and names late: each
 * conversation has a few copy events among hundreds of tokens. The drills
 * are dense in them and short (cheap steps):
 *
 * - turn drills: a turn's user message alone, answered by the turn's first
 *   ground-truth call, kept only when every literal of the call appears in
 *   the message (so no drill asks for a value the message does not hold);
 * - repeat drills: `Repeat exactly: <words>` answered by the same words,
 *   drawn (seeded) from the tasks' messages and calls.
 *
 * Each drill is a one-message chat in the tokenizer's template with the
 * answer and a stop token trained, like a demonstration's assistant tokens.
 */
export function buildCopyDrills({
  tasks,
  tokenizer,
  repeats,
  seed = 0,
  maxWords = 9,
}: {
  tasks: readonly Task[];
  tokenizer: PolicyV1Tokenizer;
  /** How many repeat drills to add. */
  repeats: number;
  seed?: number;
  /** The longest repeat drill, in words (the shortest is two). */
  maxWords?: number;
}): Demonstration[] {
  const stop = tokenizer.stopTokenIds[0];
  const drill = (
    taskId: string,
    user: string,
    answer: string,
  ): Demonstration => {
    const prompt = tokenizer.renderChat({
      messages: [{ role: 'user', content: user }],
      addGenerationPrompt: true,
    }).tokenIds;
    const completion = [
      ...tokenizer.encode(answer),
      ...(stop === undefined ? [] : [stop]),
    ];
    return {
      taskId,
      tokenIds: [...prompt, ...completion],
      assistantMask: [...prompt.map(() => 0), ...completion.map(() => 1)],
      text: `${user}\n${answer}`,
    };
  };

  const drills: Demonstration[] = turnDrillPairs(tasks).map((pair) =>
    drill(pair.id, pair.user, pair.call),
  );
  // Repeat drills draw their words from every request and every first call.
  const words: string[] = [];
  for (const task of tasks) {
    const responses = demonstrationResponses(task);
    task.turns.forEach((messages, turn) => {
      const user = userText(messages);
      words.push(...user.split(/\s+/).filter((word) => word.length > 0));
      const call = responses[turn]?.[0];
      if (user.length === 0 || call === undefined || !call.startsWith('['))
        return;
      words.push(...call.split(/\s+/).filter((word) => word.length > 0));
    });
  }
  if (repeats > 0 && words.length === 0)
    throw new Error(
      'buildCopyDrills: the tasks have no user messages to draw repeat drills from',
    );
  const random = new PyRandom(BigInt(seed));
  for (let i = 0; i < repeats; i++) {
    const count = Number(random.randint(2, Math.max(2, maxWords)));
    const span = Array.from({ length: count }, () => random.choice(words)).join(
      ' ',
    );
    drills.push(drill(`repeat#${i}`, `Repeat exactly: ${span}`, span));
  }
  return drills;
}

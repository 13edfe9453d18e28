import type { ChatMessage } from '@seal/spec';
import type {
  PackEnvironment,
  PackSolveEpisode,
  PackSolveResult,
} from '../environment/pack-environment';
import { createPackRandom, mixSeed } from '../packs/pack-random';
import type { FrozenLakeTask } from './frozen-lake-tasks';

/** The four real moves. */
export const frozenLakeDirections = ['up', 'down', 'left', 'right'] as const;

/** One real move. */
export type FrozenLakeDirection = (typeof frozenLakeDirections)[number];

const delta: Record<FrozenLakeDirection, [number, number]> = {
  up: [-1, 0],
  down: [1, 0],
  left: [0, -1],
  right: [0, 1],
};

/**
 * The pack's hidden regularity: what `Direction 1..4` do. Entry `k − 1` is
 * the real move of `Direction k`; a permutation drawn from the pack seed
 * (`mapping_mode: per_pack`).
 */
export function frozenLakeMapping(packSeed: number): FrozenLakeDirection[] {
  return createPackRandom(mixSeed(packSeed, 0xd1ec)).shuffle(
    frozenLakeDirections,
  );
}

/** Settings of {@link createFrozenLakeEnvironment}. */
export type FrozenLakeSettings = {
  /** Moves per task. Default 8 (the paper's `agent_max_steps`). */
  maxSteps?: number;
  /**
   * The wording of the system prompt: `paper` (default) or `compact` (the
   * same rules in fewer words, for the embedded models). Maps and
   * observations are the same in both. A `paper` reply must be exactly
   * `<answer>Direction k</answer>`; a `compact` reply may reason first and
   * must end with it ({@link parseFrozenLakeAnswer}).
   */
  format?: 'paper' | 'compact';
  /**
   * What an observation says of a move: `positions` (default; FrozenLake-
   * Obscure as the paper has it: `Direction 2: you moved from (1,3) to
   * (0,3).`, so the real move is worked out from the two positions) or
   * `literal` (the real move is a literal span of the observation, worded
   * as a hint states it: `Direction 2 = up: you moved from (1,3) to
   * (0,3).`, and a move into the edge names it too: `Direction 3 = left:
   * your position (0,0) did not change (maybe the edge).`). The mapping is
   * still hidden until a direction is tried; `literal` is the setting
   * `frozen-lake-literal` (decision 0041), where carrying a fact to the next
   * task is copying, not inference.
   */
  observations?: FrozenLakeObservations;
};

/** See {@link FrozenLakeSettings.observations}. */
export type FrozenLakeObservations = 'positions' | 'literal';

/** The environment id of {@link createFrozenLakeEnvironment} for its observations. */
export function frozenLakeEnvironmentId(
  observations: FrozenLakeObservations = 'positions',
): 'frozen-lake-obscure' | 'frozen-lake-literal' {
  return observations === 'literal'
    ? 'frozen-lake-literal'
    : 'frozen-lake-obscure';
}

/** The system prompt of a FrozenLake-Obscure solve episode (without hints). */
export function frozenLakeSystemPrompt(
  maxSteps: number,
  format: 'paper' | 'compact' = 'paper',
): string {
  if (format === 'compact') {
    return [
      'Frozen lake: S start, F frozen, H hole, G goal; row 0 top, column 0 left. Reach G, avoid H.',
      `Directions 1 to 4 each move up, down, left or right: which is hidden. End your reply with <answer>Direction k</answer>. ${maxSteps} moves.`,
    ].join('\n');
  }
  return [
    'You walk on a frozen lake grid: S start, F frozen, H hole, G goal. Row 0 is the top, column 0 the left.',
    'Reach G without stepping on H. The actions are Direction 1, Direction 2, Direction 3 and Direction 4; which way each one moves is not told.',
    `Reply with exactly <answer>Direction k</answer>. You have ${maxSteps} moves.`,
  ].join('\n');
}

const exactAnswerPattern =
  /^\s*<answer>\s*Direction\s*([1-4])\s*<\/answer>\s*$/;
const finalAnswerPattern = /<answer>\s*Direction\s*([1-4])\s*<\/answer>\s*$/;

/**
 * The direction number of a FrozenLake reply, or undefined when the reply is
 * malformed. `paper`: the reply is exactly `<answer>Direction k</answer>`
 * (surrounding whitespace allowed). `compact`: any text (a short reasoning)
 * may come first, and the reply ends with `<answer>Direction k</answer>`;
 * the last tag counts, and nothing but whitespace may follow it.
 */
export function parseFrozenLakeAnswer({
  response,
  format = 'paper',
}: {
  response: string;
  format?: 'paper' | 'compact';
}): number | undefined {
  const match = (
    format === 'compact' ? finalAnswerPattern : exactAnswerPattern
  ).exec(response);
  return match === null ? undefined : Number(match[1]);
}

const invalidFormatFeedback = {
  paper:
    'Failed: invalid action format; reply with exactly <answer>Direction k</answer>, k from 1 to 4',
  compact:
    'Failed: invalid action format; end your reply with <answer>Direction k</answer>, k from 1 to 4',
} as const;

function locate(rows: readonly string[], tile: string): [number, number] {
  for (let r = 0; r < rows.length; r++) {
    const c = rows[r]!.indexOf(tile);
    if (c >= 0) return [r, c];
  }
  return [0, 0];
}

const at = ([r, c]: readonly [number, number]) => `(${r},${c})`;

/**
 * FrozenLake-Obscure (spec B5): the model moves with numbered directions
 * whose meaning is a per-pack permutation; after each move it is told how its
 * position changed. A malformed answer ends the episode with outcome 0;
 * reaching G gives 1; a hole or the move budget end it with 0.
 */
export function createFrozenLakeEnvironment(
  settings: FrozenLakeSettings = {},
): PackEnvironment<FrozenLakeTask> {
  const maxSteps = settings.maxSteps ?? 8;
  const format = settings.format ?? 'paper';
  const observations = settings.observations ?? 'positions';
  const systemPrompt = frozenLakeSystemPrompt(maxSteps, format);
  return {
    environmentId: frozenLakeEnvironmentId(observations),
    taskId: (task) => task.taskId,
    tasksetId: (task) => task.tasksetId,
    describeRegularity: (packSeed) =>
      frozenLakeMapping(packSeed)
        .map((direction, k) => `Direction ${k + 1} = ${direction}`)
        .join(', '),
    startSolve: ({ task, packSeed }) => startEpisode(task, packSeed),
  };

  function startEpisode(
    task: FrozenLakeTask,
    packSeed: number,
  ): PackSolveEpisode {
    const mapping = frozenLakeMapping(packSeed);
    const rows = task.rows;
    let position = locate(rows, 'S');
    const goal = locate(rows, 'G');
    let steps = 0;
    let done = false;
    let result: Omit<PackSolveResult, 'stepsUsed' | 'maxSteps'> | undefined;
    const end = (outcome: number, feedback: string) => {
      done = true;
      result = { outcome, success: outcome >= 1, feedback };
    };
    return {
      reset(): ChatMessage[] {
        return [
          { role: 'system', content: systemPrompt },
          {
            role: 'user',
            content: `Map:\n${rows.join('\n')}\nYou are at ${at(position)}. The goal is at ${at(goal)}.`,
          },
        ];
      },
      step(response: string) {
        if (done) return { observation: [], done: true };
        steps++;
        const k = parseFrozenLakeAnswer({ response, format });
        if (k === undefined) {
          end(0, invalidFormatFeedback[format]);
          return { observation: [], done: true };
        }
        const move = mapping[k - 1]!;
        const [dr, dc] = delta[move];
        const named =
          observations === 'literal'
            ? `Direction ${k} = ${move}`
            : `Direction ${k}`;
        const target: [number, number] = [position[0] + dr, position[1] + dc];
        let text: string;
        if (
          target[0] < 0 ||
          target[1] < 0 ||
          target[0] >= rows.length ||
          target[1] >= rows[0]!.length
        ) {
          text = `${named}: your position ${at(position)} did not change (maybe the edge).`;
        } else {
          text = `${named}: you moved from ${at(position)} to ${at(target)}.`;
          position = target;
          const tile = rows[target[0]]![target[1]];
          if (tile === 'H') {
            end(0, `Failed: fell into a hole at ${at(target)}`);
            return {
              observation: [{ role: 'user', content: `${text} It is a hole.` }],
              done: true,
            };
          }
          if (tile === 'G') {
            end(1, 'Success! Reached the goal');
            return {
              observation: [
                { role: 'user', content: `${text} You reached the goal.` },
              ],
              done: true,
            };
          }
        }
        if (steps >= maxSteps) {
          end(
            0,
            `Failed: ran out of moves (${steps}/${maxSteps}) at ${at(position)}, the goal is at ${at(goal)}`,
          );
          return { observation: [{ role: 'user', content: text }], done: true };
        }
        return { observation: [{ role: 'user', content: text }], done: false };
      },
      get done() {
        return done;
      },
      abort() {
        if (!done)
          end(
            0,
            `Failed: the conversation no longer fits the model (${steps}/${maxSteps} moves)`,
          );
      },
      finish() {
        const final = result ?? {
          outcome: 0,
          success: false,
          feedback: 'Failed: the episode did not finish',
        };
        return Promise.resolve({ ...final, stepsUsed: steps, maxSteps });
      },
    };
  }
}

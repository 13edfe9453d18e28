import {
  frozenLakeDirections,
  type FrozenLakeDirection,
} from './frozen-lake-environment';

/**
 * What is known of a pack's direction mapping: direction number (1–4) to
 * the real move. A pack's mapping is a permutation, so three known entries
 * give the fourth.
 */
export type DirectionFacts = Map<number, FrozenLakeDirection>;

const statementPattern = /Direction ([1-4]) = (up|down|left|right)\b/g;
const movePattern =
  /Direction ([1-4]): you moved from \((\d+),(\d+)\) to \((\d+),(\d+)\)/g;
/** A `literal` observation names the real move (`Direction 2 = up: you moved …`); the colon tells it from a hint bullet. */
const literalObservationPattern =
  /Direction ([1-4]) = (up|down|left|right): (?:you moved|your position)/g;

/** The real move of a one-cell step, or undefined when the cells are not neighbours. */
function moveBetween(
  from: readonly [number, number],
  to: readonly [number, number],
): FrozenLakeDirection | undefined {
  const dr = to[0] - from[0];
  const dc = to[1] - from[1];
  if (dr === -1 && dc === 0) return 'up';
  if (dr === 1 && dc === 0) return 'down';
  if (dr === 0 && dc === -1) return 'left';
  if (dr === 0 && dc === 1) return 'right';
  return undefined;
}

/** Completes a consistent set: with three entries known, the fourth is the move left over. */
function complete(facts: DirectionFacts): DirectionFacts {
  if (facts.size === 3) {
    const number = [1, 2, 3, 4].find((k) => !facts.has(k))!;
    const used = new Set(facts.values());
    const move = frozenLakeDirections.find((direction) => !used.has(direction));
    if (move !== undefined) facts.set(number, move);
  }
  return facts;
}

/** Adds `number → move`, dropping any entry it contradicts (one move per number and one number per move). */
function assign(
  facts: DirectionFacts,
  number: number,
  move: FrozenLakeDirection,
): void {
  for (const [other, otherMove] of facts)
    if (other !== number && otherMove === move) facts.delete(other);
  facts.set(number, move);
}

/** The statements `Direction k = move` of a hint text (later ones win); the rest of the text is ignored. */
export function readDirectionFacts(text: string): DirectionFacts {
  const facts: DirectionFacts = new Map();
  for (const match of text.matchAll(statementPattern))
    assign(facts, Number(match[1]), match[2] as FrozenLakeDirection);
  return complete(facts);
}

/**
 * The mapping entries revealed by move observations: `Direction k: you
 * moved from (r,c) to (r',c')` (worked out from the positions), or a
 * `literal` observation that names the move (`Direction k = up: you moved
 * …`, `Direction k = left: your position (r,c) did not change …`).
 */
export function observedDirectionFacts(text: string): DirectionFacts {
  const facts: DirectionFacts = new Map();
  const found: [number, number, FrozenLakeDirection][] = [];
  for (const match of text.matchAll(movePattern)) {
    const move = moveBetween(
      [Number(match[2]), Number(match[3])],
      [Number(match[4]), Number(match[5])],
    );
    if (move !== undefined) found.push([match.index, Number(match[1]), move]);
  }
  for (const match of text.matchAll(literalObservationPattern))
    found.push([
      match.index,
      Number(match[1]),
      match[2] as FrozenLakeDirection,
    ]);
  // In text order: a later observation wins over an earlier contradicting one.
  found.sort(([a], [b]) => a - b);
  for (const [, number, move] of found) assign(facts, number, move);
  return complete(facts);
}

/** `previous` updated by `observed`: observed entries win over contradicting notes. */
export function mergeDirectionFacts(
  previous: DirectionFacts,
  observed: DirectionFacts,
): DirectionFacts {
  const merged: DirectionFacts = new Map(previous);
  for (const [number, move] of observed) assign(merged, number, move);
  return complete(merged);
}

/**
 * Hint bullets stating the known mapping, by direction number (a bullet
 * saying none is known when empty). `every`: a bullet for each of the four
 * numbers, `- Direction k = unknown` where nothing is known (the literal
 * setting's demonstrator, decision 0041: the k-th bullet is always about
 * Direction k, so writing it is looking up that number's fact in the
 * context).
 */
export function formatDirectionHints(
  facts: DirectionFacts,
  { every = false }: { every?: boolean } = {},
): string {
  if (every)
    return [1, 2, 3, 4]
      .map(
        (number) => `- Direction ${number} = ${facts.get(number) ?? 'unknown'}`,
      )
      .join('\n');
  if (facts.size === 0) return '- No direction known yet.';
  return [...facts.entries()]
    .sort(([a], [b]) => a - b)
    .map(([number, move]) => `- Direction ${number} = ${move}`)
    .join('\n');
}

const delta: Record<FrozenLakeDirection, [number, number]> = {
  up: [-1, 0],
  down: [1, 0],
  left: [0, -1],
  right: [0, 1],
};

/** Steps to the goal from every cell over non-hole tiles (Infinity when cut off). */
function distancesToGoal(
  rows: readonly string[],
  goal: readonly [number, number],
): number[][] {
  const distance = rows.map((row) =>
    Array.from(row, () => Number.POSITIVE_INFINITY),
  );
  distance[goal[0]]![goal[1]] = 0;
  let frontier: [number, number][] = [[goal[0], goal[1]]];
  for (let d = 1; frontier.length > 0; d++) {
    const next: [number, number][] = [];
    for (const [r, c] of frontier) {
      for (const [dr, dc] of Object.values(delta)) {
        const nr = r + dr;
        const nc = c + dc;
        if (nr < 0 || nc < 0 || nr >= rows.length || nc >= rows[0]!.length)
          continue;
        if (rows[nr]![nc] === 'H' || distance[nr]![nc]! <= d) continue;
        distance[nr]![nc] = d;
        next.push([nr, nc]);
      }
    }
    frontier = next;
  }
  return distance;
}

/** Why the demonstrator chose its move ({@link frozenLakeExpertChoice}). */
export type FrozenLakeExpertReason =
  /** A known direction starts a shortest safe path to the goal. */
  | 'toward-goal'
  /** No known direction does: the lowest unknown one not yet bumped here. */
  | 'explore'
  /** Nothing left to explore here: a known move onto safe ice. */
  | 'safe'
  /** Nothing known is safe: Direction 1. */
  | 'fallback';

/** The demonstrator's move and why. */
export type FrozenLakeExpertChoice = {
  /** The direction number to answer, 1–4. */
  direction: number;
  reason: FrozenLakeExpertReason;
  /** The real move the demonstrator believes `direction` makes (known from its facts), when it knows. */
  move?: FrozenLakeDirection;
};

/**
 * The demonstrator's move on a FrozenLake-Obscure map: a known direction
 * that starts a shortest safe path to the goal when there is one (the
 * lowest number); otherwise it explores the lowest-numbered direction not
 * known yet that has not already bumped into the edge here; failing that,
 * any known move that stays on safe ice. It plays as an agent would: it
 * knows only `facts` (its notes and what it saw), never the pack's mapping.
 */
export function frozenLakeExpertChoice({
  rows,
  position,
  goal,
  facts,
  bumped = new Set(),
}: {
  rows: readonly string[];
  position: readonly [number, number];
  goal: readonly [number, number];
  facts: DirectionFacts;
  /** Direction numbers that left the position unchanged here (the edge). */
  bumped?: ReadonlySet<number>;
}): FrozenLakeExpertChoice {
  const distance = distancesToGoal(rows, goal);
  const here = distance[position[0]]![position[1]]!;
  const target = (move: FrozenLakeDirection): [number, number] => [
    position[0] + delta[move][0],
    position[1] + delta[move][1],
  ];
  const inside = ([r, c]: [number, number]) =>
    r >= 0 && c >= 0 && r < rows.length && c < rows[0]!.length;
  const numbers = [1, 2, 3, 4];
  const best = numbers.find((k) => {
    const move = facts.get(k);
    if (move === undefined) return false;
    const cell = target(move);
    return inside(cell) && distance[cell[0]]![cell[1]]! === here - 1;
  });
  if (best !== undefined)
    return { direction: best, reason: 'toward-goal', move: facts.get(best)! };
  const unknown = numbers.find((k) => !facts.has(k) && !bumped.has(k));
  if (unknown !== undefined) return { direction: unknown, reason: 'explore' };
  const safe = numbers.find((k) => {
    const move = facts.get(k);
    if (move === undefined) return false;
    const cell = target(move);
    return inside(cell) && rows[cell[0]]![cell[1]] !== 'H';
  });
  if (safe !== undefined)
    return { direction: safe, reason: 'safe', move: facts.get(safe)! };
  return { direction: 1, reason: 'fallback' };
}

/** The demonstrator's move: the direction number of {@link frozenLakeExpertChoice}. */
export function frozenLakeExpertMove(
  options: Parameters<typeof frozenLakeExpertChoice>[0],
): number {
  return frozenLakeExpertChoice(options).direction;
}

/**
 * The one-line reasoning the demonstrator writes before its answer in the
 * compact format: the real move it wants and the direction number its
 * facts give for it, e.g. `Toward the goal: right, Direction 3`.
 */
export function formatExpertChoice(choice: FrozenLakeExpertChoice): string {
  switch (choice.reason) {
    case 'toward-goal':
      return `Toward the goal: ${choice.move}, Direction ${choice.direction}`;
    case 'explore':
      return `No known way: try unknown Direction ${choice.direction}`;
    case 'safe':
      return `No known way: safe ${choice.move}, Direction ${choice.direction}`;
    case 'fallback':
      return `Nothing safe known: Direction ${choice.direction}`;
  }
}

const observationPattern =
  /Direction ([1-4]): (?:you moved from \((\d+),(\d+)\) to \((\d+),(\d+)\)|your position \((\d+),(\d+)\) did not change)/g;

/**
 * One line per move the observations report, in order: `Direction 2: (1,3)
 * to (0,3) is up` for a move, `Direction 3: (0,0) hit the edge, unknown`
 * for one that left the position unchanged (the edge says nothing certain
 * about the direction). These are the reasoning lines of the demonstrator's
 * compact hint update; each is read off one observation of the trajectory.
 */
export function describeObservedMoves(observations: string): string[] {
  const lines: string[] = [];
  for (const match of observations.matchAll(observationPattern)) {
    if (match[2] === undefined) {
      lines.push(
        `Direction ${match[1]}: (${match[6]},${match[7]}) hit the edge, unknown`,
      );
      continue;
    }
    const from: [number, number] = [Number(match[2]), Number(match[3])];
    const to: [number, number] = [Number(match[4]), Number(match[5])];
    const move = moveBetween(from, to);
    lines.push(
      `Direction ${match[1]}: (${from[0]},${from[1]}) to (${to[0]},${to[1]}) is ${move ?? 'not one step'}`,
    );
  }
  return lines;
}

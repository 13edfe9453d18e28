import { SealError } from '@seal/spec';
import { createPackRandom, mixSeed } from '../packs/pack-random';

/** One FrozenLake map: `S` start, `F` frozen, `H` hole, `G` goal. */
export type FrozenLakeTask = {
  /** `frozen-lake/<seed>/<index>`. */
  taskId: string;
  /** Every map of one size range shares a taskset, so packs mix maps. */
  tasksetId: string;
  /** The rows of the map, top first. */
  rows: string[];
  /** Moves on the shortest safe path from S to G. */
  shortestPath: number;
};

/** Options of {@link generateFrozenLakeTasks}. */
export type GenerateFrozenLakeOptions = {
  seed: number;
  count: number;
  /** Smallest side length. Default 4 (training maps are 4–5 wide). */
  minSize?: number;
  /** Largest side length. Default 5 (6–7 for the harder evaluation). */
  maxSize?: number;
  /** Range of the fraction of frozen tiles. Default [0.6, 0.7]. */
  frozenFraction?: [number, number];
  /** Longest allowed shortest path. Default 6 (the paper's `env_max_steps`). */
  maxPathLength?: number;
  /** Taskset id. Default `frozen-lake-<minSize>x<maxSize>`. */
  tasksetId?: string;
};

type Cell = [number, number];

const moves: readonly Cell[] = [
  [-1, 0],
  [1, 0],
  [0, -1],
  [0, 1],
];

/** Breadth-first shortest path from S to G over non-hole tiles; -1 when unreachable. */
export function shortestFrozenLakePath(rows: readonly string[]): number {
  const height = rows.length;
  const width = rows[0]?.length ?? 0;
  let start: Cell | undefined;
  for (let r = 0; r < height; r++)
    for (let c = 0; c < width; c++) if (rows[r]![c] === 'S') start = [r, c];
  if (start === undefined) return -1;
  const seen = new Set([`${start[0]},${start[1]}`]);
  let frontier: Cell[] = [start];
  for (let distance = 0; frontier.length > 0; distance++) {
    const next: Cell[] = [];
    for (const [r, c] of frontier) {
      if (rows[r]![c] === 'G') return distance;
      for (const [dr, dc] of moves) {
        const nr = r + dr;
        const nc = c + dc;
        if (nr < 0 || nc < 0 || nr >= height || nc >= width) continue;
        if (rows[nr]![nc] === 'H' || seen.has(`${nr},${nc}`)) continue;
        seen.add(`${nr},${nc}`);
        next.push([nr, nc]);
      }
    }
    frontier = next;
  }
  return -1;
}

/**
 * Draws solvable FrozenLake maps (spec B5): a random size, start and goal,
 * holes on about `1 − frozenFraction` of the other tiles, kept only when the
 * goal is reachable in 2..`maxPathLength` moves. Deterministic for a seed;
 * map `i` depends only on `(seed, i)`.
 */
export function generateFrozenLakeTasks(
  options: GenerateFrozenLakeOptions,
): FrozenLakeTask[] {
  const minSize = options.minSize ?? 4;
  const maxSize = options.maxSize ?? 5;
  const [lowFrozen, highFrozen] = options.frozenFraction ?? [0.6, 0.7];
  const maxPathLength = options.maxPathLength ?? 6;
  if (!(
    Number.isInteger(minSize) &&
    minSize >= 2 &&
    maxSize >= minSize &&
    lowFrozen > 0 &&
    highFrozen <= 1 &&
    lowFrozen <= highFrozen &&
    maxPathLength >= 2
  )) {
    throw new SealError({
      code: 'INVALID_ARGUMENT',
      message: `frozen lake: need 2 ≤ minSize ≤ maxSize, 0 < frozen fraction range ≤ 1 and maxPathLength ≥ 2`,
      details: {
        minSize,
        maxSize,
        frozenFraction: [lowFrozen, highFrozen],
        maxPathLength,
      },
    });
  }
  const tasksetId = options.tasksetId ?? `frozen-lake-${minSize}x${maxSize}`;
  const tasks: FrozenLakeTask[] = [];
  for (let index = 0; index < options.count; index++) {
    const random = createPackRandom(mixSeed(options.seed, index, 0xf1a4e));
    for (let attempt = 0; ; attempt++) {
      if (attempt > 10_000) {
        throw new SealError({
          code: 'INTERNAL',
          message: `frozen lake: no solvable map after 10,000 draws (task ${index})`,
          details: { index },
        });
      }
      const height = minSize + random.int(maxSize - minSize + 1);
      const width = minSize + random.int(maxSize - minSize + 1);
      const frozen = lowFrozen + random.next() * (highFrozen - lowFrozen);
      const cells = height * width;
      const start = random.int(cells);
      let goal = random.int(cells - 1);
      if (goal >= start) goal++;
      const rows: string[] = [];
      for (let r = 0; r < height; r++) {
        let row = '';
        for (let c = 0; c < width; c++) {
          const at = r * width + c;
          row +=
            at === start
              ? 'S'
              : at === goal
                ? 'G'
                : random.next() < frozen
                  ? 'F'
                  : 'H';
        }
        rows.push(row);
      }
      const shortestPath = shortestFrozenLakePath(rows);
      if (shortestPath >= 2 && shortestPath <= maxPathLength) {
        tasks.push({
          taskId: `frozen-lake/${options.seed}/${index}`,
          tasksetId,
          rows,
          shortestPath,
        });
        break;
      }
    }
  }
  return tasks;
}

import { clusteredPairedBootstrap, type PairedEstimate } from './bootstrap';

/** What is measured of a training episode, and how it reads. */
export const trainingMeasures = {
  success: 'success (share of episodes)',
  spurious:
    'a spurious call (share of episodes calling a tool in a turn that should ask)',
  emptyTurns: 'empty turns (turns a call was due and none came, per episode)',
} as const;

export type TrainingMeasure = keyof typeof trainingMeasures;

/** One training step's task: the policy's and the frozen baseline's episodes on it, with the same sampling seeds. */
export type TrainingCell = {
  run: string;
  step: number;
  taskId: string;
  category: string;
  /** Paired episodes (those both sides recorded and could re-verify). */
  episodes: number;
  policy: Record<TrainingMeasure, number>;
  frozen: Record<TrainingMeasure, number>;
};

/** A measure on one category (or all), the policy against the frozen baseline. */
export type TrainingComparison = {
  category: string;
  measure: TrainingMeasure;
  /** (run, step, task) cells. */
  cells: number;
  episodes: number;
  frozen: number;
  policy: number;
  /** Policy − frozen over the cells, two-stage bootstrap (runs, then cells). */
  difference: PairedEstimate & { clusters: number };
};

const mean = (values: readonly number[]): number =>
  values.reduce((a, b) => a + b, 0) / values.length;

/**
 * The policy against its frozen baseline on the same training tasks and
 * sampling seeds, by category and over all, for each measure: the mean of
 * each side over the (run, step, task) cells and the difference with a
 * two-stage bootstrap 95% interval (runs, then cells). Nested, not crossed:
 * each run draws its own training tasks, so the cells of two runs are not
 * the same tasks.
 */
export function compareTraining({
  cells,
  seed = 1,
}: {
  cells: readonly TrainingCell[];
  seed?: number;
}): TrainingComparison[] {
  const categories = [...new Set(cells.map((cell) => cell.category))].sort();
  const runs = [...new Set(cells.map((cell) => cell.run))];
  const results: TrainingComparison[] = [];
  for (const category of [...categories, 'all']) {
    const chosen = cells.filter(
      (cell) => category === 'all' || cell.category === category,
    );
    if (chosen.length === 0) continue;
    for (const key of Object.keys(trainingMeasures) as TrainingMeasure[]) {
      const clusters = runs
        .map((run) => chosen.filter((cell) => cell.run === run))
        .filter((list) => list.length > 0)
        .map((list) => ({
          before: list.map((cell) => cell.frozen[key]),
          after: list.map((cell) => cell.policy[key]),
        }));
      results.push({
        category,
        measure: key,
        cells: chosen.length,
        episodes: chosen.reduce((sum, cell) => sum + cell.episodes, 0),
        frozen: mean(chosen.map((cell) => cell.frozen[key])),
        policy: mean(chosen.map((cell) => cell.policy[key])),
        difference: clusteredPairedBootstrap({ clusters, seed }),
      });
    }
  }
  return results;
}
